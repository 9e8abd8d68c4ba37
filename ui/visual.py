"""The visual system every screen uses: a type scale, a spacing scale, two radii, and the
colours that widgets draw in besides the window's palette.

LM Studio's and Jan's look is calm surfaces and clear type; Hearth's screens get theirs
from here rather than from numbers written in each widget: sizes relative to the body
text (so the settings' font size and a screen's scale carry through), margins and gaps
from one short scale, one radius for controls and one for surfaces (cards, banners,
notes), and each colour once, for the light and the dark theme (the window's palette
itself is ``ui/theme.py``'s).  ``tests/test_contrast.py`` holds every pair to WCAG's
contrast; ``tests/test_visual_system.py`` keeps colours and spacings out of the widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QApplication

TYPE_SCALE = {"small": 0.85, "body": 1.0, "heading": 1.25, "title": 1.6, "display": 2.2}
SPACE = {"xxs": 2, "xs": 4, "s": 8, "m": 12, "l": 16, "xl": 24}
RADIUS = {"control": 4, "surface": 8}


def scaled_font(font: QFont, step: str, bold: bool = False) -> QFont:
    """``font`` at the type scale's ``step``, bold where a heading wants it."""
    sized = QFont(font)
    sized.setPointSizeF(font.pointSizeF() * TYPE_SCALE[step])
    sized.setBold(bold)
    return sized


def points(step: str) -> float:
    """The size of ``step`` in points, from the application's font (for style sheets)."""
    base = QApplication.font().pointSizeF()
    return round((base if base > 0 else 10.0) * TYPE_SCALE[step], 1)


# -- colours, light and dark ---------------------------------------------------------------
# The one accent of each theme: links, the selection (light), the focus ring, the chosen.
ACCENT = {"light": "#1d5fd6", "dark": "#5b9bff"}
# Words in a colour of their own, each at least 4.5:1 against the window in its theme.
PROBLEM = {"light": "#b91c1c", "dark": "#fca5a5"}  # what went wrong
WARNING = {"light": "#b45309", "dark": "#fbbf24"}  # nearly full, take care
GOOD = {"light": "#15803d", "dark": "#4ade80"}  # fits on the GPU, a check passed
NOTE = {"light": "#1d4ed8", "dark": "#93c5fd"}  # worth knowing, not a warning
# (edge, focus ring) of controls: at least 3:1 against what they are drawn on.
EDGES = {"light": ("#7d838c", ACCENT["light"]), "dark": ("#767b85", ACCENT["dark"])}
# A banner's (background, border, text): text at least 4.5:1 and the border at least 3:1.
PROBLEM_BANNER = {
    "light": ("#fef2f2", "#dc2626", "#7f1d1d"),
    "dark": ("#3b1518", "#f87171", "#fecaca"),
}
NEWS_BANNER = {  # news that is not a failure (a reply kept after Hearth was closed)
    "light": ("#eff6ff", "#3b82f6", "#1e3a8a"),
    "dark": ("#172554", "#60a5fa", "#dbeafe"),
}


def in_theme(colours: dict[str, str], dark: bool) -> QColor:
    """One of the colours above in the light or the dark theme."""
    return QColor(colours["dark" if dark else "light"])


@dataclass(frozen=True)
class Palette:
    """Colours for rendered replies, one per theme."""

    text: str
    muted: str
    code_background: str
    code_border: str
    quote: str
    link: str
    table_border: str
    header_background: str
    pygments_style: str
    quote_bar: str = "#d0d7de"
    user_background: str = "#eef2f9"  # your messages, set apart from the model's
    editing_background: str = "#fff4d6"  # the message being edited
    found: str = "#fde68a"  # a search hit inside a code block
    error: str = PROBLEM["light"]  # what went wrong (a reply's error, a failed tool call)


LIGHT = Palette(
    text="#1f2328",
    muted="#6b7280",
    code_background="#f6f8fa",
    code_border="#d0d7de",
    quote="#57606a",
    link=ACCENT["light"],
    table_border="#d0d7de",
    header_background="#eef1f4",
    pygments_style="default",
)
DARK = Palette(
    text="#e6edf3",
    muted="#9ca3af",
    code_background="#161b22",
    code_border="#30363d",
    quote="#9da7b3",
    link=ACCENT["dark"],
    table_border="#30363d",
    header_background="#1f2630",
    pygments_style="monokai",
    quote_bar="#3d444d",
    user_background="#1d2533",
    editing_background="#3a3220",
    found="#6b5310",
    error=PROBLEM["dark"],
)
