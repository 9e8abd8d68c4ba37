"""The API's defences before any route runs, and its bookkeeping after each exchange.

Secure by default:
* binds 127.0.0.1; any other address requires an API key (``ServerConfig.check``);
* without an API key, the ``Host`` header must name this server (loopback names or the
  bound address), which defeats DNS rebinding; an empty or foreign Host is refused.  With
  a key the key is the defence, so a LAN client may address the machine by any name;
* no CORS headers unless origins are configured, and a request carrying an ``Origin``
  that is not allowed (``Origin: null`` included) is refused;
* request bodies are limited in size as they arrive (a chunked body has no length to
  check in advance);
* when an exchange ends, however it ends (answered, or its client gone before or during
  its reply), what the pipeline registered runs: unfinished jobs are cancelled and leases
  released (``pipeline.on_request_end``).

Every refusal comes in the dialect of the route asked for (``routes.dialect_for``).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.serve import dialects
from app.serve.config import (
    BODY_TIMEOUT_S,
    BUSY,
    SLOW_BODY,
    ServerConfig,
    body_limit,
)
from app.serve.config import too_large as too_large_words
from app.serve.connections import InFlight
from app.serve.pipeline import REQUEST_END, on_request_end
from app.serve.routes import dialect_for

log = logging.getLogger(__name__)


def refuse(path: str, status: int, message: str, kind: str) -> JSONResponse:
    return dialects.error(dialect_for(path), status, message, kind)


def http_guard(config: ServerConfig) -> Callable[..., Any]:
    """The middleware that checks Host, Origin, the key and the announced length."""
    allowed_hosts = config.allowed_hosts()
    in_flight = InFlight()

    async def guard(request: Request, call_next: Callable[[Request], Any]) -> Any:
        path = request.url.path
        host = request.headers.get("host", "")
        if not config.api_key and (not host or host not in allowed_hosts):
            return refuse(
                path,
                400,
                "This server only answers requests addressed to it (Host).",
                "invalid_host",
            )
        origin = request.headers.get("origin")
        if origin is not None and origin not in config.allowed_origins:
            return refuse(
                path, 403, "Requests from web pages are not allowed (Origin).", "forbidden_origin"
            )
        if origin is not None and request.method == "OPTIONS":
            return _preflight(request, origin)  # browsers send no key with a preflight
        if config.api_key and not _key_matches(request, config.api_key):
            return refuse(
                path,
                401,
                "A valid API key is required (Authorization: Bearer … or x-api-key: …).",
                "invalid_api_key",
            )
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > body_limit(path)):
            return refuse(path, 413, too_large_words(path), "request_too_large")
        if path != "/health":  # a monitor's look at a busy server is always answered
            if not in_flight.enter():  # counted past the key: idle sockets cost nothing
                busy = refuse(path, 503, BUSY, "server_busy")
                busy.headers["Retry-After"] = "1"
                return busy
            on_request_end(request, in_flight.leave)  # at the end of the exchange, streams too
        response = await call_next(request)
        if origin is not None:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Vary"] = "Origin"
        return response

    return guard


class BodyLimit:
    """Counts a request's body as it arrives and answers 413 past ``limit``: a chunked body
    has no Content-Length to check first, and must not fill the memory.

    Past the limit the app is told that the client went away (so that it stops reading
    whatever layer it is in) and its own answer to that is dropped for the 413."""

    def __init__(self, app: ASGIApp, limit: Callable[[str], int]) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        received = 0
        too_large = started = gone = too_slow = whole = False
        deadline = time.monotonic() + BODY_TIMEOUT_S

        async def counted() -> Message:
            nonlocal received, too_large, gone, too_slow, whole
            if too_large or too_slow:
                return {"type": "http.disconnect"}
            if whole:  # after the body: the app waits for a disconnect, for as long as it streams
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                too_slow = True  # a body sent a byte at a time: the exchange ends
                return {"type": "http.disconnect"}
            gone = gone or message["type"] == "http.disconnect"
            whole = message["type"] == "http.request" and not message.get("more_body", False)
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit(str(scope.get("path", ""))):
                    too_large = True
                    return {"type": "http.disconnect"}
            return message

        async def answered(message: Message) -> None:
            nonlocal started
            if too_large and not started:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, answered)
        except Exception:
            if gone and not too_large:  # the client left while sending: no one to answer
                log.info("a client went away before its request was whole")
                return
            if not (too_large or too_slow):
                raise
        if too_slow and not started:
            log.info("a request's body did not arrive within %.0f s", BODY_TIMEOUT_S)
            refusal = refuse(str(scope.get("path", "")), 408, SLOW_BODY, "request_timeout")
            refusal.headers["Connection"] = "close"
            await refusal(scope, counted, send)
            return
        if too_large and not started:
            path = str(scope.get("path", ""))
            refusal = refuse(path, 413, too_large_words(path), "request_too_large")
            refusal.headers["Connection"] = "close"
            await refusal(scope, counted, send)


class RequestEnd:
    """Runs what the pipeline registered for the end of an exchange, once the app is done
    with it: answered, refused, failed, or abandoned by its client."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        actions: list[Callable[[], None]] = []
        scope[REQUEST_END] = actions
        try:
            await self.app(scope, receive, send)
        finally:
            for action in actions:
                try:
                    action()
                except Exception:  # one failure must not keep the others from running
                    log.exception("cleaning up after a request failed")


def _key_matches(request: Request, key: str) -> bool:
    """OpenAI's and Ollama's clients send ``Authorization: Bearer KEY``, Anthropic's send
    ``x-api-key: KEY``."""
    bearer = request.headers.get("authorization", "").encode()
    plain = request.headers.get("x-api-key", "").encode()
    return hmac.compare_digest(bearer, f"Bearer {key}".encode()) or hmac.compare_digest(
        plain, key.encode()
    )


def _preflight(request: Request, origin: str) -> Response:
    """The answer to a browser's CORS preflight from an allowed origin."""
    asked = request.headers.get("access-control-request-headers", "")
    return Response(
        status_code=204,
        headers={
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
            "Access-Control-Allow-Headers": asked or "Authorization, Content-Type",
            "Access-Control-Max-Age": "600",
            "Vary": "Origin",
        },
    )
