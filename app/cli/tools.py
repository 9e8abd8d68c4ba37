"""``hearth tools``: the MCP servers Hearth may use in chats, from the command line.

``list`` starts each configured server (or those of ``--mcp-config FILE``) to list its
tools, and says in a sentence why one could not; ``add FILE`` imports an ``mcpServers``
JSON (Claude Desktop's, Cursor's, LM Studio's; keys in headers go to the key store);
``remove NAME``; ``forget SERVER/TOOL`` takes back an *Always allow*.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from app.cli.common import EXIT_ERROR, EXIT_OK
from app.core import Core
from app.errors import HearthError
from wire.phrases import Phrase
from wire.visible_text import visible

LIST_TIMEOUT_S = 30.0


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    tools = commands.add_parser(
        "tools", parents=[common], help="the MCP servers (tools) chats may use"
    )
    actions = tools.add_subparsers(dest="tools_command", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "list", parents=[common], help="the configured servers and their tools"
    )
    listing.add_argument("--json", action="store_true", help="one JSON document")
    listing.add_argument(
        "--mcp-config", metavar="FILE", help="list the servers of this mcpServers JSON instead"
    )
    add = actions.add_parser(
        "add",
        parents=[common],
        help="add the servers of an mcpServers JSON file ('-': stdin), as Claude Desktop, "
        "Cursor and LM Studio write it",
    )
    add.add_argument("file", metavar="FILE")
    remove = actions.add_parser("remove", parents=[common], help="remove a server")
    remove.add_argument("name", metavar="NAME")
    forget = actions.add_parser(
        "forget", parents=[common], help="ask again before each call of SERVER/TOOL"
    )
    forget.add_argument("tool", metavar="SERVER/TOOL")
    tools.set_defaults(run=cmd_tools)


def cmd_tools(core: Core, args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # as it is now, not as it was at import
    from app.tools.config import ToolsFile, read_servers, split_secrets

    file = ToolsFile(core.paths.data_dir)
    action = args.tools_command
    if action == "list":
        return _list(core, args, out)
    if action == "add":
        raw = sys.stdin.buffer.read() if args.file == "-" else _read(Path(args.file))
        servers, secrets = split_secrets(_parsed(read_servers, raw))
        file.add(servers, secrets)
        for server in servers:
            print(f"Added the tool server {server.name}: {visible(server.describe())}", file=out)
        return EXIT_OK
    config = file.load()
    if action == "remove":
        if args.name not in config.names():
            raise HearthError(Phrase("There is no tool server named {0}.", args.name))
        file.remove(args.name)
        print(f"Removed the tool server {args.name}.", file=out)
        return EXIT_OK
    if args.tool not in config.always_allow:
        print(f"{args.tool} was not always allowed.", file=out)
        return EXIT_OK
    config.always_allow.discard(args.tool)
    file.save(config)
    print(f"Hearth will ask again before each call of {args.tool}.", file=out)
    return EXIT_OK


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise HearthError(
            Phrase("Hearth could not read {0} ({1}).", path, exc.strerror or exc)
        ) from exc


def _parsed(reader: Any, raw: bytes) -> Any:
    from app.tools.config import ConfigProblem

    try:
        return reader(raw)
    except ConfigProblem as exc:
        raise HearthError(str(exc.args[0])) from exc


def configured_servers(core: Core, mcp_config: str | None) -> list[Any]:
    """The servers of ``--mcp-config FILE``, else those of Settings › Tools."""
    from app.tools.config import ToolsFile, read_servers

    if mcp_config:
        return list(_parsed(read_servers, _read(Path(mcp_config))))
    file = ToolsFile(core.paths.data_dir)
    config = file.load()
    if file.problem:
        print(f"hearth: {file.problem}", file=sys.stderr)
    return config.servers


def _list(core: Core, args: argparse.Namespace, out: TextIO) -> int:
    from app.tools.servers import ToolServerError, ToolServers

    servers = configured_servers(core, args.mcp_config)
    running = ToolServers([s for s in servers if s.enabled], core.paths.logs_dir)
    rows: list[dict[str, Any]] = []
    failed = False
    try:
        futures = {s.name: running.tools(s.name, LIST_TIMEOUT_S) for s in servers if s.enabled}
        for server in servers:
            row: dict[str, Any] = {
                "name": server.name,
                "transport": server.transport,
                "target": server.describe(),
                "enabled": server.enabled,
                "tools": [],
            }
            if server.name in futures:
                try:
                    tools = futures[server.name].result(LIST_TIMEOUT_S * 2)
                except ToolServerError as exc:
                    row["error"] = str(exc.args[0])
                    failed = True
                else:
                    row["tools"] = [_tool_row(t) for t in tools]
            rows.append(row)
    finally:
        running.close()
    if args.json:
        print(json.dumps({"servers": rows}, ensure_ascii=False, indent=2), file=out)
    elif not rows:
        print("No tool servers yet. Add some with 'hearth tools add FILE'.", file=out)
    # What a server wrote reaches the terminal with its escapes shown, never obeyed.
    for row in [] if args.json else rows:
        state = "" if row["enabled"] else " (off)"
        print(f"{visible(row['name'])}{state}: {visible(row['target'])}", file=out)
        if "error" in row:
            print(f"  {visible(row['error'])}", file=out)
        for tool in row["tools"]:
            may = ", ".join(tool["may"]) or "read-only"
            print(f"  {visible(tool['name'])} [{may}]", file=out)
            if tool["description"]:
                print(f"      {visible(tool['description'].splitlines()[0])}", file=out)
    return EXIT_ERROR if failed else EXIT_OK


def _tool_row(tool: Any) -> dict[str, Any]:
    from app.tools.approval import risks

    return {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "read_only": tool.read_only,
        "may": [str(r) for r in risks(tool)],
        "input_schema": tool.input_schema(),
    }
