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
from dataclasses import asdict, dataclass, field
from typing import Any

from app.docs.terms import estimate_tokens

INSTRUCTION = (
    "Answer the question using the numbered sources below. After each statement taken "
    "from a source, cite it by its number in square brackets, like [1]. If the sources do "
    "not contain the answer, say so."
)
_CITATION = re.compile(r"\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]")


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
        fields = Source.__dataclass_fields__
        return cls(
            [Source(**{k: v for k, v in s.items() if k in fields}) for s in raw.get("sources", [])],
            [Attachment(**a) for a in raw.get("attachments", [])],
            [str(c) for c in raw.get("collections", [])],
            [str(n) for n in raw.get("notes", [])],
        )


def cited_numbers(answer: str) -> set[int]:
    """The source numbers an answer cites ("[2]", "[1, 3]")."""
    numbers: set[int] = set()
    for match in _CITATION.finditer(answer):
        numbers.update(int(n) for n in re.split(r"\s*[,;]\s*", match.group(1)))
    return numbers
