"""The outbox: a draft made ready to send, without Qt.

A message is its words plus what it is given: pictures (references to the picture store,
kept as each was read), files attached and collections ticked, and the message of the
person's it replaces when it is an edit.  The composer panel makes the ``Draft``; files
and collections are read and searched before the message goes (``Documents.ground``),
which can take a while for a long file, so the window runs ``prepare`` off its thread and
hands what it returns to the session.  An edited message keeps the files it was first
sent with (``Ready.keeping``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.docs.grounding import Grounding, with_attachments_of

# The documents' grounding (``app.docs.library.Documents.ground``): the question, the
# collections, the files attached, the tokens it may take, the passages per collection.
Ground = Callable[[str, Sequence[str], Sequence[Path], int, int], Grounding]


@dataclass(frozen=True)
class Draft:
    """What the person is about to send."""

    text: str
    attachments: tuple[Path, ...] = ()
    collections: tuple[str, ...] = ()
    pictures: tuple[dict[str, Any], ...] = ()  # the picture store's references
    edit_of: int | None = None  # the message of the person's it is a new version of
    edited_documents: dict[str, Any] | None = None  # what that message was sent with

    @property
    def needs_reading(self) -> bool:
        return bool(self.attachments or self.collections)

    def ready(self) -> Ready:
        """A draft given nothing to read is ready as it is."""
        return Ready(self.text, pictures=self.pictures, edit_of=self.edit_of)


@dataclass(frozen=True)
class Ready:
    """A draft ready to send: its words, and what its files and collections gave."""

    text: str
    grounding: Grounding | None = None
    notes: tuple[str, ...] = field(default=())  # said beside it (a file skipped, cut short)
    pictures: tuple[dict[str, Any], ...] = ()
    edit_of: int | None = None

    @property
    def documents(self) -> dict[str, Any] | None:
        """What the message is stored and sent with (``Grounding`` as JSON), or None."""
        return self.grounding.to_json() if self.grounding is not None else None

    def keeping(self, earlier: dict[str, Any] | None) -> Ready:
        """An edit of a message sent with ``earlier`` documents keeps its attached files."""
        if self.grounding is None or not earlier:
            return self
        kept = with_attachments_of(Grounding.from_json(earlier), self.grounding)
        return replace(self, grounding=kept, notes=tuple(kept.notes))


def prepare(draft: Draft, ground: Ground, budget_tokens: int, passages: int) -> Ready:
    """(Off the window's thread.)  Read the draft's files and search its collections
    with ``ground``, within ``budget_tokens`` of the context; a draft given nothing is
    ready as it is."""
    if not draft.needs_reading:
        return draft.ready()
    grounding = ground(draft.text, draft.collections, draft.attachments, budget_tokens, passages)
    ready = replace(draft.ready(), grounding=grounding, notes=tuple(grounding.notes))
    return ready.keeping(draft.edited_documents)
