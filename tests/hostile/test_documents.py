"""Class 7: hostile and broken documents never crash anything and never hang indexing.

Each bad file is left out with a reason a person can read, the rest of its folder is
indexed, and the parser runs in a process of its own that is killed when it hangs or
grows too large (``app.docs.extraction``).  Nothing in a document runs or is fetched.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.docs.extraction import Extractor, Skipped
from app.docs.library import Documents
from hearth.selftest import write_bare_docx
from tests import documents as make
from wire import platforms


@pytest.fixture
def docs(data_dir: Path) -> Iterator[Documents]:
    documents = Documents(data_dir, data_dir / "logs")
    yield documents
    documents.index.close()


def _reasons(docs: Documents, name: str) -> dict[str, tuple[str, str]]:
    return {Path(r.path).name: (r.status, r.reason) for r in docs.index.files(name)}


def test_a_folder_of_bad_files_is_indexed_around_them(docs: Documents, tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "good.md").write_text("The good file mentions pelicans.\n", encoding="utf-8")
    make.pdf(folder / "locked.pdf", ["secret plans"], password="hunter2")
    (folder / "broken.pdf").write_bytes(
        b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\n%%EOF garbage"
    )
    (folder / "notzip.docx").write_bytes(b"This is not a zip file at all, just text.")
    make.zip_bomb(folder / "bomb.docx")
    make.zip_bomb(folder / "bomb.epub", inner="OEBPS/chapter.xhtml")
    (folder / "junk.txt").write_bytes(os.urandom(20_000))
    with (folder / "huge.log").open("wb") as handle:  # 2 GB, sparse: no disk used
        handle.truncate(2 * 1024**3)
    (folder / "loop").symlink_to(folder)  # a folder link back to itself
    (folder / "self.txt").symlink_to(folder / "self.txt")  # a file link to itself
    (folder / "gone.md").symlink_to(folder / "nowhere.md")
    (folder / "mixed.txt").write_bytes(
        "Mixed encodings: the café sells croissants. ".encode()
        + b"\xe9t\xe9 caf\xe9 "
        + b"more words."
    )
    (folder / "gbk.txt").write_bytes("这是一份用国标码保存的文件，讲的是熊猫。".encode("gbk"))
    (folder / "empty.md").write_bytes(b"")

    report = docs.add("bad", [folder])
    reasons = _reasons(docs, "bad")
    assert reasons["good.md"][0] == "indexed"
    assert reasons["mixed.txt"][0] == "indexed" and reasons["gbk.txt"][0] == "indexed"
    assert reasons["locked.pdf"] == ("skipped", "the PDF is protected by a password")
    assert reasons["broken.pdf"][0] in ("failed", "skipped") and "PDF" in reasons["broken.pdf"][1]
    assert reasons["notzip.docx"] == ("failed", "it is not a valid DOCX file (not a zip archive)")
    assert "zip bomb" in reasons["bomb.docx"][1] and "zip bomb" in reasons["bomb.epub"][1]
    assert reasons["junk.txt"] == ("skipped", "it is binary data, not text")
    assert "2.1 GB" in reasons["huge.log"][1] and "up to" in reasons["huge.log"][1]
    assert reasons["empty.md"] == ("skipped", "it is empty")
    scan_problems = {Path(p.path).name: p.reason for p in report.problems}
    assert "link loop" in scan_problems["loop"]
    assert "loops" in scan_problems["self.txt"]
    assert "symbolic link to nothing" in scan_problems["gone.md"]
    # what could be read is found, in any encoding
    assert docs.search(["bad"], "pelicans")
    assert "croissants" in docs.search(["bad"], "croissants")[0].text
    assert "熊猫" in docs.search(["bad"], "熊猫")[0].text


def test_a_file_that_vanishes_while_indexing_is_left_out(docs: Documents, tmp_path: Path) -> None:
    folder = tmp_path / "going"
    folder.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (folder / name).write_text(f"{name} holds a word.\n")

    def delete_the_next(progress: object) -> None:
        if getattr(progress, "files_done", 0) == 1 and (folder / "b.txt").exists():
            (folder / "b.txt").unlink()

    report = docs.add("going", [folder], on_progress=delete_the_next)
    assert sorted(_reasons(docs, "going")) == ["a.txt", "c.txt"]
    assert report.problems == []


@pytest.mark.posix_only("a file no one may read is made with POSIX modes")
@pytest.mark.skipif(platforms.reads_every_file(), reason="root reads every file")
def test_an_unreadable_file_is_skipped(docs: Documents, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("private\n")
    secret.chmod(0)
    docs.add("private", [tmp_path])
    assert _reasons(docs, "private")["secret.md"] == (
        "skipped",
        "Hearth may not read it (permission denied)",
    )


def test_a_reader_that_hangs_is_killed_and_the_next_file_read(tmp_path: Path) -> None:
    document = tmp_path / "notes.md"
    document.write_text("Readable notes.\n")
    hanging = [sys.executable, "-c", "import time; time.sleep(3600)"]
    with Extractor(timeout_s=1, command=hanging) as extractor:
        with pytest.raises(Skipped, match="took longer than 1 s") as raised:
            extractor.extract(document)
        assert raised.value.failed
        # a fresh, working reader for the next file (with no time limit of 1 s: starting
        # Python can take longer than that on a busy machine)
        extractor.command = Extractor().command
        extractor.timeout_s = None
        assert "Readable notes." in extractor.extract(document).text


def test_a_reader_that_grows_too_large_is_killed(tmp_path: Path) -> None:
    document = tmp_path / "notes.md"
    document.write_text("Readable notes.\n")
    greedy = [
        sys.executable,
        "-c",
        'import time; block = b"x" * (400 * 1024 * 1024); time.sleep(3600)',
    ]
    limit = 200 * 1024 * 1024
    with (
        Extractor(memory_limit=limit, timeout_s=3600, command=greedy) as extractor,
        pytest.raises(Skipped, match=r"more than 0\.2 GB of memory"),
    ):
        extractor.extract(document)


def test_a_stop_ends_the_reader_in_the_middle_of_a_file(tmp_path: Path) -> None:
    from app.docs.extraction import Stopped

    document = tmp_path / "notes.md"
    document.write_text("Readable notes.\n")
    hanging = [sys.executable, "-c", "import time; time.sleep(3600)"]
    with Extractor(timeout_s=3600, command=hanging) as extractor:
        extractor.should_stop = lambda: True
        with pytest.raises(Stopped):
            extractor.extract(document)
        assert extractor._process is None  # the reader was ended, not left running


def test_a_reader_missing_a_part_of_its_own_says_so(tmp_path: Path) -> None:
    """A frozen build once lacked python-docx's template folder: the file was there, the
    reader raised FileNotFoundError, and the file was dropped as if it had vanished."""
    document = tmp_path / "kettle.docx"
    write_bare_docx(document)
    broken = [
        sys.executable,
        "-c",
        "import docx.parts.styles as styles; styles.__file__ = '/nowhere/parts/styles.py'; "
        "from app.docs.extract_child import main; main()",
    ]
    with (
        Extractor(timeout_s=3600, command=broken) as extractor,
        pytest.raises(Skipped, match="reader for it is incomplete") as raised,
    ):
        extractor.extract(document)
    assert raised.value.failed and not raised.value.vanished


SCRIPTED = (
    "<html><head><title>T</title><script>document.write('INJECTED')</script></head><body>"
    "<iframe src='http://example.invalid/'></iframe><p>Visible words only.</p>"
    "<img src='http://example.invalid/pixel.png'><style>p { color: red }</style></body></html>"
)


def test_html_and_epub_run_and_fetch_nothing(docs: Documents, tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(SCRIPTED)
    scripted_chapter = (
        "Visible words in a book.</p><script>document.write('INJECTED')</script>"
        "<img src='http://example.invalid/pixel.png'><p>"
    )
    make.epub(tmp_path / "book.epub", [("Chapter", scripted_chapter)])
    docs.add("web", [tmp_path])
    texts = sorted(hit.text for hit in docs.search(["web"], "visible words", 10))
    assert texts == ["Chapter\n\nVisible words in a book.", "Visible words only."]
    assert not docs.search(["web"], "INJECTED")


def test_a_zip_of_twenty_thousand_parts_is_refused(docs: Documents, tmp_path: Path) -> None:
    import zipfile

    with zipfile.ZipFile(tmp_path / "parts.docx", "w") as archive:
        for number in range(20_001):
            archive.writestr(f"word/p{number}.xml", "")
    docs.add("zips", [tmp_path / "parts.docx"])
    status, reason = _reasons(docs, "zips")["parts.docx"]
    assert status == "skipped" and "20,001 parts" in reason


@pytest.mark.linux_only("file names are bytes only on Linux")
def test_a_file_name_that_is_not_utf8_fails_alone(docs: Documents, tmp_path: Path) -> None:
    folder = tmp_path / "names"
    folder.mkdir()
    (folder / "good.md").write_text("Pelicans nest here.\n")
    with open(os.path.join(os.fsencode(folder), b"caf\xe9.md"), "wb") as handle:
        handle.write(b"A name in Latin-1.\n")
    report = docs.add("names", [folder])
    assert [p.reason for p in report.problems] == [
        "its name is not valid text (UTF-8), so Hearth cannot keep it in the index"
    ]
    assert docs.search(["names"], "pelicans")  # the rest was indexed


def test_an_unplugged_folder_keeps_its_index(docs: Documents, tmp_path: Path) -> None:
    disk = tmp_path / "usb"
    disk.mkdir()
    (disk / "trip.md").write_text("The train to Oslo leaves at nine.\n")
    docs.add("trips", [disk])
    disk.rename(tmp_path / "usb-away")  # the disk is unplugged
    report = docs.update("trips")
    assert report.progress.removed == 0
    assert "cannot be found" in report.problems[0].reason
    assert docs.search(["trips"], "Oslo")  # still found while the disk is away


def test_a_damaged_document_index_is_set_aside_and_rebuilt(
    tmp_path: Path, expect_error_logs: None
) -> None:
    from app.docs.index import DocumentIndex

    path = tmp_path / "documents.sqlite3"
    garbage = b"SQLite format 3\0" + bytes(range(256)) * 64
    path.write_bytes(garbage)
    index = DocumentIndex(path)
    assert "set aside as documents.sqlite3.damaged-" in str(index.problem)
    (aside,) = tmp_path.glob("documents.sqlite3.damaged-*")
    assert aside.read_bytes() == garbage, "the damaged file is kept as it was"
    assert index.db.execute("SELECT count(*) FROM files").fetchone() == (0,)
    index.close()


def test_a_damaged_index_that_cannot_be_moved_is_said_and_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, expect_error_logs: None
) -> None:
    """As on Windows while another Hearth has it open: nothing is claimed, nothing lost."""
    import os

    from app.docs import index as index_module

    path = tmp_path / "documents.sqlite3"
    garbage = b"SQLite format 3\0" + bytes(range(256)) * 64
    path.write_bytes(garbage)
    wal = tmp_path / "documents.sqlite3-wal"
    wal.write_bytes(b"its log")

    def held_open(source: str | Path, target: str | Path) -> None:
        if str(source) == str(path):
            raise PermissionError(32, "The process cannot access the file", source)
        os.rename(source, target)

    monkeypatch.setattr(os, "replace", held_open)  # the index's os is this one
    index = index_module.DocumentIndex(path)
    assert "could not be set aside" in str(index.problem)
    assert path.read_bytes() == garbage and wal.read_bytes() == b"its log", "all put back"
    assert not list(tmp_path.glob("*.damaged-*"))
