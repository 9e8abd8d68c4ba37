"""``hearth chat --tools`` asks before each call on the person's real terminal: a
pseudo-terminal here, as a person meets it (the chat's own stdin and stdout may be
pipes).  The question names the server, the tool and its arguments; ``y`` allows the
call once, ``a`` always (kept in tools.json, so the next chat does not ask), and ``n`` or
Enter denies it.  The starter model is made to call a tool without arguments, so that its
forced call is short and the same on every run."""

from __future__ import annotations

import argparse
import json
import os
import select
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import HEARTH, REPO, run_hearth

pytestmark = [pytest.mark.slow, pytest.mark.posix_only("a pseudo-terminal (pty)")]

FIXTURE = Path(__file__).parent / "tools" / "mcp_fixture_server.py"
QUESTION = "[y]es once, [a]lways, [N]o: "
WAIT_S = 300.0


def on_a_terminal(argv: list[str], answer: str | None) -> tuple[str, int, bool]:
    """Run ``argv`` on a pseudo-terminal of its own (its controlling terminal, /dev/tty
    included), type ``answer`` at the approval question, and read it to its end: what the
    terminal showed, the exit code, and whether it asked."""
    import pty

    pid, terminal = pty.fork()
    if pid == 0:  # the child
        os.chdir(REPO)
        os.execve(argv[0], argv, dict(os.environ))
    shown = b""
    asked = False
    deadline = time.monotonic() + WAIT_S
    try:
        while time.monotonic() < deadline:
            if not select.select([terminal], [], [], 1.0)[0]:
                continue
            try:
                data = os.read(terminal, 65536)
            except OSError:  # the child ended: the terminal is gone
                break
            if not data:
                break
            shown += data
            if not asked and QUESTION.encode() in shown:
                asked = True
                if answer is not None:
                    os.write(terminal, f"{answer}\r".encode())
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(terminal)
    text = shown.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return text, os.waitstatus_to_exitcode(status), asked


def chat_on_a_terminal(answer: str | None) -> tuple[str, list[dict[str, object]], int]:
    """``hearth chat`` with the fixture's ``headers`` tool forced, on a terminal of its
    own, ``answer`` typed at its question (None: no question is expected).  What the
    terminal showed, the JSON events, and the exit code."""
    flags = ["--tools", "fixture/headers", "--tool-choice", "required", "--max-tool-calls", "1"]
    flags += ["--max-tokens", "24", "--temperature", "0", "--json", "Which headers came?"]
    text, code, asked = on_a_terminal([*HEARTH, "chat", *flags], answer)
    assert asked == (answer is not None), f"asked: {asked}, expected: {answer!r}: {text}"
    events = [json.loads(line) for line in text.splitlines() if line.startswith('{"type"')]
    return text, events, code


def result_of(events: list[dict[str, object]]) -> str:
    return str(next(e for e in events if e["type"] == "tool_result")["status"])


def test_hearth_chat_asks_on_the_terminal_and_yes_and_always_are_obeyed(
    data_dir: Path, tmp_path: Path
) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {"mcpServers": {"fixture": {"command": sys.executable, "args": [str(FIXTURE)]}}}
        ),
        encoding="utf-8",
    )
    added = run_hearth("tools", "add", str(config))
    assert added.returncode == 0, added.stderr

    shown, events, code = chat_on_a_terminal("y")
    assert code == 0, shown
    question = next(line for line in shown.splitlines() if QUESTION.strip() in line)
    assert "Allow fixture/headers (read-only, by its server's word) with {}?" in question
    assert result_of(events) == "done", "y: run once"
    assert "fixture/headers" not in (data_dir / "tools.json").read_text(encoding="utf-8")

    shown, events, code = chat_on_a_terminal("a")
    assert code == 0 and result_of(events) == "done", shown
    kept = json.loads((data_dir / "tools.json").read_text(encoding="utf-8"))
    assert "fixture/headers" in json.dumps(kept), "a: always, kept for the next chat"


