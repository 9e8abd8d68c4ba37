"""Tools for ``hearth chat``: its flags, the servers it starts, and asking on the terminal.

``--tools NAME[,NAME]`` names the servers (``hearth`` is Hearth's own: date and time, and
a search of ``--collection``'s documents) whose tools the model may call; without it,
``--mcp-config FILE`` offers every server of that file, and otherwise no tool is offered.
Every call is asked on the terminal (``/dev/tty``, so a prompt piped on stdin still
works) unless ``--yes``, ``--allow-tool`` or an *Always allow* of Settings › Tools allows
it; with no terminal to ask on, it is denied and the note says which flag allows it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO

from app.core import Core
from app.errors import HearthError
from wire import platforms
from wire.phrases import Phrase, message_of
from wire.visible_text import visible

LIST_TIMEOUT_S = 60.0
CHOICES = ("auto", "required", "none")


def add_arguments(chat: argparse.ArgumentParser) -> None:
    chat.add_argument(
        "--tools",
        metavar="NAME[,NAME]",
        help="let the model call the tools of these servers, or SERVER/TOOL for one tool "
        "(see 'hearth tools list'; 'hearth': date and time, and a search of --collection)",
    )
    chat.add_argument(
        "--mcp-config",
        metavar="FILE",
        help="the servers of this mcpServers JSON (Claude Desktop's format) instead of "
        "Settings › Tools; without --tools, all of them",
    )
    chat.add_argument(
        "--allow-tool",
        action="append",
        default=[],
        metavar="NAME",
        help="run this tool (TOOL or SERVER/TOOL) without asking; repeat for several",
    )
    chat.add_argument("--yes", action="store_true", help="run every tool call without asking")
    chat.add_argument(
        "--max-tool-calls",
        type=int,
        metavar="N",
        help="at most N tool calls in the reply (default: Settings' 'Tool calls per reply')",
    )
    chat.add_argument(
        "--tool-choice",
        choices=CHOICES,
        default="auto",
        help="whether the model must call a tool first (required), may (auto), or not (none)",
    )


def wanted(args: argparse.Namespace) -> bool:
    return bool(args.tools or args.mcp_config)


def chat_tools(core: Core, args: argparse.Namespace, search: Any) -> tuple[Any, Callable[[], None]]:
    """The session's ``ChatTools`` and what stops its servers.  Listing starts the
    servers; one that cannot start is a HearthError with its reason."""
    from app.chat.tool_turn import ChatTools
    from app.cli.tools import configured_servers
    from app.tools.builtin import SERVER as BUILTIN
    from app.tools.builtin import BuiltinTools
    from app.tools.config import ToolsFile
    from app.tools.servers import ToolServerError, ToolServers

    servers = {s.name: s for s in configured_servers(core, args.mcp_config)}
    asked = [n.strip() for n in (args.tools or "").split(",") if n.strip()]
    # SERVER/TOOL offers that tool only; SERVER all of its tools.
    only = {entry for entry in asked if "/" in entry}
    names = list(dict.fromkeys(entry.split("/")[0] for entry in asked))
    names = names or [name for name, server in servers.items() if server.enabled]
    unknown = [n for n in names if n != BUILTIN and n not in servers]
    if unknown:
        known = ", ".join([BUILTIN, *servers])
        raise HearthError(
            Phrase("There is no tool server named {0} (there are: {1}).", unknown[0], known)
        )
    off = [n for n in names if n != BUILTIN and not servers[n].enabled]
    if off:
        raise HearthError(
            Phrase("The tool server {0} is turned off (Chat › Tool servers…).", off[0])
        )
    running = ToolServers([servers[n] for n in names if n != BUILTIN], core.paths.logs_dir)
    builtin = BuiltinTools(search, list(args.collection)) if BUILTIN in names else BuiltinTools()
    offered = builtin.tools() if BUILTIN in names else []
    try:
        futures = [running.tools(n, LIST_TIMEOUT_S) for n in names if n != BUILTIN]
        for future in futures:
            offered += future.result(LIST_TIMEOUT_S * 2)
    except ToolServerError as exc:
        running.close()
        raise HearthError(message_of(exc)) from exc
    whole = {entry.split("/")[0] for entry in asked if "/" not in entry}
    offered = [t for t in offered if t.server in whole or t.key in only or not asked]
    missing = only - {t.key for t in offered}
    if missing:
        running.close()
        raise HearthError(Phrase("There is no tool {0}.", sorted(missing)[0]))
    file = ToolsFile(core.paths.data_dir)
    kept = file.load().always_allow if not args.mcp_config else set()

    def remember(key: str) -> None:
        if not args.mcp_config:  # servers of a one-off file are not Settings' servers
            config = file.load()
            config.always_allow.add(key)
            file.save(config)

    settings = core.settings
    tools = ChatTools(
        offered,
        running,
        builtin,
        set(kept),
        remember,
        choice=args.tool_choice,
        max_calls=max(1, args.max_tool_calls or int(settings.get("tools.max_calls"))),
        timeout_s=float(settings.get("tools.call_timeout_s")),
    )
    return tools, running.close


class TerminalApproval:
    """Answers the session's approval questions from the flags, else on the terminal.

    ``--allow-tool SERVER/TOOL`` allows that tool; a bare ``NAME`` allows the one offered
    tool of that name, and is refused (HearthError, before the model runs) when several
    servers offer one: a name meant for one server must never let another's run unasked.
    Everything a server wrote (its name, the tool's, the arguments the model chose) is
    shown with control and bidi characters escaped: it is the text a person decides on.
    """

    def __init__(
        self, args: argparse.Namespace, offered: list[Any], err: TextIO | None = None
    ) -> None:
        err = err or sys.stderr  # as it is now, not as it was at import
        self.yes = bool(args.yes)
        self.allowed = allowed_keys(list(args.allow_tool or []), offered)
        self.err = err

    def decide(self, call: Any) -> Any:
        from app.tools.approval import Decision, risks

        tool = call.tool
        if self.yes or tool.key in self.allowed:
            return Decision.ALLOW_ONCE
        import json

        key = visible(tool.key)
        arguments = visible(json.dumps(call.arguments, ensure_ascii=False))
        may = "; ".join(risks(tool)) or "read-only, by its server's word"
        question = f"Allow {key} ({may}) with {arguments}? [y]es once, [a]lways, [N]o: "
        answer = _ask(question)
        if answer is STOP:
            return None  # Ctrl+C: stop the reply
        if answer is None:
            print(
                f"hearth: {key} was not run: there is no terminal to ask on. Allow it "
                f"with --allow-tool {key} (or every call with --yes).",
                file=self.err,
            )
            return Decision.DENY
        answer = answer.strip().lower()
        if answer in ("a", "always"):
            return Decision.ALWAYS
        return Decision.ALLOW_ONCE if answer in ("y", "yes") else Decision.DENY


def allowed_keys(names: list[str], offered: list[Any]) -> set[str]:
    """The ``SERVER/TOOL`` keys that ``--allow-tool`` names allow among ``offered``;
    HearthError for a name no offered tool has, or a bare name several servers share."""
    keys = {tool.key for tool in offered}
    allowed: set[str] = set()
    for name in names:
        if name in keys:
            allowed.add(name)
            continue
        having = sorted(tool.key for tool in offered if tool.name == name)
        if len(having) == 1:
            allowed.add(having[0])
        elif having:
            raise HearthError(
                Phrase(
                    "--allow-tool {0} could mean {1}: name the one to allow as SERVER/TOOL.",
                    visible(name),
                    visible(" or ".join(having)),
                )
            )
        else:
            raise HearthError(
                Phrase(
                    "--allow-tool {0}: no tool of that name is offered to this chat (see "
                    "'hearth tools list').",
                    visible(name),
                )
            )
    return allowed


STOP = "\x03"  # what _ask answers for Ctrl+C


def _ask(question: str) -> str | None:
    """One line from the person at the terminal (not stdin: the prompt may be piped);
    None without a terminal, ``STOP`` for Ctrl+C."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with platforms.terminal() as (reader, writer):
            writer.write(question)
            writer.flush()
            return reader.readline()
    except KeyboardInterrupt:
        return STOP
    except OSError:
        return None
    finally:
        signal.signal(signal.SIGINT, previous)
