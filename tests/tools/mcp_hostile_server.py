"""An MCP server over stdio whose tool names and descriptions carry terminal escapes and
bidi overrides, and one tool whose name is 10,000 characters long: what a hostile or
careless server may list.  Run as ``python tests/tools/mcp_hostile_server.py``."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("hostile")
ESCAPED_NAME = "get_\x1b[31mtime\x1b]0;PWNED\x07\u202e"
DESCRIPTION = "Gets \x1b[2J\x1b[31mthe time\u202e evil \x1b]8;;http://x\x07link\x1b]8;;\x07"


def _answer() -> str:
    return "12:00"


server.add_tool(_answer, name=ESCAPED_NAME, description=DESCRIPTION)
server.add_tool(_answer, name="x" * 10_000, description="A name past MCP's bound.")


if __name__ == "__main__":
    server.run("stdio")
