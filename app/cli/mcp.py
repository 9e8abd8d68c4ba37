"""``hearth mcp``: Hearth's document collections offered to other MCP clients over stdio.

Two tools, both read-only: ``list_collections()`` and ``search_documents(collection,
query, k)``, which returns passages with their file, page or section and score, as
``hearth docs search`` finds them.  Nothing else is offered (no chats, no models, no
files outside the collections' passages).  stdout carries the protocol only: notes and
errors go to stderr and the log.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from app.cli.common import EXIT_OK
from app.core import Core

log = logging.getLogger(__name__)
MAX_PASSAGES = 50
MAX_QUERY_CHARS = 10_000  # a question, not a document: its passages are what matters
ECHO_CHARS = 200  # of the query, said back with its passages


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    mcp = commands.add_parser(
        "mcp",
        parents=[common],
        help="offer your document collections to MCP clients (stdio)",
        description="Run an MCP server on stdin/stdout that lets another program (an editor, "
        "an agent, Claude Desktop) search your document collections. Read-only: "
        "list_collections and search_documents.",
    )
    mcp.set_defaults(run=cmd_mcp)


def cmd_mcp(core: Core, args: argparse.Namespace) -> int:
    """Serve until the client closes stdin."""
    from app.documents import open_documents

    documents = open_documents(core)
    try:
        build_server(documents).run("stdio")
    finally:
        documents.close()
        core.engines.close()
    return EXIT_OK


def build_server(documents: Any) -> Any:
    """The MCP server over ``documents`` (an ``app.docs.library.Documents``)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    from app import __version__
    from app.tools.builtin import passages

    server = MCPServer(
        "hearth",
        version=__version__,
        instructions="Search the user's document collections kept in Hearth. Cite the file "
        "and page or section of each passage you use.",
    )
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only)
    def list_collections() -> dict[str, Any]:
        """The user's document collections: name, files and passages indexed."""
        return {
            "collections": [
                {"name": s.name, "files": s.indexed, "passages": s.chunks}
                for s in documents.summaries()
            ]
        }

    @server.tool(annotations=read_only)
    def search_documents(collection: str, query: str, k: int = 5) -> dict[str, Any]:
        """Passages of a collection that answer the query, best first, each with its file,
        page or section, and score."""
        names = [n.name for n in documents.summaries()]
        if collection not in names:
            known = ", ".join(names) or "none yet"
            raise ToolError(f"There is no collection named {collection}. Collections: {known}.")
        if not query.strip():
            raise ToolError("The query is empty.")
        if len(query) > MAX_QUERY_CHARS:
            raise ToolError(
                f"The query is {len(query):,} characters long; at most {MAX_QUERY_CHARS:,} "
                "are searched. Ask with the words that matter."
            )
        if k < 1:
            raise ToolError(f"k is {k}; ask for at least one passage (at most {MAX_PASSAGES}).")
        hits = documents.search([collection], query, min(k, MAX_PASSAGES))
        # The answer names the query, not the whole of it again (a client sent it).
        shown = query if len(query) <= ECHO_CHARS else query[:ECHO_CHARS] + "…"
        return {"collection": collection, "query": shown, "passages": passages(hits)}

    print("hearth mcp: serving document collections on stdio", file=sys.stderr, flush=True)
    return server
