"""Class 5: limits enforced where data enters, with an answer that reaches the person who
asked (a prompt too long for the worker's pipe, a runaway line on the pipe itself)."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import HEARTH, REPO
from wire import protocol


def test_a_runaway_line_is_skipped_and_the_next_message_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(protocol, "MAX_LINE_BYTES", 1000)
    stream = io.BytesIO(b"x" * 5000 + b"\n" + protocol.encode({"type": "hello", "id": 1}))
    with pytest.raises(protocol.ProtocolError, match="skipped"):
        protocol.read_message(stream)
    assert protocol.read_message(stream) == {"type": "hello", "id": 1}


@pytest.mark.slow
def test_a_prompt_too_long_for_the_engine_is_one_sentence_not_a_hang(data_dir: Path) -> None:
    prompt = b"word " * (14 * 1024 * 1024)  # 70 MB
    result = subprocess.run(
        [*HEARTH, "chat", "--json", "-"],
        input=prompt,
        capture_output=True,
        cwd=REPO,
        timeout=600,
        check=False,
    )
    assert result.returncode == 1
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[-1]["type"] == "error" and "too long to send" in events[-1]["message"]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_a_temperature_that_is_not_a_number_is_refused(tmp_path: Path, value: float) -> None:
    from app.settings import Settings

    settings = Settings(tmp_path / "settings.json")
    with pytest.raises(ValueError, match="must be a number"):
        settings.set("sampling.temperature", value)
    assert settings.get("sampling.temperature") == 0.7
