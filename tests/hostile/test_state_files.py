"""Class 2: a damaged state file is set aside with a notice and Hearth goes on.

Each of Hearth's JSON state files goes through one loader (``app.json_document``); the unit
cases for every kind of damage are in ``tests/test_json_document.py``.  Here all of them are
damaged at once, as a bad disk or another program might leave them, and the commands a user
runs must still work and say what was set aside.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_hearth

pytestmark = pytest.mark.slow

DAMAGE = {
    "settings.json": "\ufeff{}".encode("utf-16"),  # UTF-16, not UTF-8
    "downloads.json": b'{"version": 1, "owned": 5}',  # a field of the wrong type
    "model_settings.json": b'{"version": 1, "models": {"a": {"threads": 1e999}}}',
    "presets.json": b"[" * 100_000 + b"]" * 100_000,  # nested far too deep
    "endpoints.json": b'{"version": 1, "endpoints": [\xff\xfe]}',  # not UTF-8
}


def _damage(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    for name, content in DAMAGE.items():
        (data_dir / name).write_bytes(content)


def _assert_set_aside_and_said(data_dir: Path, stderr: str) -> None:
    for name, content in DAMAGE.items():
        kept = list(data_dir.glob(f"{name}.damaged-*"))
        assert [p.read_bytes() for p in kept] == [content], name  # nothing lost
        assert kept[0].name in stderr, f"no notice about {name}: {stderr}"


def test_the_self_test_passes_with_every_state_file_damaged(data_dir: Path) -> None:
    _damage(data_dir)
    result = run_hearth("--self-test")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "passed" in result.stdout
    _assert_set_aside_and_said(data_dir, result.stderr)
    assert "settings.json was damaged" in (data_dir / "logs" / "hearth.log").read_text()


def test_chat_and_the_model_list_work_with_every_state_file_damaged(data_dir: Path) -> None:
    _damage(data_dir)
    chat = run_hearth("chat", "--max-tokens", "4", "--seed", "1", "Hi")
    assert chat.returncode == 0, chat.stderr
    assert chat.stdout.strip()
    _assert_set_aside_and_said(data_dir, chat.stderr)
    listed = run_hearth("models", "list")
    assert listed.returncode == 0 and "SmolLM2" in listed.stdout
    assert "could not be read" not in listed.stderr  # said once, not on every command
