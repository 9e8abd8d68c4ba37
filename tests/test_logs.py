"""The log shared by every Hearth process of a data folder keeps every line, even where a
rollover cannot rename the file another process holds open (Windows)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from app.logs import MAX_BYTES, SharedRotatingFileHandler


def test_a_rollover_that_cannot_rename_keeps_every_line_and_is_tried_again_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "hearth.log"
    handler = SharedRotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=3, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(message)s"))
    attempts = []

    def held_open(source: str, dest: str) -> None:
        attempts.append(source)
        raise PermissionError(32, "The process cannot access the file", source)

    monkeypatch.setattr(handler, "rotate", held_open)
    line = "x" * 999
    count = 2 * MAX_BYTES // 1000  # twice the size at which it rolls over
    for number in range(count):
        handler.emit(logging.makeLogRecord({"msg": f"{number:06d}{line}"}))
    handler.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == count and lines[-1].startswith(f"{count - 1:06d}")
    assert 1 <= len(attempts) <= 6, "tried again as it grew, not at every line"

    monkeypatch.undo()  # the other process let go: the next rollover goes through
    handler = SharedRotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=3, encoding="utf-8")
    handler.emit(logging.makeLogRecord({"msg": "after"}))
    handler.close()
    assert (tmp_path / "hearth.log.1").stat().st_size > MAX_BYTES
    assert path.read_text(encoding="utf-8") == "after\n"
