"""Light and dark themes, following the system unless the user chose one.

The palette is set on the application (Fusion style, so it looks the same on every
platform and honours the palette fully); the transcript gets matching colours for code,
tables and links.  When the choice is "system", a change of the system's colour scheme
is followed while Hearth runs.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from ui.style import HearthStyle
from ui.visual import ACCENT, DARK, LIGHT, PROBLEM, WARNING, Palette

_ROLE = QPalette.ColorRole


def system_prefers_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return bool(hints.colorScheme() == Qt.ColorScheme.Dark)


def resolve(choice: str) -> str:
    """'light' or 'dark' for a setting of 'system', 'light' or 'dark'."""
    if choice in ("light", "dark"):
        return choice
    return "dark" if system_prefers_dark() else "light"


def is_dark() -> bool:
    """Whether the application's current palette is a dark one (what widgets with colours
    of their own, a banner or a verdict, follow)."""
    return QGuiApplication.palette().color(_ROLE.Base).lightness() < 128


# The window's palette uses the accent of ``ui/visual.py`` for links and the light
# theme's selection; the dark theme's selection is a deeper blue of the same hue, under
# white text.


def problem_style() -> str:
    """A style sheet for words that say what went wrong, in the current theme."""
    return f"color: {PROBLEM['dark' if is_dark() else 'light']};"


def warning_style() -> str:
    return f"color: {WARNING['dark' if is_dark() else 'light']};"


def _palette(dark: bool) -> QPalette:
    palette = QPalette()
    if dark:
        colors = {
            _ROLE.Window: "#1e1f22",
            _ROLE.WindowText: "#e6e6e6",
            _ROLE.Base: "#17181a",
            _ROLE.AlternateBase: "#222327",
            _ROLE.Text: "#e6e6e6",
            _ROLE.Button: "#2b2d31",
            _ROLE.ButtonText: "#e6e6e6",
            _ROLE.Highlight: "#2f6feb",
            _ROLE.HighlightedText: "#ffffff",
            _ROLE.ToolTipBase: "#2b2d31",
            _ROLE.ToolTipText: "#e6e6e6",
            _ROLE.PlaceholderText: "#8b8f97",
            _ROLE.Link: ACCENT["dark"],
            _ROLE.Mid: "#3a3c41",
            _ROLE.Midlight: "#34363b",
            _ROLE.Dark: "#111214",
            _ROLE.Shadow: "#000000",
            _ROLE.Light: "#3f4147",
            _ROLE.BrightText: "#ff6b6b",
        }
    else:
        colors = {
            _ROLE.Window: "#f5f5f7",
            _ROLE.WindowText: "#1f2328",
            _ROLE.Base: "#ffffff",
            _ROLE.AlternateBase: "#f0f1f3",
            _ROLE.Text: "#1f2328",
            _ROLE.Button: "#eceef1",
            _ROLE.ButtonText: "#1f2328",
            _ROLE.Highlight: ACCENT["light"],
            _ROLE.HighlightedText: "#ffffff",
            _ROLE.ToolTipBase: "#ffffdc",
            _ROLE.ToolTipText: "#1f2328",
            _ROLE.PlaceholderText: "#5f6672",
            _ROLE.Link: ACCENT["light"],
            _ROLE.Mid: "#c8ccd2",
            _ROLE.Midlight: "#e3e5e8",
            _ROLE.Dark: "#9aa0a6",
            _ROLE.Shadow: "#5f6368",
            _ROLE.Light: "#ffffff",
            _ROLE.BrightText: PROBLEM["light"],
        }
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    disabled = QColor("#6b6e75" if dark else "#a0a4aa")
    for role in (_ROLE.Text, _ROLE.WindowText, _ROLE.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


def apply_theme(choice: str) -> Palette:
    """Apply 'system', 'light' or 'dark' to the whole application; the transcript's colours."""
    app = QApplication.instance()
    dark = resolve(choice) == "dark"
    if isinstance(app, QApplication):
        if not isinstance(app.style(), HearthStyle):
            app.setStyle(HearthStyle())  # Fusion, with edges and focus rings people can see
        app.setPalette(_palette(dark))
    return DARK if dark else LIGHT
