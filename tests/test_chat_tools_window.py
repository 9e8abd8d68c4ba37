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
from ui.tools.servers_dialog import ToolServersDialog

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
    from ui.chat.markdown_html import CodeBlocks, MarkdownRenderer
    from ui.chat.tool_approval import ToolApprovalDialog
    from ui.chat.tool_blocks_html import tool_rounds_html
    from ui.visual import LIGHT

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


def test_use_tools_always_makes_even_the_starter_call_a_tool(qtbot: QtBot, core: Core) -> None:
    """A new user with the starter never saw a tool run: it never called one on its own.
    With tools chosen the window says why (a small model), offers *Use tools: always*
    beside the Tools button, kept with the conversation, and then the first answer is a
    call: the question is asked, the tool runs."""
    from app.tools.builtin import SERVER as BUILTIN
    from tests.gui_helpers import open_window
    from ui.chat.tool_approval import ToolApprovalDialog

    core.settings.set("sampling.max_tokens", 48)
    window = open_window(qtbot, core)
    chat, tools = window.chat, window.chat.tools_ui
    box = tools.choice_box
    assert box.isHidden(), "no tools chosen: nothing to choose"
    tools._toggle(BUILTIN, True)
    assert box.isVisible() and box.currentText() == "Use tools: automatically"
    qtbot.waitUntil(lambda: "small model" in window.error_banner.message, timeout=60_000)
    assert "Use tools: always" in window.error_banner.message
    tools._fill_menu()
    assert "small model" in tools.menu.actions()[0].text(), "said atop the Tools menu too"

    box.setCurrentIndex(box.findData("required"))
    box.activated.emit(box.currentIndex())
    offered = tools.chat_tools(chat.session)
    assert offered is not None and offered.params(True, 0)["tool_choice"] == "required"
    asked: list[str] = []

    def question() -> ToolApprovalDialog | None:
        return tools.dialog

    with qtbot.waitSignal(window.reply_finished, timeout=LOAD_TIMEOUT_MS) as finished:
        assert chat.send("What time is it?")
        qtbot.waitUntil(lambda: question() is not None, timeout=LOAD_TIMEOUT_MS)
        first_question = question()
        assert first_question is not None
        asked.append(first_question.windowTitle())
        first_question.once.click()
        # A later round is the model's to decide: anything more it asks is denied.
        while True:
            qtbot.waitUntil(
                lambda: question() is not None or chat.running is None, timeout=LOAD_TIMEOUT_MS
            )
            later = question()
            if later is None:
                break
            later.deny.click()
    assert asked == ["Allow a tool call?"]
    message = chat.store.message(finished.args[0]["message_id"])
    first = message.tools[0]["calls"][0]
    assert (first["tool"], first["status"]) == ("current_time", "done")
    assert "hearth/current_time — done" in " ".join(chat.transcript.toPlainText().split())

    chat.new_chat()
    assert box.currentData() == "auto" and box.isHidden(), "a new chat starts automatic"
    chat.open_conversation(message.conversation_id)
    assert box.currentText() == "Use tools: always", "kept with the conversation"
    box.setCurrentIndex(box.findData("none"))
    box.activated.emit(box.currentIndex())
    never = tools.chat_tools(chat.session)
    assert never is not None and never.params(True, 0) == {}, "never: no tools offered"


