"""Conversations in and out of Hearth: its JSON export (every branch, the thinking, the
settings), Markdown for reading anywhere, and import of Hearth's exports or of a plain chat
in the OpenAI messages format.  A damaged file is refused whole (StoreError); nothing is
half imported.
"""

from __future__ import annotations

import base64
import time
from typing import Any

from app.chat import tool_rounds
from app.chat.store import (
    COMPLETE,
    EXPORT_FORMAT,
    EXPORT_VERSION,
    INTERRUPTED,
    STATUSES,
    STREAMING,
    ChatStore,
    StoreError,
    make_title,
)
from app.picture_store import PictureMissing
from wire import images
from wire.phrases import Phrase


def export_document(store: ChatStore, conversation_id: int) -> dict[str, Any]:
    """A conversation as a self-describing JSON document (Hearth's export format).

    Every branch is kept: each message names its parent by its place in the list."""
    conversation = store.conversation(conversation_id)
    messages = store.all_messages(conversation_id)
    index = {m.id: i for i, m in enumerate(messages)}
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "title": conversation.title,
        "model": conversation.model,
        "system_prompt": conversation.system_prompt,
        "settings": conversation.settings,
        "pinned": conversation.pinned,
        "created_at": conversation.created_at,
        "current": index.get(conversation.current_leaf or -1),
        "messages": [
            {
                "role": m.role,
                "content": m.content,
                "reasoning": m.reasoning,
                "status": m.status,
                "model": m.model,
                "stats": m.stats,
                "documents": m.documents,
                "tools": m.tools,
                "images": [_exported(store, ref) for ref in m.images],
                "created_at": m.created_at,
                "parent": index.get(m.parent_id) if m.parent_id is not None else None,
            }
            for m in messages
        ],
    }


def export_markdown(store: ChatStore, conversation_id: int) -> str:
    """The conversation as shown (the current branch), readable anywhere."""
    conversation = store.conversation(conversation_id)
    parts = [f"# {conversation.title}", ""]
    if conversation.system_prompt:
        parts += [f"> System: {conversation.system_prompt}", ""]
    for message in store.messages(conversation_id):
        who = "You" if message.role == "user" else (message.model or message.role.title())
        parts += [f"## {who}", ""]
        if message.reasoning:
            quoted = "\n".join("> " + line for line in message.reasoning.strip().splitlines())
            parts += ["> **Thinking**", ">", quoted, ""]
        parts += tool_rounds.markdown(message.tools)
        parts += [
            f"*[picture: {ref.get('name') or ref.get('sha256', '')[:12]}]*"
            for ref in message.images
        ]
        parts += [message.content, ""]
    return "\n".join(parts)


def import_document(store: ChatStore, document: Any) -> int:
    """Import a conversation: Hearth's own export, or a plain chat in the OpenAI
    messages format (a list of ``{"role", "content"}``, or ``{"messages": [...]}``)
    that many tools write.  StoreError says what is wrong with the file; nothing is
    half imported."""
    document = _as_hearth_export(document)
    try:
        version = int(document.get("version", 0))
    except (TypeError, ValueError):
        version = 0
    if version > EXPORT_VERSION:
        raise StoreError(Phrase("This conversation was exported by a newer Hearth."))
    messages = document.get("messages")
    if not isinstance(messages, list) or not all(
        isinstance(m, dict)
        and m.get("role") in ("system", "user", "assistant")
        and isinstance(m.get("content"), str)
        for m in messages
    ):
        raise StoreError(Phrase("The conversation file is damaged (its messages are unreadable)."))
    parents: list[int | None] = []
    for position, m in enumerate(messages):
        parent = (
            m.get("parent", position - 1 if position else None)
            if version >= 2
            else (position - 1 if position else None)
        )
        if parent is not None and (not isinstance(parent, int) or not 0 <= parent < position):
            raise StoreError(Phrase("The conversation file is damaged (a message has no parent)."))
        parents.append(parent)
    settings = document.get("settings")
    current = document.get("current")
    if not isinstance(current, int) or not 0 <= current < len(messages):
        current = len(messages) - 1 if messages else None
    return store.add_conversation_tree(
        {
            "title": str(document.get("title") or "Imported chat"),
            "model": str(document.get("model") or ""),
            "system_prompt": str(document.get("system_prompt") or ""),
            "settings": settings if isinstance(settings, dict) else {},
            "pinned": bool(document.get("pinned")),
            "created_at": float(document.get("created_at") or time.time()),
        },
        [
            {
                "role": m["role"],
                "content": m["content"],
                "reasoning": str(m.get("reasoning") or ""),
                "status": _status(m.get("status")),
                "model": str(m.get("model") or ""),
                "stats": m.get("stats") if isinstance(m.get("stats"), dict) else {},
                "documents": m.get("documents") if isinstance(m.get("documents"), dict) else {},
                "tools": tool_rounds.cleaned(m.get("tools")),
                "images": _imported(store, m.get("images")),
                "created_at": float(m.get("created_at") or 0) or None,
                "parent": parent,
            }
            for m, parent in zip(messages, parents, strict=True)
        ],
        current,
    )


def _exported(store: ChatStore, ref: dict[str, Any]) -> dict[str, Any]:
    """A message's picture in the export: its reference and the file itself (base64), so
    the export stands alone; a picture whose file is gone is named without its data."""
    try:
        data = store.pictures.read(ref)
    except PictureMissing:
        return dict(ref)
    return {**ref, "data": base64.b64encode(data).decode("ascii")}


def _imported(store: ChatStore, exported: object) -> list[dict[str, Any]]:
    """An exported message's pictures, kept (``Pictures.put``); one that is damaged, not a
    picture, or without its data is left out, and the rest of the conversation comes in."""
    refs = []
    for item in exported if isinstance(exported, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("data"), str):
            continue
        try:
            data = base64.b64decode(item["data"], validate=True)
            refs.append(store.pictures.put(data, str(item.get("name") or "")))
        except (ValueError, images.ImageRefused):
            continue
    return refs


def _status(status: object) -> str:
    """A stored status; a reply exported while it streamed was interrupted."""
    if status not in STATUSES:
        return COMPLETE
    return INTERRUPTED if status == STREAMING else str(status)


def _as_hearth_export(document: Any) -> dict[str, Any]:
    """Hearth's export as it is; a plain list of chat messages wrapped as one."""
    if isinstance(document, dict) and document.get("format") == EXPORT_FORMAT:
        return document
    messages = document.get("messages") if isinstance(document, dict) else document
    if not isinstance(messages, list) or not messages:
        raise StoreError(
            Phrase("This file is neither a Hearth conversation export nor a list of chat messages.")
        )
    plain = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # OpenAI "content parts": keep the text parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if not isinstance(content, str) or message.get("role") not in (
            "system",
            "user",
            "assistant",
        ):
            raise StoreError(
                Phrase("The conversation file is damaged (its messages are unreadable).")
            )
        plain.append({"role": message["role"], "content": content})
    title = document.get("title") if isinstance(document, dict) else None
    first_user = next((m["content"] for m in plain if m["role"] == "user"), "")
    return {
        "format": EXPORT_FORMAT,
        "version": 1,
        "title": str(title or make_title(first_user) or "Imported chat"),
        "messages": [m for m in plain if m["role"] != "system"],
        "system_prompt": next((m["content"] for m in plain if m["role"] == "system"), ""),
    }
