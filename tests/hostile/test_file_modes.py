"""Class 14: what the data folder holds is this user's alone.

The history, the settings, the logs (which name files and models) and the document index
(passages of private files) are created private whatever the umask: the data folder 0700,
its databases, settings and logs 0600.  An API key file that others can read is warned
about.  Windows keeps a profile's files private by its ACLs, so these are POSIX tests.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.settings import Settings
from tests.conftest import run_hearth

pytestmark = pytest.mark.posix_only("POSIX file modes")


@pytest.fixture
def open_umask() -> Iterator[None]:
    """Files made under umask 000 would be world-writable if Hearth left modes to it."""
    before = os.umask(0)
    yield
    os.umask(before)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_folder_and_its_files_are_private_under_any_umask(
    open_umask: None, data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "diary.md").write_text("A private diary entry about the garden.\n")
    assert run_hearth("docs", "add", "diary", str(folder)).returncode == 0
    chat = run_hearth("chat", "--save", "--max-tokens", "2", "Hello")
    assert chat.returncode == 0, chat.stderr
    Settings(data_dir / "settings.json").save()

    assert _mode(data_dir) == 0o700
    assert _mode(data_dir / "logs") == 0o700
    private = [
        data_dir / "chats.sqlite3",
        data_dir / "documents.sqlite3",
        data_dir / "settings.json",
        data_dir / "logs" / "hearth.log",
    ]
    for path in private:
        assert _mode(path) == 0o600, f"{path.name}: {oct(_mode(path))}"
    for path in data_dir.rglob("*"):  # WAL files, worker logs, anything else
        assert not _mode(path) & 0o077, f"{path}: {oct(_mode(path))}"


def test_a_data_folder_others_could_read_is_made_private(data_dir: Path) -> None:
    data_dir.mkdir(mode=0o755)
    os.chmod(data_dir, 0o755)  # made by an earlier version under umask 022
    assert run_hearth("models", "list").returncode == 0
    assert _mode(data_dir) == 0o700


def test_a_shared_folder_named_as_the_data_folder_keeps_its_mode(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "holiday.jpg").write_bytes(b"not Hearth's")
    os.chmod(shared, 0o755)
    assert run_hearth("--data-dir", str(shared), "models", "list").returncode == 0
    assert _mode(shared) == 0o755  # not Hearth's to close
    assert _mode(shared / "logs") == 0o700  # what Hearth made in it is private


def test_a_key_file_others_can_read_is_warned_about(tmp_path: Path) -> None:
    key_file = tmp_path / "key"
    key_file.write_text("a-long-secret-key-for-the-lan\n")
    os.chmod(key_file, 0o644)
    shown = run_hearth("serve", "--api-key-file", str(key_file), "--port", "-1")
    assert "can be read by other users" in shown.stderr and "chmod 600" in shown.stderr
    os.chmod(key_file, 0o600)
    quiet = run_hearth("serve", "--api-key-file", str(key_file), "--port", "-1")
    assert "other users" not in quiet.stderr
