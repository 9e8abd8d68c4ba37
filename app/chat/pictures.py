"""Pictures in a conversation: which models may be sent a conversation that has them.

The files themselves are kept by ``app.picture_store`` (each once, by hash, beside the
history), and messages name them by reference.
"""

from __future__ import annotations

from app.chat.records import Message
from app.errors import HearthError
from wire.phrases import Phrase


class TextOnly(HearthError):
    """A conversation with pictures, for a model that reads text only."""

    def __init__(self, model: str) -> None:
        super().__init__(
            Phrase(
                "{0} reads text only, so it cannot see the pictures of this conversation. "
                "Choose a model that reads images (the model list says which do), or start "
                "a new conversation without pictures.",
                model,
            )
        )


def check_pictures(
    model: str, reads: bool, sending: bool, branch: list[Message], edited: Message | None
) -> None:
    """A model that reads text only (not ``reads``) is not sent a conversation with
    pictures, sent now or in the branch before the message being edited: TextOnly."""
    if reads:
        return
    ids = [m.id for m in branch]
    before = branch[: ids.index(edited.id)] if edited is not None and edited.id in ids else branch
    if sending or any(m.images for m in before):
        raise TextOnly(model)
