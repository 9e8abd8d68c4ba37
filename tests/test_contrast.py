"""Every colour of both themes can be read: text at least 4.5:1 against what it is drawn on,
edges and focus rings at least 3:1 (WCAG 2.1, 1.4.3 and 1.4.11), and every focusable
control of the window has a name a screen reader says."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette
from pytestqt.qtbot import QtBot

from app.core import Core
from ui.models.tables import VERDICT_COLOURS
from ui.theme import _palette
from ui.visual import (
    ACCENT,
    DARK,
    EDGES,
    LIGHT,
    NEWS_BANNER,
    PROBLEM,
    PROBLEM_BANNER,
    WARNING,
    Palette,
)

TEXT, EDGE = 4.5, 3.0
Role = QPalette.ColorRole


def luminance(colour: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.redF())
        + 0.7152 * channel(colour.greenF())
        + 0.0722 * channel(colour.blueF())
    )


def contrast(one: str | QColor, other: str | QColor) -> float:
    a, b = luminance(QColor(one)), luminance(QColor(other))
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def test_the_contrast_formula_is_wcags() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_window_palette_reads(qtbot: QtBot, theme: str) -> None:
    palette = _palette(theme == "dark")

    def colour(role: QPalette.ColorRole) -> QColor:
        return palette.color(QPalette.ColorGroup.Active, role)

    pairs = [
        (Role.Text, Role.Base),
        (Role.WindowText, Role.Window),
        (Role.ButtonText, Role.Button),
        (Role.PlaceholderText, Role.Base),
        (Role.PlaceholderText, Role.Window),  # descriptions and quiet notes on the window
        (Role.HighlightedText, Role.Highlight),
        (Role.Link, Role.Base),
        (Role.Link, Role.Window),
        (Role.ToolTipText, Role.ToolTipBase),
    ]
    low = {
        f"{f.name} on {b.name}": round(contrast(colour(f), colour(b)), 2)
        for f, b in pairs
        if contrast(colour(f), colour(b)) < TEXT
    }
    assert low == {}
    edge, ring = EDGES[theme]
    assert ring == ACCENT[theme] == colour(Role.Link).name(), "one accent colour"
    for background in (Role.Window, Role.Base, Role.Button):
        assert contrast(edge, colour(background)) >= EDGE, f"edge on {background.name}"
        assert contrast(ring, colour(background)) >= EDGE, f"focus ring on {background.name}"
    for words in (PROBLEM[theme], WARNING[theme]):
        assert contrast(words, colour(Role.Window)) >= TEXT
    from ui.system.system_screen import COLOURS as CHECKS

    for colours in [*VERDICT_COLOURS.values(), *CHECKS.values()]:
        verdict = colours[theme]
        assert contrast(verdict, colour(Role.Base)) >= TEXT, verdict


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_banners_read_in_both_themes(theme: str) -> None:
    for colours in (PROBLEM_BANNER, NEWS_BANNER):
        background, border, text = colours[theme]
        assert contrast(text, background) >= TEXT
        assert contrast(border, background) >= EDGE


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=["light", "dark"])
def test_the_conversation_reads(palette: Palette) -> None:
    background = _palette(palette is DARK).color(Role.Base).name()
    for name in ("text", "muted", "link", "quote", "error"):
        assert contrast(getattr(palette, name), background) >= TEXT, name
    for name in ("user_background", "editing_background"):  # your messages' tint
        assert contrast(palette.text, getattr(palette, name)) >= TEXT, name


def test_every_focusable_control_has_a_name(qtbot: QtBot, core: Core) -> None:
    """What a screen reader says on each Tab stop of every screen (the audit found 4 of 67
    without a name)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWidget

    from tests.gui_helpers import open_window

    window = open_window(qtbot, core)
    unnamed: list[str] = []
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        for widget in window.findChildren(QWidget):
            if not widget.isVisible() or widget.focusPolicy() == Qt.FocusPolicy.NoFocus:
                continue
            if not widget.isEnabled() or widget.focusProxy() is not None:
                continue
            name = widget.accessibleName() or _own_text(widget)
            if not name.strip():
                unnamed.append(
                    f"{window.tabs.tabText(index)}: {type(widget).__name__} {widget.objectName()!r}"
                )
    assert sorted(set(unnamed)) == [], sorted(set(unnamed))


def _own_text(widget: object) -> str:
    """The name Qt gives a control from its own text (a button's label)."""
    text = getattr(widget, "text", None)
    return str(text()) if callable(text) else ""
