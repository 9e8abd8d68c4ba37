"""Tools in the window: the Tools menu beside Collections, the approval dialog before a
call, the tool blocks in the transcript (open and closed, kept after a reopen), and Tool
servers… adding an mcpServers JSON.  Real widgets offscreen, the real worker with a
scripted engine, a real MCP server over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QDialog, QLabel, QMenu, QPlainTextEdit, QPushButton
from pytestqt.qtbot import QtBot

from app.core import Core
from app.tools.config import ServerConfig, ToolsConfig, ToolsFile
from tests.gui_helpers import LOAD_TIMEOUT_MS, scripted_window
from ui.tool_servers_dialog import ToolServersDialog

pytestmark = pytest.mark.slow
FIXTURE = Path(__file__).parent / "tools" / "mcp_fixture_server.py"
ROUND = "<<<round>>>\n"
CALL = '<tool_call>{"name": "echo", "arguments": {"text": "from the window"}}</tool_call>'


def configure_fixture(core: Core, folder: Path) -> None:
    ToolsFile(core.paths.data_dir).save(
        ToolsConfig(
            [ServerConfig("fixture", command=sys.executable, args=(str(FIXTURE), str(folder)))]
        )
    )


def test_a_tool_call_is_asked_shown_as_a_block_and_kept(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    configure_fixture(core, tmp_path)
    window = scripted_window(qtbot, core, "Let me check. " + CALL + ROUND + "It said so.")
    chat, tools = window.chat, window.chat.tools_ui
    assert tools.button.text() == "Tools", "its menu draws the arrow"
    tools._fill_menu()
    labels = [action.text() for action in tools.menu.actions()]
    assert any(label.startswith("fixture — ") for label in labels)
    assert "Tool servers…" in labels
    tools._toggle("fixture", True)
    assert tools.button.text() == "Tools: fixture"
    qtbot.waitUntil(lambda: "fixture" in tools.listed, timeout=LOAD_TIMEOUT_MS)

    tools._fill_menu()
    (each,) = [m for m in tools.menu.findChildren(QMenu) if m.title().startswith("Tools of")]
    assert each.title() == "Tools of fixture"
    hang = next(a for a in each.actions() if a.text() == "hang")
    hang.setChecked(False)  # this conversation may not use that one
    assert tools.turned_off() == {"fixture/hang"}
    offered = tools.chat_tools(chat.session)
    assert offered is not None and "hang" not in {t.name for t in offered.offered}
    assert "echo" in {t.name for t in offered.offered}

    assert chat.send("Use the echo tool.")
    qtbot.waitUntil(lambda: tools.dialog is not None, timeout=LOAD_TIMEOUT_MS)
    dialog = tools.dialog
    assert dialog is not None and dialog.isVisible()
    said = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert "<b>echo</b>" in said and "<b>fixture</b>" in said
    assert "only reads, on this computer" in said, "its server's annotations"
    arguments = dialog.findChild(QPlainTextEdit)
    assert arguments is not None and '"from the window"' in arguments.toPlainText()
    assert dialog.deny.isDefault() and not dialog.once.isDefault(), "Enter never runs a tool"
    with qtbot.waitSignal(window.reply_finished, timeout=LOAD_TIMEOUT_MS) as finished:
        dialog.once.click()
    assert finished.args[0]["status"] == "complete"
    text = " ".join(chat.transcript.toPlainText().split())
    assert "Let me check." in text and "fixture/echo — done" in text and "It said so." in text
    assert "<tool_call>" not in text, "never the call's raw text"
    assert "echo: from the window" not in text, "closed, the block shows no result"

    message_id = finished.args[0]["message_id"]
    chat.transcript._anchor(QUrl(f"hearth:act/tools/{message_id}"))
    assert "echo: from the window" in chat.transcript.toPlainText(), "opened, it does"

    chat.new_chat()
    chat.open_conversation(chat.store.message(message_id).conversation_id)
    again = " ".join(chat.transcript.toPlainText().split())
    assert "fixture/echo — done" in again, "kept with the conversation"
    assert tools.chosen() == ["fixture"], "the conversation keeps its choice"


def test_always_allow_is_kept_and_deny_tells_the_model(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    configure_fixture(core, tmp_path)
    window = scripted_window(qtbot, core, CALL + ROUND + CALL + ROUND + "Done.")
    chat, tools = window.chat, window.chat.tools_ui
    tools._toggle("fixture", True)
    qtbot.waitUntil(lambda: "fixture" in tools.listed, timeout=LOAD_TIMEOUT_MS)
    with qtbot.waitSignal(window.reply_finished, timeout=LOAD_TIMEOUT_MS) as finished:
        assert chat.send("Echo twice.")
        qtbot.waitUntil(lambda: tools.dialog is not None, timeout=LOAD_TIMEOUT_MS)
        assert tools.dialog is not None
        tools.dialog.always.click()  # the second call then runs without asking
    calls = [
        c for r in chat.store.message(finished.args[0]["message_id"]).tools for c in r["calls"]
    ]
    assert [c["status"] for c in calls] == ["done", "done"]
    assert ToolsFile(core.paths.data_dir).load().always_allow == {"fixture/echo"}

    config = ToolsFile(core.paths.data_dir)
    config.save(ToolsConfig(config.load().servers, set()))
    chat.new_chat()
    tools._toggle("fixture", True)
    with qtbot.waitSignal(window.reply_finished, timeout=LOAD_TIMEOUT_MS) as finished:
        assert chat.send("Echo again.")
        for _ in range(2):
            qtbot.waitUntil(lambda: tools.dialog is not None, timeout=LOAD_TIMEOUT_MS)
            assert tools.dialog is not None
            tools.dialog.deny.click()
    calls = [
        c for r in chat.store.message(finished.args[0]["message_id"]).tools for c in r["calls"]
    ]
    assert [c["status"] for c in calls] == ["denied", "denied"]
    assert "denied" in " ".join(chat.transcript.toPlainText().split())

    with qtbot.waitSignal(window.reply_finished, timeout=LOAD_TIMEOUT_MS) as finished:
        assert chat.send("Echo, then stop.")
        qtbot.waitUntil(lambda: tools.dialog is not None, timeout=LOAD_TIMEOUT_MS)
        asked = tools.dialog
        chat.stop()  # Stop while the question is open
    assert finished.args[0]["status"] == "stopped"
    assert asked is not None and not asked.isVisible(), "the question went with the reply"


def test_tool_servers_adds_pasted_json_and_says_what_is_wrong(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    file = ToolsFile(core.paths.data_dir)
    dialog = ToolServersDialog(file)
    qtbot.addWidget(dialog)
    dialog.paste.setPlainText('{"mcpServers": {"x": {"args": []}}}')
    assert not dialog.add_pasted()
    assert "needs a command to start it" in dialog.problem.text()
    pasted = {
        "mcpServers": {
            "time": {"command": "uvx", "args": ["mcp-server-time"]},
            "web": {"url": "https://example.test/mcp", "headers": {"Authorization": "Bearer k"}},
        }
    }
    dialog.paste.setPlainText(json.dumps(pasted))
    assert dialog.add_pasted()
    assert dialog.problem.isHidden()
    assert [dialog.server_list.item(i).text() for i in range(2)] == [
        "time — uvx mcp-server-time",
        "web — https://example.test/mcp",
    ]
    assert "Bearer k" not in (core.paths.data_dir / "tools.json").read_text()
    dialog.server_list.setCurrentRow(0)
    dialog.remove_selected()
    assert file.load().names() == ["web"]


def test_markup_from_a_server_or_a_model_is_shown_as_text(qtbot: QtBot) -> None:
    from PySide6.QtCore import Qt

    from app.tools.approval import PendingCall
    from app.tools.servers import ToolInfo
    from ui.chat.markdown_html import LIGHT, CodeBlocks, MarkdownRenderer
    from ui.chat.tool_approval import ToolApprovalDialog
    from ui.chat.tool_blocks_html import tool_rounds_html

    tool = ToolInfo("evil", "<b>bold</b>", '<img src="http://example.test/x.png">')
    dialog = ToolApprovalDialog(PendingCall("c1", tool, {"q": "<a href=x>y</a>"}))
    qtbot.addWidget(dialog)
    heading, about = dialog.findChildren(QLabel)[:2]
    assert "&lt;b&gt;bold&lt;/b&gt;" in heading.text()
    assert about.textFormat() == Qt.TextFormat.PlainText
    call = {
        "server": "evil",
        "tool": "<b>bold</b>",
        "arguments": {"q": "<script>"},
        "status": "done",
        "result": '<img src="http://example.test/y.png">',
    }
    opened = tool_rounds_html(
        [{"text": "", "calls": [call]}],
        1,
        True,
        LIGHT,
        MarkdownRenderer(LIGHT, CodeBlocks(), "monospace"),
        lambda *a: "",
    )
    assert "<img" not in opened and "<script>" not in opened and "<b>bold" not in opened
    assert "&lt;img" in opened


def test_settings_has_a_tools_row_that_opens_the_tool_servers(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    """Settings › Tools: the servers and the approvals, from the settings dialog too."""
    configure_fixture(core, tmp_path)
    window = scripted_window(qtbot, core, "Hi.")
    window.open_settings()
    settings = next(d for d in window.findChildren(QDialog) if d.objectName() == "settingsDialog")
    button = settings.findChild(QPushButton, "toolServersButton")
    assert button is not None
    button.click()
    opened = [d for d in window.findChildren(ToolServersDialog) if d.isVisible()]
    assert opened and opened[0].server_list.item(0).text().startswith("fixture — ")
    for dialog in opened:
        dialog.reject()
    settings.reject()
