"""Sentences the core writes for people, in a form a window can translate.

The core has no Qt, so it cannot translate; it writes English.  A ``Phrase`` *is* that
English string (so logs, the command line and tests use it as text) and also remembers
its template and arguments, so the window can show the same sentence from its Chinese
template with the same values.  ``packaging/translations.py`` collects the templates
written as ``Phrase("...", ...)`` for the translators.
"""

from __future__ import annotations

from collections.abc import Sequence


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
