"""Class 13: text from files never drives the terminal or misleads a label.

File names and passages reach ``hearth docs`` output, ``hearth chat``'s Sources and the
window's tables.  An escape sequence in a name (``ESC[31m``, a title-setting OSC) would be
run by the terminal, a newline would split one entry into two, and U+202E makes
``rtl\\u202egnp.txt`` read as "rtltxt.png".  Each is shown as a visible escape instead.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.cli.terminal import Terminal
from app.docs.grounding import Source
from tests.conftest import run_hearth
from ui.chat.documents_html import source_label
from wire.visible_text import visible

NAMES = {
    "red": "\x1b[31mred.txt",
    "title": "\x1b]0;owned\x07.txt",
    "rtl": "rtl\u202egnp.txt",
    "split": "two\nlines.txt",
}
DANGEROUS = ("\x1b", "\x07", "\u202e")


def test_names_keep_their_letters_and_lose_their_power() -> None:
    assert visible("\x1b[31mred.txt") == "\\x1b[31mred.txt"
    assert visible("rtl\u202egnp.txt") == "rtl\\u202egnp.txt"
    assert visible("two\nlines.txt") == "two\\x0alines.txt"
    assert visible("line one\nline two\tend", multiline=True) == "line one\nline two\tend"
    assert visible("Chinese 熊猫 and Arabic مرحبا stay") == "Chinese 熊猫 and Arabic مرحبا stay"


@pytest.mark.posix_only("Windows file names cannot hold controls")
def test_docs_commands_print_hostile_names_as_escapes(tmp_path: Path, data_dir: Path) -> None:
    folder = tmp_path / "hostile"
    folder.mkdir()
    for key, name in NAMES.items():
        (folder / name).write_text(
            f"The marker {key}word is here. Then \x1b[2J a clearing escape.\n", encoding="utf-8"
        )
    added = run_hearth("docs", "add", "names", str(folder))
    assert added.returncode == 0, added.stderr
    listing = run_hearth("docs", "list")
    found = run_hearth("docs", "search", "names", "marker redword rtlword splitword titleword")
    assert found.returncode == 0, found.stderr
    for output in (added.stdout + added.stderr, listing.stdout, found.stdout):
        assert not any(character in output for character in DANGEROUS), output
    assert "\\x1b[31mred.txt" in found.stdout and "rtl\\u202egnp.txt" in found.stdout
    assert "two\\x0alines.txt" in found.stdout  # one entry, one line
    assert "\\x1b[2J a clearing escape" in found.stdout  # the passage too


def test_sources_in_the_window_show_escapes(qapp: QApplication) -> None:
    source = Source(n=1, file="/docs/rtl\u202egnp.txt", text="x", section="\x1b[31mIntro")
    assert source_label(source) == "rtl\\u202egnp.txt › \\x1b[31mIntro"


def test_a_tool_result_reaches_the_terminal_without_its_escapes() -> None:
    out, err = io.StringIO(), io.StringIO()
    terminal = Terminal(out, err, as_json=False, hide_reasoning=False)
    call = {"id": "c1", "server": "files", "tool": "read", "arguments": {"path": "a\x1b[2J"}}
    terminal.tool_started(None, None, call)
    terminal.tool_result(None, None, {**call, "status": "ok", "result": "\x1b]0;owned\x07 done"})
    shown = err.getvalue()
    assert "\x1b" not in shown and "\x07" not in shown and "\\x1b]0;owned" in shown
