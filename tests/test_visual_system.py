"""Colours and spacings come from the visual system, not from each widget: a colour is
written once, for both themes, in ``ui/visual.py`` (the window's palette in
``ui/theme.py``), and a layout's margins and gaps come from its spacing scale.  A
widget that writes ``#b91c1c`` or ``setContentsMargins(10, 6, 6, 6)`` drifts from the
rest when the theme changes, and its contrast is never checked (tests/test_contrast.py
checks the colours it can find here)."""

from __future__ import annotations

import ast
import re

from tests.conftest import REPO

HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b(?![0-9a-fA-F])")
COLOUR_HOMES = {"ui/visual.py", "ui/theme.py"}
GENERATED = {"ui/declared_strings.py"}  # the translations' strings, written by a tool
SPACING_CALLS = {
    "setContentsMargins",
    "setSpacing",
    "addSpacing",
    "setHorizontalSpacing",
    "setVerticalSpacing",
}


def ui_modules() -> list[tuple[str, ast.Module]]:
    found = []
    for path in sorted((REPO / "ui").rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        if name not in GENERATED:
            found.append((name, ast.parse(path.read_text(encoding="utf-8"), name)))
    return found


def colours_outside_their_home(modules: list[tuple[str, ast.Module]]) -> list[str]:
    found = []
    for name, tree in modules:
        if name in COLOUR_HOMES:
            continue
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(node, ast.Constant) and isinstance(text, str) and HEX_COLOUR.search(text):
                found.append(f"{name}:{node.lineno} {text[:40]!r}")
    return found


def written_spacings(modules: list[tuple[str, ast.Module]]) -> list[str]:
    found = []
    for name, tree in modules:
        if name == "ui/visual.py":
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in SPACING_CALLS
                and any(
                    isinstance(arg, ast.Constant) and isinstance(arg.value, int) and arg.value
                    for arg in node.args
                )
            ):
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_colours_and_spacings_live_in_the_visual_system() -> None:
    modules = ui_modules()
    assert colours_outside_their_home(modules) == []
    assert written_spacings(modules) == []


def test_the_checks_see_a_colour_or_a_spacing_written_in_a_widget() -> None:
    widget = ast.parse(
        "label.setStyleSheet('color: #b91c1c;')\nrow.setContentsMargins(10, 6, 6, 6)\n"
        "row.setSpacing(0)\n"
    )
    assert colours_outside_their_home([("ui/chat/new_part.py", widget)]) == [
        "ui/chat/new_part.py:1 'color: #b91c1c;'"
    ]
    assert written_spacings([("ui/chat/new_part.py", widget)]) == [
        "ui/chat/new_part.py:2 row.setContentsMargins(10, 6, 6, 6)"
    ]
