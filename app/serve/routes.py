"""The API's one route table: every route, its dialect (which decides the shape of its
errors), the model its body is validated against, and its handler.  ``api_server`` builds
the app from it; each handler only translates its dialect's request into the pipeline's
terms and the pipeline's answer into its dialect's (``app.serve.pipeline``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from app.serve import (
    anthropic_messages,
    embeddings,
    listing,
    ollama_api,
    ollama_models,
    openai_chat,
    openai_completions,
    openai_responses,
)
from app.serve.call import Call
from app.serve.dialects import ANTHROPIC, OLLAMA, OPENAI

Handler = Callable[[Call], Awaitable[Any]]
GET, POST, HEAD, DELETE = ("GET",), ("POST",), ("HEAD",), ("DELETE",)


@dataclass(frozen=True)
class Route:
    methods: tuple[str, ...]
    path: str
    dialect: str
    handler: Handler
    body: type[BaseModel] | type[dict[str, Any]] | None = None


ROUTES: tuple[Route, ...] = (
    Route(GET, "/health", OPENAI, listing.health),
    # "Is it there?", as Ollama answers it: some front ends ask before anything else.
    Route(GET + HEAD, "/", OLLAMA, listing.running),
    # OpenAI
    Route(GET, "/v1/models", OPENAI, listing.models),
    Route(GET, "/v1/models/{model_id:path}", OPENAI, listing.one_model),
    Route(POST, "/v1/chat/completions", OPENAI, openai_chat.chat, openai_chat.ChatRequest),
    Route(
        POST,
        "/v1/completions",
        OPENAI,
        openai_completions.complete,
        openai_completions.CompletionRequest,
    ),
    Route(POST, "/v1/embeddings", OPENAI, embeddings.embeddings, embeddings.EmbeddingRequest),
    Route(
        POST,
        "/v1/responses",
        OPENAI,
        openai_responses.respond,
        openai_responses.ResponsesRequest,
    ),
    # Anthropic
    Route(
        POST,
        "/v1/messages",
        ANTHROPIC,
        anthropic_messages.messages,
        anthropic_messages.MessagesRequest,
    ),
    Route(
        POST,
        "/v1/messages/count_tokens",
        ANTHROPIC,
        anthropic_messages.count_tokens,
        anthropic_messages.CountRequest,
    ),
    # Ollama
    Route(GET, "/api/version", OLLAMA, ollama_api.version),
    Route(GET, "/api/tags", OLLAMA, ollama_api.tags),
    Route(POST, "/api/show", OLLAMA, ollama_api.show, dict),
    Route(GET, "/api/ps", OLLAMA, ollama_api.ps),
    Route(POST, "/api/chat", OLLAMA, ollama_api.chat, ollama_models.OllamaChat),
    Route(POST, "/api/generate", OLLAMA, ollama_api.generate, ollama_models.OllamaGenerate),
    Route(POST, "/api/embed", OLLAMA, ollama_api.embed, ollama_models.OllamaEmbed),
    Route(POST, "/api/embeddings", OLLAMA, ollama_api.embeddings, ollama_models.OllamaEmbeddings),
    *(
        Route(POST + DELETE, f"/api/{name}", OLLAMA, ollama_api.refuse_writes)
        for name in ollama_api.WRITE_ROUTES
    ),
    Route(HEAD + POST, "/api/blobs/{digest}", OLLAMA, ollama_api.refuse_writes),
)


def dialect_for(path: str) -> str:
    """The dialect of a request's path, for errors before a route answers (an unknown path,
    a refused Host, a body too large): the longest route it starts with, else the dialect
    every route under its first segment shares, else OpenAI's."""
    matched = [route for route in ROUTES if _under(path, route.path.split("{")[0])]
    if matched:
        return max(matched, key=lambda route: len(route.path)).dialect
    first = "/" + path.strip("/").split("/", 1)[0] + "/"
    dialects = {route.dialect for route in ROUTES if route.path.startswith(first)}
    return dialects.pop() if len(dialects) == 1 else OPENAI


def _under(path: str, prefix: str) -> bool:
    """``path`` is ``prefix`` or lies under it; the root (Ollama's ``GET /``) holds only
    itself, or every path would be Ollama's."""
    return path == prefix or (prefix != "/" and path.startswith(prefix))