ASK = """
import sys
from types import SimpleNamespace
from app.cli.chat_tools import TerminalApproval
from app.tools.servers import ToolInfo

tool = ToolInfo("ev\x1b[31mil", "get_\x1b]0;PWNED\x07time\u202e", read_only=False)
call = SimpleNamespace(tool=tool, arguments={"city": "Par\u202eis\x1b[2J"})
decision = TerminalApproval(SimpleNamespace(yes=False, allow_tool=[]), [tool]).decide(call)
print("DECISION", decision, flush=True)
"""


@pytest.mark.parametrize(
    ("typed", "decision"), [("y", "once"), ("a", "always"), ("n", "deny"), ("", "deny")]
)
def test_each_answer_at_the_terminal_and_a_question_with_a_servers_escapes_defused(
    typed: str, decision: str
) -> None:
    """The question a person decides on shows what the server wrote with its escapes
    visible: nothing clears the screen, retitles the window or turns the text around."""
    text, _code, asked = on_a_terminal([sys.executable, "-c", ASK], typed)
    assert asked, text
    question = next(line for line in text.splitlines() if QUESTION.strip() in line)
    assert question.startswith(
        "Allow ev\\x1b[31mil/get_\\x1b]0;PWNED\\x07time\\u202e (may delete or overwrite "
        'things; may reach the network) with {"city": "Par\\u202eis\\u001b[2J"}?'
    ), question
    assert "\x1b" not in text and "\u202e" not in text
    assert f"DECISION {decision}" in text


def test_allow_tool_by_a_bare_name_allows_only_the_one_tool_of_that_name() -> None:
    """``--allow-tool get_time`` meant for one server never lets another server's tool
    of the same name run unasked: a bare name shared by two servers is refused before the
    model runs, and SERVER/TOOL allows exactly that one."""
    from types import SimpleNamespace

    from app.cli.chat_tools import TerminalApproval
    from app.errors import HearthError
    from app.tools.approval import Decision
    from app.tools.servers import ToolInfo

    time_tool = ToolInfo("time", "get_time", read_only=True)
    lookalike = ToolInfo("lookalike", "get_time")  # may destroy, by MCP's defaults
    other = ToolInfo("lookalike", "wipe")

    def approval(*names: str, offered: list[ToolInfo]) -> TerminalApproval:
        flags = argparse.Namespace(yes=False, allow_tool=list(names))
        return TerminalApproval(flags, offered)

    with pytest.raises(HearthError, match="could mean lookalike/get_time or time/get_time"):
        approval("get_time", offered=[time_tool, lookalike])
    with pytest.raises(HearthError, match="no tool of that name is offered"):
        approval("get_tiem", offered=[time_tool, lookalike])

    both = approval("time/get_time", offered=[time_tool, lookalike, other])
    assert both.decide(SimpleNamespace(tool=time_tool, arguments={})) is Decision.ALLOW_ONCE
    assert both.allowed == {"time/get_time"}, "the lookalike is still asked (denied: no tty)"
    alone = approval("wipe", offered=[time_tool, lookalike, other])
    assert alone.allowed == {"lookalike/wipe"}, "a bare name of one tool allows that tool"


def test_hearth_tools_list_shows_a_servers_escapes_and_leaves_out_an_overlong_name(
    data_dir: Path, tmp_path: Path
) -> None:
    hostile = Path(__file__).parent / "tools" / "mcp_hostile_server.py"
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"evil": {"command": sys.executable, "args": [str(hostile)]}}}),
        encoding="utf-8",
    )
    listed = run_hearth("tools", "list", "--mcp-config", str(config))
    assert listed.returncode == 0, listed.stderr
    assert (
        "\x1b" not in listed.stdout
        and "\u202e" not in listed.stdout
        and "\x07" not in listed.stdout
    ), "no escape reaches the terminal raw"
    assert "get_\\x1b[31mtime\\x1b]0;PWNED\\x07\\u202e" in listed.stdout, "shown as it is"
    assert "Gets \\x1b[2J\\x1b[31mthe time\\u202e evil" in listed.stdout
    assert "x" * 200 not in listed.stdout, "a name past 128 characters is left out"
