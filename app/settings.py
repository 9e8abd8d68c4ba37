"""Hearth's settings: one typed declaration, a versioned file, and migrations.

Every setting is declared once in ``DECLARATIONS`` (``app/setting_declarations.py``) with
its type, default, range and a description for people; the settings dialog and validation
are built from it, so there is no second list to forget.  The file on disk carries a
``version``; ``MIGRATIONS`` upgrades older files step by step, so an update never loses a
user's choices.  A damaged file is
moved aside (never deleted) and the defaults are used, with a warning in the log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.json_document import Damaged, JsonDocument, Migration
from app.setting_declarations import BY_KEY, DECLARATIONS, highest, lowest
from wire.phrases import Phrase

__all__ = [
    "BY_KEY",
    "DECLARATIONS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Settings",
    "highest",
    "lowest",
]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2


def _memory_budget_is_the_engines(values: dict[str, Any]) -> dict[str, Any]:
    """Version 2: the memory budget governs every loaded model (the chat's, the API's, the
    documents'), so it is an engines' setting, no longer the API server's."""
    if "server.memory_budget_gb" in values:
        values.setdefault("engine.memory_budget_gb", values.pop("server.memory_budget_gb"))
    return values


# MIGRATIONS[n] turns a version-n dictionary of values into a version n+1 one.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _memory_budget_is_the_engines,
}


def _on_values(step: Callable[[dict[str, Any]], dict[str, Any]]) -> Migration:
    """A migration of the values as one of the whole document."""

    def migrate(document: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(document.get("values"), dict):
            raise Damaged("not a settings document")
        return {**document, "values": step(dict(document["values"]))}

    return migrate


class Settings:
    """The current values, backed by a JSON file written atomically on every change."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._values: dict[str, Any] = {}
        self.problems: list[str] = []  # human sentences about what was repaired at load
        self._document = (
            JsonDocument(
                path,
                Phrase("settings"),
                SCHEMA_VERSION,
                {number: _on_values(step) for number, step in MIGRATIONS.items()},
            )
            if path is not None
            else None
        )
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        def values_of(document: dict[str, Any]) -> dict[str, Any]:
            if not isinstance(document.get("values"), dict):
                raise Damaged("not a settings document")
            return dict(document["values"])

        values = self._document.load(values_of) if self._document is not None else None
        if self._document is not None and self._document.problem:
            self.problems.append(self._document.problem)
        for key, value in (values or {}).items():
            setting = BY_KEY.get(key)
            if setting is None:
                self._values[key] = value  # a newer version's key: keep it, untouched
                continue
            try:
                self._values[key] = setting.validate(value)
            except ValueError as exc:
                log.warning("ignoring invalid setting: %s", exc)
                self.problems.append(
                    Phrase(
                        "The setting '{0}' was invalid ({1}) and was reset to its default.",
                        setting.label,
                        exc,
                    )
                )

    def get(self, key: str) -> Any:
        setting = BY_KEY[key]
        return self._values.get(key, setting.default)

    def set(self, key: str, value: Any) -> None:
        """Validate, store and save; ValueError (with a human sentence) if invalid."""
        self._values[key] = BY_KEY[key].validate(value)
        self.save()

    def reset(self, key: str) -> None:
        self._values.pop(key, None)
        self.save()

    def save(self) -> None:
        if self._document is not None:
            self._document.save({"values": dict(sorted(self._values.items()))})
