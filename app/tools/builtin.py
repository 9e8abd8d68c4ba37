"""Hearth's own tools, which need no server: the current date and time, and a search of the
conversation's document collections (passages with their sources, the same citations as
grounding).  They look like any server's tools (server name ``hearth``) and go through
the same approval."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from app.tools.servers import ToolInfo, ToolResult
from wire.phrases import Phrase

SERVER = "hearth"
MAX_PASSAGES = 20
# (collection names, query, k) -> hits with file, page, section, text, score, collection
Search = Callable[[Sequence[str], str, int], Sequence[Any]]

CURRENT_TIME = ToolInfo(
    SERVER,
    "current_time",
    "The current date, time and time zone of the user's computer.",
    (("type", "object"), ("properties", {})),
    Phrase("Date and time"),
    read_only=True,
    destructive=False,
    open_world=False,
)
SEARCH_DOCUMENTS = ToolInfo(
    SERVER,
    "search_documents",
    "Search the user's documents of this conversation for passages about a question; "
    "each passage comes with its file and page or section to cite.",
    (
        ("type", "object"),
        (
            "properties",
            {
                "query": {"type": "string", "description": "what to look for"},
                "k": {"type": "integer", "minimum": 1, "maximum": MAX_PASSAGES, "default": 5},
            },
        ),
        ("required", ["query"]),
    ),
    Phrase("Search documents"),
    read_only=True,
    destructive=False,
    open_world=False,
)


class BuiltinTools:
    """Hearth's tools for one conversation: document search over ``collections``."""

    def __init__(self, search: Search | None = None, collections: Sequence[str] = ()) -> None:
        self.search = search
        self.collections = list(collections)

    def tools(self) -> list[ToolInfo]:
        offered = [CURRENT_TIME]
        if self.search is not None and self.collections:
            offered.append(SEARCH_DOCUMENTS)
        return offered

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        started = time.perf_counter()
        if name == CURRENT_TIME.name:
            now = datetime.now().astimezone()
            text = json.dumps(
                {"datetime": now.isoformat(timespec="seconds"), "timezone": now.tzname()}
            )
            return ToolResult(text, seconds=time.perf_counter() - started)
        if name == SEARCH_DOCUMENTS.name and self.search is not None and self.collections:
            query = arguments.get("query")
            if not isinstance(query, str) or not query.strip():
                return ToolResult(Phrase("search_documents needs a query."), is_error=True)
            k = arguments.get("k", 5)
            k = min(max(int(k), 1), MAX_PASSAGES) if isinstance(k, int) else 5
            hits = self.search(self.collections, query, k)
            return ToolResult(passages_text(hits), seconds=time.perf_counter() - started)
        return ToolResult(Phrase("Hearth has no tool named {0}.", name), is_error=True)


def passages(hits: Sequence[Any]) -> list[dict[str, Any]]:
    """Hits as JSON rows: the passage and where it is from."""
    return [
        {
            "file": hit.file,
            "page": hit.page,
            "section": hit.section,
            "collection": hit.collection,
            "score": round(float(hit.score), 4),
            "text": hit.text,
        }
        for hit in hits
    ]


def passages_text(hits: Sequence[Any]) -> str:
    return json.dumps(passages(hits), ensure_ascii=False) if hits else "No passage matched."