def test_a_servers_control_and_bidi_characters_reach_no_label_raw(qtbot: QtBot, core: Core) -> None:
    """A server's names and words (its tools, their descriptions, its notes, why it
    failed) can carry terminal escapes and bidi overrides that reverse what a label says:
    the approval question, the Tools menu and button, the tool blocks and Tool servers…
    show them as visible escapes."""
    from app.tools.approval import PendingCall
    from app.tools.servers import ToolInfo
    from ui.chat.markdown_html import CodeBlocks, MarkdownRenderer
    from ui.chat.tool_approval import ToolApprovalDialog
    from ui.chat.tool_blocks_html import tool_rounds_html
    from ui.visual import LIGHT

    raw = ("\x1b", "\x07", "\u202e")

    def clean(text: str) -> bool:
        return not any(char in text for char in raw)

    server, name = "ti\u202eem", "clear\x1b[2J"
    tool = ToolInfo(server, name, "Says \x1b]0;owned\x07 the time\u202e.", title="")
    dialog = ToolApprovalDialog(PendingCall("c1", tool, {"q": "a\u202eb"}))
    qtbot.addWidget(dialog)
    said = [label.text() for label in dialog.findChildren(QLabel)]
    said.append(dialog.findChild(QPlainTextEdit).toPlainText())  # type: ignore[union-attr]
    assert all(clean(text) for text in said), said
    assert "\\u202e" in " ".join(said) and "\\x1b" in " ".join(said)

    call = {
        "server": server,
        "tool": name,
        "arguments": {"q": "a\u202eb"},
        "status": "done",
        "result": "ok\x1b[31m red\u202e",
        "notes": ["\x1b]8;;http://x\x07link"],
    }
    opened = tool_rounds_html(
        [{"text": "", "calls": [call]}],
        1,
        True,
        LIGHT,
        MarkdownRenderer(LIGHT, CodeBlocks(), "monospace"),
        lambda *a: "",
    )
    assert clean(opened) and "\\x1b[31m" in opened

    # A server's name is checked when it is added; its command and its tools are its own.
    ToolsFile(core.paths.data_dir).save(
        ToolsConfig([ServerConfig("evil", command="run\u202eme", args=("\x1b[2J",))])
    )
    window = scripted_window(qtbot, core, "Hi.")
    tools = window.chat.tools_ui
    tools._toggle("evil", True)
    tools.listed["evil"] = [ToolInfo("evil", name, tool.description)]
    tools._fill_menu()
    entries = [action.text() for action in tools.menu.actions()]
    for submenu in tools.menu.findChildren(QMenu):
        entries += [submenu.title()]
        entries += [a.text() + a.toolTip() for a in submenu.actions()]
    entries.append(tools.button.text())
    assert all(clean(text) for text in entries), entries
    assert any("run\\u202eme" in text for text in entries)
    assert any("clear\\x1b[2J" in text for text in entries)
    servers = ToolServersDialog(ToolsFile(core.paths.data_dir))
    qtbot.addWidget(servers)
    lines = [servers.server_list.item(i).text() for i in range(servers.server_list.count())]
    assert lines and all(clean(line) for line in lines), lines


def test_tool_servers_is_wide_and_says_whether_a_new_server_started_and_its_tools(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    """Tool servers… was 280 px wide, its rows cut behind a scroll bar, and silent after
    Add: now each added server is started in the background and its line says so, with
    its tools, or says why it did not start."""
    import re

    dialog = ToolServersDialog(ToolsFile(core.paths.data_dir), None, core.paths.logs_dir)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.width() >= 600 and dialog.paste.height() >= 60
    pasted = {
        "mcpServers": {
            "fixture": {"command": sys.executable, "args": [str(FIXTURE), str(tmp_path)]},
            "missing": {"command": str(tmp_path / "no-such-program")},
        }
    }
    dialog.paste.setPlainText(json.dumps(pasted))
    assert dialog.add_pasted()

    def line(name: str) -> str:
        rows = [dialog.server_list.item(i).text() for i in range(dialog.server_list.count())]
        return next(row for row in rows if row.startswith(name))

    assert "starting…" in line("fixture"), "said at once, while it starts"
    qtbot.waitUntil(lambda: "starting…" not in line("fixture"), timeout=LOAD_TIMEOUT_MS)
    found = re.search(r"started, (\d+) tools: (.*)", line("fixture"))
    assert found is not None, line("fixture")
    assert int(found.group(1)) >= 3 and "echo" in found.group(2)
    qtbot.waitUntil(lambda: "starting…" not in line("missing"), timeout=LOAD_TIMEOUT_MS)
    assert "did not start" in line("missing") and "no-such-program" in line("missing")
    assert not dialog.server_list.horizontalScrollBar().isVisible(), "nothing hides sideways"


def test_instructions_edited_keep_the_conversations_tools(
    qtbot: QtBot, core: Core, tmp_path: Path
) -> None:
    """The walkthrough saw the prompt shrink from about 620 tokens to 190 once a
    conversation had Instructions: saving them kept only the collections of what was
    chosen under the composer, and dropped its tool servers.  Now the next reply is
    offered the same tools, with the system prompt beside them."""
    from ui.chat.conversation_settings_dialog import open_for

    configure_fixture(core, tmp_path)
    window = scripted_window(qtbot, core, "Fine.")
    chat, tools = window.chat, window.chat.tools_ui
    tools._toggle("fixture", True)
    qtbot.waitUntil(lambda: "fixture" in tools.listed, timeout=LOAD_TIMEOUT_MS)
    assert chat.send("Hello.")
    qtbot.waitUntil(lambda: not chat.busy, timeout=LOAD_TIMEOUT_MS)
    dialog = open_for(chat.session, core, window, lambda *_: None, lambda: None)
    dialog.system_prompt.setPlainText("Answer like a pirate.")
    dialog.accept()
    assert chat.session.system_prompt == "Answer like a pirate."
    assert tools.chosen() == ["fixture"], "the tool servers stay chosen"
    offered = tools.chat_tools(chat.session)
    assert offered is not None and "echo" in {t.name for t in offered.offered}
    assert tools.button.text() == "Tools: fixture"
