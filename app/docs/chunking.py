"""Passages from sections: the units that are indexed, retrieved and cited.

A passage never crosses a section (so each one has a single page or heading to cite) and
follows the text's own paragraphs: paragraphs are packed up to ``target_tokens``, a
paragraph longer than that is cut at sentence ends, and each passage starts with the
last paragraph (or sentence) of the one before it, so a fact split over a boundary is
still whole in one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.docs.formats import Section
from app.docs.terms import estimate_tokens

TARGET_TOKENS = 220
OVERLAP_TOKENS = 40

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？;；])\s*|\n")


@dataclass(frozen=True)
class Passage:
    text: str
    page: int | None
    heading: str
    ordinal: int  # its place in the document, from 0


def _pieces(text: str, limit: int) -> list[str]:
    """Paragraphs, with any longer than ``limit`` tokens cut at sentences (and a sentence
    longer than that cut by length)."""
    pieces: list[str] = []
    for raw_paragraph in _PARAGRAPH_BREAK.split(text):
        paragraph = raw_paragraph.strip()
        if not paragraph:
            continue
        if estimate_tokens(paragraph) <= limit:
            pieces.append(paragraph)
            continue
        for raw_sentence in _SENTENCE_END.split(paragraph):
            rest = raw_sentence.strip()
            while rest:
                cut = _cut_at(rest, limit)
                pieces.append(rest[:cut].strip())
                rest = rest[cut:].strip()
    return [piece for piece in pieces if piece]


def _cut_at(text: str, limit: int) -> int:
    """How many characters of ``text`` make about ``limit`` tokens (at a space if any)."""
    if estimate_tokens(text) <= limit:
        return len(text)
    ratio = len(text) / max(1, estimate_tokens(text))
    cut = max(1, int(limit * ratio))
    space = text.rfind(" ", cut // 2, cut)
    return space if space > 0 else cut


def _tail(text: str, limit: int) -> str:
    """The last sentences of ``text`` that fit in ``limit`` tokens (the overlap)."""
    sentences = [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]
    kept: list[str] = []
    size = 0
    for sentence in reversed(sentences):
        size += estimate_tokens(sentence)
        if size > limit:
            break
        kept.insert(0, sentence)
    return " ".join(kept)


def passages(
    sections: list[Section],
    target_tokens: int = TARGET_TOKENS,
    overlap_tokens: int = OVERLAP_TOKENS,
) -> list[Passage]:
    result: list[Passage] = []
    for section in sections:
        pieces = _pieces(section.text, target_tokens)
        current: list[str] = []
        size = 0
        carried = False  # the current passage holds only the overlap from the last one
        for piece in pieces:
            tokens = estimate_tokens(piece)
            if current and size + tokens > target_tokens and not carried:
                result.append(
                    Passage("\n\n".join(current), section.page, section.heading, len(result))
                )
                tail = _tail(current[-1], overlap_tokens)
                current, size = ([tail], estimate_tokens(tail)) if tail else ([], 0)
                carried = bool(current)
            elif current and size + tokens > target_tokens:
                current, size = [], 0  # the overlap alone would overflow: drop it
            current.append(piece)
            size += tokens
            carried = False
        if current and not carried:
            result.append(Passage("\n\n".join(current), section.page, section.heading, len(result)))
    return result
