"""Real documents written by the tests: PDF (fpdf2), DOCX (python-docx), EPUB (ebooklib),
HTML, Markdown, CSV, and hostile ones (encrypted, malformed, zip bombs…)."""

from __future__ import annotations

import zipfile
from pathlib import Path


def pdf(path: Path, pages: list[str], password: str | None = None) -> Path:
    from fpdf import FPDF

    document = FPDF()
    document.set_font("Helvetica", size=12)
    for text in pages:
        document.add_page()
        document.multi_cell(0, 8, text)
    document.output(str(path))
    if password is not None:
        from pypdf import PdfReader, PdfWriter

        writer = PdfWriter(clone_from=PdfReader(str(path)))
        writer.encrypt(user_password=password, owner_password=password + "-owner")
        with path.open("wb") as handle:
            writer.write(handle)
    return path


def docx(path: Path, sections: list[tuple[str, str]]) -> Path:
    import docx as python_docx

    document = python_docx.Document()
    for heading, text in sections:
        document.add_heading(heading, level=1)
        document.add_paragraph(text)
    document.save(str(path))
    return path


def epub(path: Path, chapters: list[tuple[str, str]]) -> Path:
    from ebooklib import epub as ebook

    book = ebook.EpubBook()
    book.set_identifier("hearth-test")
    book.set_title("A test book")
    book.set_language("en")
    items = []
    for number, (title, text) in enumerate(chapters, 1):
        chapter = ebook.EpubHtml(title=title, file_name=f"chapter{number}.xhtml", lang="en")
        chapter.content = f"<html><body><h1>{title}</h1><p>{text}</p></body></html>"
        book.add_item(chapter)
        items.append(chapter)
    book.toc = items
    book.add_item(ebook.EpubNcx())
    book.add_item(ebook.EpubNav())
    book.spine = ["nav", *items]
    ebook.write_epub(str(path), book)
    return path


def zip_bomb(path: Path, inner: str = "word/document.xml", megabytes: int = 40) -> Path:
    """A zip that inflates to ``megabytes`` of zeros from a few kilobytes."""
    block = bytes(1024 * 1024)
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open(inner, "w") as entry,
    ):
        for _ in range(megabytes):
            entry.write(block)
    return path
