"""What the model is given besides the question: attached files and found passages,
numbered so that the answer can cite them and the user can check each citation.

A ``Grounding`` is made by a front end before it sends a message (reading files and
searching take time: the window does it in the background) and stored with the message,
so a reopened chat, a regenerated reply and every later turn see exactly what was given.
``context`` is the text put before the user's words; ``sources`` are what the answer's
numbers refer to.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from app.docs.terms import estimate_tokens

INSTRUCTION = (
    "Answer the question using the numbered sources below. After each statement taken "
    "from a source, cite it by its number in square brackets, like [1]. If the sources do "
    "not contain the answer, say so."
)
_CITATION = re.compile(r"\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]")
CHARACTERS_PER_TOKEN = 3.5  # an estimate until the engine has counted


def documents_budget(context: int, conversation: int, reply_limit: int, question: int) -> int:
    """About how many tokens of files and passages a message can be given, for every
    front end (the window, ``hearth chat``, the API): the ``context``, less room for the
    answer (the reply limit, else a quarter of the context up to 1,024 tokens), the
    ``question``, and the ``conversation`` so far up to a quarter of the context (when a
    conversation outgrows the context its oldest messages are left out, so a long chat does
    not leave its newest question without documents).  All in tokens."""
    answer = reply_limit if reply_limit > 0 else min(1024, context // 4)
    return max(0, context - min(conversation, context // 4) - answer - question - 64)


@dataclass
class Source:
    n: int  # the number the model cites
    file: str
    text: str  # exactly what the model was given
    page: int | None = None
    section: str = ""
    collection: str = ""  # empty for an attached file
    whole: bool = False  # a whole attached file rather than a passage
    path: str = ""  # where the file was when it was read (to open it, if it is still there)
    ordinal: int = 0  # the passage's place in its document

    @property
    def label(self) -> str:
        """ "report.pdf, page 3" / "notes.md › Install" """
        name = self.file.replace("\\", "/").rsplit("/", 1)[-1]
        if self.page is not None:
            return f"{name}, page {self.page}"
        if self.section:
            return f"{name} › {self.section}"
        return name

    def to_json(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items()}


@dataclass
class Attachment:
    """An attached file as stored with its message (its text is in its sources)."""

    name: str
    sha256: str
    kind: str
    tokens: int
    mode: str  # "whole" or "passages"
    size: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Grounding:
    sources: list[Source] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was done, for the user

    @property
    def empty(self) -> bool:
        return not self.sources and not self.attachments

    @property
    def context(self) -> str:
        """The text that goes before the user's words in the prompt."""
        if not self.sources:
            return ""
        blocks = [INSTRUCTION]
        for source in self.sources:
            blocks.append(f"[{source.n}] {source.label}\n{source.text.strip()}")
        blocks.append("Question:")
        return "\n\n".join(blocks)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.context)

    def to_json(self) -> dict[str, Any]:
        return {
            "context": self.context,
            "sources": [s.to_json() for s in self.sources],
            "attachments": [a.to_json() for a in self.attachments],
            "collections": list(self.collections),
            "notes": [str(n) for n in self.notes],
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Grounding:
        """What was stored, read defensively: an imported chat may hold anything, and an
        entry of the wrong shape is left out rather than breaking the transcript."""
        sources = [s for s in map(_source, _items(raw.get("sources"))) if s is not None]
        attachments = [a for a in map(_attachment, _items(raw.get("attachments"))) if a]
        return cls(
            sources,
            attachments,
            [str(c) for c in _items(raw.get("collections"))],
            [str(n) for n in _items(raw.get("notes"))],
        )


def _items(value: object) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _source(raw: object) -> Source | None:
    if not isinstance(raw, dict) or _number(raw.get("n")) is None:
        return None
    return Source(
        int(raw["n"]),
        _text(raw.get("file")),
        _text(raw.get("text")),
        _number(raw.get("page")),
        _text(raw.get("section")),
        _text(raw.get("collection")),
        raw.get("whole") is True,
        _text(raw.get("path")),
        _number(raw.get("ordinal")) or 0,
    )


def _attachment(raw: object) -> Attachment | None:
    if not isinstance(raw, dict):
        return None
    return Attachment(
        _text(raw.get("name")),
        _text(raw.get("sha256")),
        _text(raw.get("kind")),
        _number(raw.get("tokens")) or 0,
        "whole" if raw.get("mode") == "whole" else "passages",
        _number(raw.get("size")) or 0,
    )


def with_attachments_of(earlier: Grounding, new: Grounding) -> Grounding:
    """``new`` with the attached files of ``earlier`` first (an edited question keeps the
    files it was sent with), every source numbered again."""
    kept = [s for s in earlier.sources if not s.collection]
    if not kept and not earlier.attachments:
        return new
    sources = [replace(s, n=number) for number, s in enumerate([*kept, *new.sources], 1)]
    return Grounding(
        sources,
        [*earlier.attachments, *new.attachments],
        new.collections,
        [*earlier.notes, *new.notes],
    )


def cited_numbers(answer: str) -> set[int]:
    """The source numbers an answer cites ("[2]", "[1, 3]")."""
    numbers: set[int] = set()
    for match in _CITATION.finditer(answer):
        numbers.update(int(n) for n in re.split(r"\s*[,;]\s*", match.group(1)))
    return numbers
