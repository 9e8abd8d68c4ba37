"""What a route's handler is given (``Call``), and the streaming responses the dialects
send: server-sent events (OpenAI, Anthropic) and newline-delimited JSON (Ollama)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import StreamingResponse

from app.serve.served_models import ServedModels

if TYPE_CHECKING:
    from app.serve.config import ServerConfig


@dataclass
class Call:
    """One request to a route: the HTTP request, its body validated against the route's
    model (None for a route without one), the models it may use, the server's settings."""

    request: Request
    body: Any
    models: ServedModels
    config: ServerConfig


def sse(chunks: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(
        chunks, media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
    )


def ndjson(lines: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(lines, media_type="application/x-ndjson")


def data(payload: dict[str, Any]) -> str:
    """One unnamed server-sent event (OpenAI's chunks)."""
    return "data: " + json.dumps(payload) + "\n\n"


def named(name: str, payload: dict[str, Any]) -> str:
    """One named server-sent event (Anthropic's, the Responses API's)."""
    return f"event: {name}\ndata: {json.dumps(payload)}\n\n"
