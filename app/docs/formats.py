"""Text out of a document, by format, with the structure that citations need.

Runs only in the extraction process (``app.docs.extract_child``), never in the window or
the indexer: a parser that hangs or eats memory there is killed by its parent.  Each
reader returns ``Section``\\ s — a run of text with its page (PDF) or its heading (the
title of the chapter or section it sits under) — in reading order.  Nothing in a
document is executed or fetched: HTML is parsed as text (no scripts, no remote images),
DOCX and EPUB are read as zips whose size is checked before a single entry is inflated.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# A zip (DOCX, EPUB) that would inflate to more than this, or more than RATIO times its
# own size, is a zip bomb as far as Hearth is concerned.
MAX_INFLATED_BYTES = 512 * 1024 * 1024
MAX_INFLATE_RATIO = 200
MAX_ZIP_ENTRIES = 20_000
# Text beyond this many characters is not indexed (a 2 GB log is not a document; a long
# book is about 3 million).
MAX_TEXT_CHARS = 8_000_000
CSV_ROWS_PER_SECTION = 50

_TEXT_NAMES = """
    .txt .text .md .markdown .rst .org .log .tex .json .yaml .yml .toml .ini .cfg .xml
    .py .pyi .c .h .cc .cpp .hpp .cs .java .kt .go .rs .js .jsx .ts .tsx .rb .php .swift
    .m .scala .sh .bash .zsh .ps1 .bat .sql .r .lua .pl .dart .vue .css .scss .ipynb
"""
TEXT_SUFFIXES = frozenset(_TEXT_NAMES.split())
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | HTML_SUFFIXES | {".pdf", ".docx", ".epub", ".csv", ".tsv"}


class Unreadable(Exception):
    """The file cannot be read as a document; the message says why, for the user.
    ``damaged``: the file is broken (a failure), not just of a kind Hearth leaves out."""

    def __init__(self, reason: str, damaged: bool = False) -> None:
        super().__init__(reason)
        self.damaged = damaged


@dataclass
class Section:
    text: str
    page: int | None = None  # 1-based page of a PDF
    heading: str = ""  # the chapter or section title the text sits under

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "page": self.page, "heading": self.heading}


def kind_of(path: Path) -> str | None:
    """The reader for ``path`` by its name, or None for a format Hearth does not read."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return "pdf"
    if suffix == ".docx":
        return "docx"
    if suffix == ".epub":
        return "epub"
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix in HTML_SUFFIXES:
        return "html"
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix in TEXT_SUFFIXES:
        return "text"
    return None


def read_document(path: Path, kind: str) -> list[Section]:
    """The sections of ``path`` read as ``kind``; ``Unreadable`` with the reason."""
    readers: dict[str, Callable[[Path], list[Section]]] = {
        "pdf": _read_pdf,
        "docx": _read_docx,
        "epub": _read_epub,
        "csv": _read_csv,
        "html": lambda p: _html_sections(decode_text(p.read_bytes())),
        "markdown": lambda p: markdown_sections(decode_text(p.read_bytes())),
        "text": lambda p: [Section(decode_text(p.read_bytes()))],
    }
    return [s for s in readers[kind](path) if s.text.strip()]


