"""Sentences the core writes for people, in a form a window can translate.

The core has no Qt, so it cannot translate; it writes English.  A ``Phrase`` *is* that
English string (so logs, the command line and tests use it as text) and also remembers
its template and arguments, so the window can show the same sentence from its Chinese
template with the same values.  ``packaging/translations.py`` collects the templates
written as ``Phrase("...", ...)`` for the translators.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class Phrase(str):
    template: str
    args: tuple[object, ...]

    def __new__(cls, template: str, *args: object) -> Phrase:
        phrase = super().__new__(cls, template.format(*args) if args else template)
        phrase.template = template
        phrase.args = args
        return phrase


def joined(separator: str, parts: Sequence[str]) -> Phrase:
    """``parts`` joined by ``separator``, each part translated on its own."""
    return Phrase(separator.join(f"{{{index}}}" for index in range(len(parts))), *parts)


def message_of(exc: BaseException) -> str:
    """An exception's message, still a ``Phrase`` when it was raised with one."""
    first = exc.args[0] if exc.args else ""
    return first if isinstance(first, Phrase) else str(exc)


def to_wire(text: str) -> dict[str, Any]:
    """Fields for a protocol event: the English ``message`` and, for a ``Phrase``, its
    template and values, so the window can show it in its own language."""
    fields: dict[str, Any] = {"message": str(text)}
    if isinstance(text, Phrase):
        fields["template"] = text.template
        fields["args"] = [_wire_value(a) for a in text.args]
    return fields


def from_wire(event: dict[str, Any]) -> str:
    """The event's message, as a ``Phrase`` again when it carried a template."""
    template = event.get("template")
    if isinstance(template, str) and isinstance(event.get("args"), list):
        try:
            return Phrase(template, *[_unwire_value(a) for a in event["args"]])
        except (IndexError, KeyError, ValueError):
            pass  # a damaged event: fall back to the English text
    return str(event.get("message", ""))


def _wire_value(value: object) -> object:
    if isinstance(value, Phrase):
        return {"template": value.template, "args": [_wire_value(a) for a in value.args]}
    if isinstance(value, bool | int | float):
        return value
    return str(value)


def _unwire_value(value: object) -> object:
    if isinstance(value, dict) and "template" in value:
        return from_wire(value)
    return value
