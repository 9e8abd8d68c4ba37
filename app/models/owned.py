"""Which files of the library Hearth itself downloaded, as the download queue records them
(``downloads.json``'s ``owned``): only those may Hearth delete.

The download manager (``app.hub.downloads``) writes the record; the library and the core
read it here, without the manager, so that what assembles the domains (``app.core``)
needs nothing of the hubs.
"""

from __future__ import annotations

from pathlib import Path

from app.json_document import JsonDocument
from wire.phrases import Phrase


def downloads_document(state_file: Path) -> JsonDocument:
    return JsonDocument(state_file, Phrase("download list"))


def owned_files(state: Path | JsonDocument) -> list[str]:
    """The files Hearth downloaded, as recorded in the queue file (no manager needed).
    Given the core's document, what a damaged file was is kept in its ``problem``."""
    document = state if isinstance(state, JsonDocument) else downloads_document(state)
    owned = document.load(lambda content: [str(p) for p in content.get("owned", [])])
    return owned or []