# -- plain text -------------------------------------------------------------------------
def decode_text(data: bytes) -> str:
    """Bytes as text: UTF-8 (with or without BOM), UTF-16 with a BOM, or the encoding
    charset-normalizer finds; a file that is mostly UTF-8 with a few stray bytes of another
    encoding (mixed encodings) keeps its UTF-8 and gets U+FFFD for the rest.  Binary data
    with a text name is ``Unreadable``."""
    data = data[: MAX_TEXT_CHARS * 4]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    head = data[:65536]
    if head.count(b"\x00") > max(1, len(head) // 1000):
        raise Unreadable("it is binary data, not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    repaired = data.decode("utf-8", errors="replace")
    if repaired.count("\ufffd") <= max(2, len(data) // 200):
        return repaired  # mixed encodings: keep the UTF-8, mark the stray bytes
    from charset_normalizer import from_bytes

    best = from_bytes(data[:1_000_000]).best()
    if best is None or best.encoding is None:
        raise Unreadable("it is not text in any encoding Hearth recognises")
    text = data.decode(best.encoding, errors="replace")
    if _control_ratio(text) > 0.05:
        raise Unreadable("it is binary data, not text")
    return text


def _control_ratio(text: str) -> float:
    sample = text[:100_000]
    if not sample:
        return 0.0
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\n\r\t\f")
    return controls / len(sample)


_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def markdown_sections(text: str) -> list[Section]:
    """Markdown split at its headings (not inside fenced code); each section is named by
    its heading path ("Install › Linux")."""
    sections: list[Section] = []
    trail: list[tuple[int, str]] = []
    lines: list[str] = []
    fenced = False

    def flush() -> None:
        if lines:
            heading = " › ".join(title for _, title in trail)
            sections.append(Section("\n".join(lines), heading=heading))
            lines.clear()

    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else _MD_HEADING.match(line)
        if match:
            flush()
            level = len(match.group(1))
            while trail and trail[-1][0] >= level:
                trail.pop()
            trail.append((level, match.group(2)))
        lines.append(line)
    flush()
    return sections


# -- zips -------------------------------------------------------------------------------
def check_zip(path: Path, what: str) -> None:
    """Refuse a zip that is not one, or that would inflate past the limits (a zip bomb)."""
    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
    except zipfile.BadZipFile:
        raise Unreadable(f"it is not a valid {what} file (not a zip archive)", True) from None
    if len(entries) > MAX_ZIP_ENTRIES:
        raise Unreadable(f"the {what} holds {len(entries):,} parts, too many to be a document")
    inflated = sum(entry.file_size for entry in entries)
    packed = max(1, sum(entry.compress_size for entry in entries))
    if inflated > MAX_INFLATED_BYTES or inflated > MAX_INFLATE_RATIO * packed + 10_000_000:
        raise Unreadable(
            f"the {what} would unpack to {_size(inflated)} from {_size(packed)} (a zip bomb), "
            "so it was not opened"
        )


def _read_docx(path: Path) -> list[Section]:
    check_zip(path, "DOCX")
    import docx

    try:
        document = docx.Document(str(path))
    except Exception as exc:  # noqa: BLE001 - any parser failure is a damaged file
        raise Unreadable(f"it is not a readable DOCX file ({_short(exc)})", True) from None
    sections: list[Section] = []
    heading = ""
    lines: list[str] = []

    def flush() -> None:
        if lines:
            sections.append(Section("\n\n".join(lines), heading=heading))
            lines.clear()

    for paragraph in document.paragraphs:
        text = paragraph.text.strip()
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        if text and (style.startswith("Heading") or style == "Title"):
            flush()
            heading = text
        if text:
            lines.append(text)
    flush()
    for table in document.tables:
        rows = [" | ".join(cell.text.strip() for cell in row.cells) for row in table.rows]
        if rows:
            sections.append(Section("\n".join(rows), heading=heading))
    return sections


def _read_epub(path: Path) -> list[Section]:
    check_zip(path, "EPUB")
    import ebooklib
    from ebooklib import epub

    try:
        book = epub.read_epub(str(path), options={"ignore_ncx": True})
    except Exception as exc:  # noqa: BLE001 - any parser failure is a damaged file
        raise Unreadable(f"it is not a readable EPUB file ({_short(exc)})", True) from None
    sections: list[Section] = []
    # In reading order (the spine), leaving out the table of contents.
    ordered = [
        book.get_item_with_id(entry[0] if isinstance(entry, tuple) else entry)
        for entry in book.spine
    ]
    if not any(ordered):
        ordered = list(book.get_items_of_type(ebooklib.ITEM_DOCUMENT))
    for item in ordered:
        if (
            item is None
            or isinstance(item, epub.EpubNav)
            or item.get_type() != ebooklib.ITEM_DOCUMENT
        ):
            continue
        sections.extend(_html_sections(decode_text(item.get_content())))
    return sections


# -- PDF --------------------------------------------------------------------------------
def _read_pdf(path: Path) -> list[Section]:
    import logging

    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # damaged files warn on every page
    try:
        reader = PdfReader(str(path), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise Unreadable("the PDF is protected by a password")
        sections: list[Section] = []
        for number, page in enumerate(reader.pages, start=1):
            text = page.extract_text() or ""
            sections.append(Section(text, page=number))
    except FileNotDecryptedError:
        raise Unreadable("the PDF is protected by a password") from None
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        raise Unreadable(f"it is not a readable PDF ({_short(exc)})", True) from None
    if not any(s.text.strip() for s in sections):
        raise Unreadable("the PDF has no text layer (a scan?); Hearth does not read images")
    return sections


# -- HTML -------------------------------------------------------------------------------
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = ("p", "li", "pre", "blockquote", "td", "th", "dt", "dd", "div", "section")


def _html_sections(markup: str) -> list[Section]:
    """Visible text of an HTML page, split at its headings.  Scripts, styles and anything
    that would be fetched (images, frames) are dropped; nothing runs."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "html.parser")
    for junk in soup(["script", "style", "noscript", "template", "iframe", "object", "svg"]):
        junk.decompose()
    body = soup.body or soup
    sections: list[Section] = []
    heading = soup.title.get_text(" ", strip=True) if soup.title else ""
    lines: list[str] = []

    def flush() -> None:
        if lines:
            sections.append(Section("\n\n".join(lines), heading=heading))
            lines.clear()

    for element in body.find_all([*_HEADINGS, *_BLOCKS]):
        if element.name in _HEADINGS:
            flush()
            heading = element.get_text(" ", strip=True)
            if heading:
                lines.append(heading)
            continue
        if element.find([*_HEADINGS, *_BLOCKS]):
            continue  # a container: its blocks come on their own
        text = element.get_text(" " if element.name != "pre" else "", strip=element.name != "pre")
        if text.strip():
            lines.append(text)
    flush()
    if not sections:
        text = body.get_text("\n", strip=True)
        if text:
            sections.append(Section(text, heading=heading))
    return sections


# -- CSV --------------------------------------------------------------------------------
def _read_csv(path: Path) -> list[Section]:
    """Rows in groups, each group with the header line so a passage stands on its own."""
    text = decode_text(path.read_bytes())
    dialect: Any = "excel-tab" if path.suffix.lower() == ".tsv" else "excel"
    rows = list(csv.reader(io.StringIO(text), dialect))
    if not rows:
        return []
    header, body = rows[0], rows[1:]
    sections: list[Section] = []
    for start in range(0, max(1, len(body)), CSV_ROWS_PER_SECTION):
        group = body[start : start + CSV_ROWS_PER_SECTION]
        lines = [", ".join(header)] + [", ".join(row) for row in group]
        end = start + len(group)
        sections.append(Section("\n".join(lines), heading=f"rows {start + 1}–{end}"))
    return sections


def _size(size: int) -> str:
    return f"{size / 1e6:,.0f} MB" if size >= 1e6 else f"{size / 1e3:,.0f} KB"


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:160]
