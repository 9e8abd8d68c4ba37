"""Class 22: a document index damaged deep inside is rebuilt, not failed on every run.

The opening check reads the header and the files table; a damaged page elsewhere (the
passages' terms) was met only while indexing, which then failed file after file with
"database disk image is malformed", and ``hearth --self-test`` failed on every run after
(its scratch index is kept).  The index is derived from the collections' files: met in
use, the damage sets the file aside, the index is built again, and that is said once.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.conftest import run_hearth
from tests.hostile.test_chat_database import _pages_of, _scribble

pytestmark = pytest.mark.slow


def _damage_passages(index: Path) -> None:
    db = sqlite3.connect(index)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file itself
    db.close()
    pages = _pages_of(index, "chunks")
    # the passages (their root too when there is only one page), not the files table
    # that the opening check reads
    _scribble(index, pages[1:] or pages)


def _folder(tmp_path: Path, count: int) -> Path:
    folder = tmp_path / "shelf"
    folder.mkdir()
    for number in range(count):
        words = " ".join(f"term{number}w{k}" for k in range(150))
        (folder / f"note{number:02}.md").write_text(f"# Note {number}\n\nOtter {number}. {words}\n")
    return folder


def _indexed_then_damaged(tmp_path: Path, data_dir: Path) -> Path:
    """A collection of forty notes, indexed; then the index's passages scribbled over."""
    folder = _folder(tmp_path, 40)
    assert run_hearth("docs", "add", "shelf", str(folder)).returncode == 0
    _damage_passages(data_dir / "documents.sqlite3")
    return folder


def test_a_collection_met_with_a_damaged_index_is_indexed_again(
    tmp_path: Path, data_dir: Path
) -> None:
    folder = _indexed_then_damaged(tmp_path, data_dir)
    (folder / "new.md").write_text("A new note about kingfishers.\n")
    for old in list(folder.glob("note0*.md")):
        old.write_text(old.read_text() + "\nChanged since.\n")

    updated = run_hearth("docs", "update", "shelf")
    assert updated.returncode == 0, updated.stderr
    assert updated.stderr.count("set aside") == 1, updated.stderr
    assert "malformed" not in updated.stdout + updated.stderr
    assert "41 file(s) indexed" in updated.stdout, updated.stdout
    assert list(data_dir.glob("documents.sqlite3.damaged-*"))
    found = run_hearth("docs", "search", "shelf", "kingfishers", "--json")
    assert "new.md" in found.stdout
    again = run_hearth("docs", "search", "shelf", "term33w7", "--json")
    assert "note33.md" in again.stdout


def test_the_self_test_passes_again_after_its_scratch_index_is_damaged(data_dir: Path) -> None:
    first = run_hearth("--self-test")
    assert first.returncode == 0, first.stdout + first.stderr
    _damage_passages(data_dir / "self-test-index" / "documents.sqlite3")
    second = run_hearth("--self-test")
    assert second.returncode == 0, second.stdout + second.stderr


def test_a_search_that_meets_the_damage_says_so_and_the_next_update_rebuilds(
    tmp_path: Path, data_dir: Path
) -> None:
    _indexed_then_damaged(tmp_path, data_dir)
    searched = run_hearth("docs", "search", "shelf", "Otter term33w7")
    assert searched.returncode == 1 and "set aside" in searched.stderr, searched.stderr
    assert "malformed" not in searched.stderr
    assert run_hearth("docs", "update", "shelf").returncode == 0
    again = run_hearth("docs", "search", "shelf", "term33w7", "--json")
    assert "note33.md" in again.stdout


def test_a_command_that_sets_a_damaged_index_aside_names_the_command_that_rebuilds_it(
    tmp_path: Path, data_dir: Path
) -> None:
    """The window indexes the collections again by itself; a command does not, and once
    said "your collections are being indexed again" while nothing was, and a search then
    read like a real miss.  It names ``hearth docs update`` for each collection."""
    folder = _folder(tmp_path, 2)
    assert run_hearth("docs", "add", "shelf", str(folder)).returncode == 0
    index = data_dir / "documents.sqlite3"
    with index.open("r+b") as file:
        file.write(b"\0" * 16)  # its header
    listed = run_hearth("docs", "list")
    assert listed.returncode == 0, listed.stderr
    assert "set aside" in listed.stderr and "hearth docs update shelf" in listed.stderr
    assert "being indexed again" not in listed.stderr
    updated = run_hearth("docs", "update", "shelf")
    assert updated.returncode == 0 and "2 file(s) indexed" in updated.stdout, updated.stdout
