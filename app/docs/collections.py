"""The user's collections: a name and the files and folders it is made of.

Kept in ``collections.json`` (a ``JsonDocument``: versioned, set aside if damaged), apart
from the index, which is derived from these and the files and can always be rebuilt.
Files stay where they are; Hearth only reads them.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.errors import HearthError
from app.json_document import JsonDocument
from wire.phrases import Phrase

_NAME = re.compile(r"^[^\x00-\x1f/\\]{1,80}$")


@dataclass
class Collection:
    name: str
    paths: list[str] = field(default_factory=list)
    created_at: float = 0.0
    paused: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "paths": self.paths,
            "created_at": self.created_at,
            "paused": self.paused,
        }


def check_name(name: str) -> str:
    name = name.strip()
    if not _NAME.match(name):
        raise HearthError(
            Phrase(
                "A collection's name must be 1 to 80 characters without slashes or control "
                "characters; {0!r} is not.",
                name,
            )
        )
    return name


class Collections:
    def __init__(self, path: Path) -> None:
        self.document = JsonDocument(path, Phrase("document collections"))
        self._items: dict[str, Collection] = {}
        self.reload()

    def reload(self) -> None:
        def check(content: dict[str, Any]) -> dict[str, Collection]:
            items: dict[str, Collection] = {}
            for raw in content.get("collections", []):
                item = Collection(
                    str(raw["name"]),
                    [str(p) for p in raw.get("paths", [])],
                    float(raw.get("created_at", 0.0)),
                    bool(raw.get("paused", False)),
                )
                items[item.name] = item
            return items

        self._items = self.document.load(check) or {}

    @property
    def problem(self) -> str:
        return self.document.problem

    def names(self) -> list[str]:
        return sorted(self._items, key=str.casefold)

    def get(self, name: str) -> Collection:
        try:
            return self._items[name]
        except KeyError:
            raise HearthError(
                Phrase(
                    "There is no collection named {0}. Make it with: hearth docs add {0} FOLDER",
                    name,
                )
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def add_paths(self, name: str, paths: list[Path]) -> Collection:
        """Add files and folders (kept as absolute paths) to ``name``, creating it."""
        self.reload()  # what another Hearth (a command, the window) saved is kept
        name = check_name(name)
        item = self._items.get(name) or Collection(name, [], time.time())
        for path in paths:
            absolute = str(Path(path).expanduser().absolute())
            if absolute not in item.paths:
                item.paths.append(absolute)
        self._items[name] = item
        self._save()
        return item

    def remove_path(self, name: str, path: str) -> None:
        self.reload()  # what another Hearth (a command, the window) saved is kept
        item = self.get(name)
        item.paths = [p for p in item.paths if p != path]
        self._save()

    def remove(self, name: str) -> None:
        self.reload()  # what another Hearth (a command, the window) saved is kept
        self.get(name)
        del self._items[name]
        self._save()

    def set_paused(self, name: str, paused: bool) -> None:
        self.reload()  # what another Hearth (a command, the window) saved is kept
        self.get(name).paused = paused
        self._save()

    def _save(self) -> None:
        self.document.save({"collections": [self._items[n].to_json() for n in self.names()]})
