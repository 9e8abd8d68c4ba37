"""An MCP server over stdio for the tool tests, written with the SDK: tools that echo, fail,
hang, return huge text, write a file, end the server mid-call (alone, or leaving children
behind), and flood stderr.

Run as ``python tests/tools/mcp_fixture_server.py [FOLDER] [--http PORT]``: ``write_note``
writes into FOLDER (default: the working folder); with ``--http`` it serves Streamable HTTP
on 127.0.0.1:PORT/mcp instead of stdio, and ``headers`` says which headers came.  It
prints a line on stderr as it starts, so the tests can see a server's stderr reach the log.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

ARGS = [a for a in sys.argv[1:] if a != "--http"]
HTTP_PORT = int(ARGS.pop()) if "--http" in sys.argv else 0
FOLDER = Path(ARGS[0]) if ARGS else Path.cwd()
server = MCPServer("fixture")
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


@server.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """Say the text back."""
    return f"echo: {text}"


@server.tool(annotations=READ_ONLY)
def fail(reason: str = "it always fails") -> str:
    """Fail with the reason."""
    raise ToolError(reason)


@server.tool(annotations=READ_ONLY)
def hang(seconds: float = 3600) -> str:
    """Answer only after a long time."""
    time.sleep(seconds)
    return "woke up"


@server.tool(annotations=READ_ONLY)
def huge(characters: int = 1_000_000) -> str:
    """A very long text."""
    return "x" * characters


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def write_note(name: str, text: str) -> str:
    """Write a note into the server's folder."""
    path = FOLDER / Path(name).name
    path.write_text(text, encoding="utf-8")
    return f"wrote {path.name}"


@server.tool(annotations=READ_ONLY)
def headers(ctx: Context) -> str:
    """The names of the request's headers that start with x- or are authorization."""
    seen = ctx.headers or {}
    return " ".join(sorted(k.lower() for k in seen if k.lower().startswith(("x-", "authoriz"))))


@server.tool(annotations=READ_ONLY)
def crash() -> str:
    """End the server in the middle of the call."""
    print("fixture: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool(annotations=READ_ONLY)
def fork_and_exit(children: int = 3) -> str:
    """Start children that sleep, write their process ids into FOLDER/children.txt, and
    end the server in the middle of the call (the children keep its pipes open)."""
    import subprocess

    started = [
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        for _ in range(children)
    ]
    (FOLDER / "children.txt").write_text(" ".join(str(p.pid) for p in started))
    print("fixture: leaving my children behind", file=sys.stderr, flush=True)
    os._exit(0)


@server.tool(annotations=READ_ONLY)
def shout(megabytes: int = 1) -> str:
    """Write this many megabytes of lines on stderr, then answer."""
    line = "fixture: a very talkative server " + "x" * 990 + "\n"
    for _ in range(megabytes * 1024):
        sys.stderr.write(line)
    sys.stderr.flush()
    return "shouted"


if __name__ == "__main__":
    print("fixture: ready", file=sys.stderr, flush=True)
    if HTTP_PORT:
        server.run("streamable-http", host="127.0.0.1", port=HTTP_PORT)
    else:
        server.run("stdio")
