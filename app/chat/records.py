"""What the chat store keeps, as the rest of Hearth sees it: conversations, messages and
their statuses, search hits, and how a row of the database becomes one of them."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

# Message statuses.
COMPLETE = "complete"
STREAMING = "streaming"
STOPPED = "stopped"  # the user pressed Stop
INTERRUPTED = "interrupted"  # the engine or Hearth died mid-reply
LENGTH = "length"  # cut at the token limit
FAILED = "error"
STATUSES = (COMPLETE, STREAMING, STOPPED, INTERRUPTED, LENGTH, FAILED)

TITLE_LENGTH = 60


EXPORT_FORMAT = "hearth.conversation"
# 2: branches (each message names its parent), reasoning, settings; 3: pictures
EXPORT_VERSION = 3


@dataclass(frozen=True)
class SearchHit:
    conversation_id: int
    title: str
    message_id: int | None  # None when only the title matched
    snippet: str


def snippet(text: str, query: str, width: int = 80) -> str:
    index = text.lower().find(query.lower())
    start = max(index - width // 2, 0) if index >= 0 else 0
    piece = " ".join(text[start : start + width].split())
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


class StoreError(Exception):
    """The history cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class Conversation:
    id: int
    title: str
    model: str
    system_prompt: str
    created_at: float
    updated_at: float
    pinned: bool = False
    settings: dict[str, Any] = field(default_factory=dict)  # per-conversation sampling
    current_leaf: int | None = None  # the last message of the branch being shown


@dataclass(frozen=True)
class Message:
    id: int
    conversation_id: int
    role: str
    content: str
    status: str = COMPLETE
    model: str = ""
    stats: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    created_at: float = 0.0
    parent_id: int | None = None
    reasoning: str = ""  # the model's thinking, kept apart from the answer
    # A user's message: the files and passages it was given (``app.docs.grounding``).
    documents: dict[str, Any] = field(default_factory=dict)
    # A reply's tool rounds (``app.chat.tool_rounds``): text, calls and results, in order.
    tools: list[dict[str, Any]] = field(default_factory=list)
    # A user's message's pictures (``app.chat.pictures``): hash, kind, size, file name.
    images: list[dict[str, Any]] = field(default_factory=list)


def make_title(text: str) -> str:
    """A sidebar title from the first message: first line, trimmed to a readable length."""
    line = " ".join(text.strip().split())
    if len(line) <= TITLE_LENGTH:
        return line or "New chat"
    cut = line[:TITLE_LENGTH].rsplit(" ", 1)[0]
    return (cut or line[:TITLE_LENGTH]) + "…"


def conversation_of(row: sqlite3.Row) -> Conversation:
    return Conversation(
        id=row["id"],
        title=row["title"] or "New chat",
        model=row["model"],
        system_prompt=row["system_prompt"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        pinned=bool(row["pinned"]),
        settings=json_object(row["settings"]),
        current_leaf=row["current_leaf"],
    )


def json_object(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def message_of(row: sqlite3.Row) -> Message:
    return Message(
        id=row["id"],
        conversation_id=row["conversation_id"],
        role=row["role"],
        content=row["content"],
        status=row["status"],
        model=row["model"],
        stats=json_object(row["stats"]),
        error=row["error"],
        created_at=row["created_at"],
        parent_id=row["parent_id"],
        reasoning=row["reasoning"],
        documents=json_object(row["documents"]),
        tools=json_list(row["tools"]),
        images=json_list(row["images"]),
    )


def json_list(text: str) -> list[dict[str, Any]]:
    """A stored JSON list of objects; anything else (a damaged row) is an empty list."""
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
