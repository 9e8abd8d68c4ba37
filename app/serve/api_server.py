"""Hearth's local OpenAI-compatible API (``hearth serve`` and the window's switch).

Editors and scripts talk to the model Hearth has loaded through ``GET /v1/models`` (and
``/v1/models/{id}``), ``POST /v1/chat/completions`` and ``/v1/completions`` (streaming and not;
``/v1/embeddings`` and a stateless ``/v1/responses`` too;
``app.serve.openai_chat`` handles the request and its reply) and ``GET /health``; Ollama's
native ``/api/*`` (``app.serve.ollama_api``) and Anthropic's ``POST /v1/messages``
(``app.serve.anthropic_messages``) on the same port; served by FastAPI/uvicorn.  Requests go
through the same ``EngineClient`` and worker as the window, whose queue serialises them:
a request from the API and a chat in the window never mix.

Secure by default:
* binds 127.0.0.1; any other address requires an API key;
* without an API key, the ``Host`` header must name this server (loopback names or the
  bound address), which defeats DNS rebinding; an empty or foreign Host is refused.  With
  a key the key is the defence, so a LAN client may address the machine by any name;
* no CORS headers unless origins are configured, and a request carrying an ``Origin``
  that is not allowed (``Origin: null`` included) is refused;
* every parameter is validated (types and ranges) before anything reaches the engine;
* request bodies are limited in size as they arrive (a chunked body has no length to
  check in advance);
* a client that goes away stops its reply (streaming or not): the engine is not kept busy.
"""

from __future__ import annotations

import asyncio
import hmac
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.engine_client import EngineClient
from app.errors import HearthError
from app.serve import anthropic_messages, ollama_api
from app.serve.anthropic_messages import CountRequest, MessagesReply, MessagesRequest
from app.serve.embeddings import (
    Embedded,
    EmbeddingRequest,
    dimensions_problem,
    embed_for,
    inputs_of,
    openai_reply,
)
from app.serve.model_pool import LoadFailed, UnknownModel
from app.serve.naming import ollama_name
from app.serve.openai_chat import ChatCompletion, ChatRequest, refused_by_engine
from app.serve.openai_completions import CompletionRequest, TextCompletion
from app.serve.openai_responses import ModelResponse, ResponsesRequest
from app.serve.served_models import Served, ServedModels, SingleModel, answered
from wire import protocol
from wire.model_spec import ModelSpec
from wire.phrases import Phrase

# (question, collections, passages wanted, tokens they may take) -> (context, sources)
Grounder = Callable[[str, list[str], int, int], tuple[str, list[dict[str, Any]]]]

MAX_BODY_BYTES = 4 * 1024 * 1024
TOO_LARGE = "The request is too large (at most 4 MB)."
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    api_key: str = ""
    allowed_origins: tuple[str, ...] = ()
    model_name: str = "hearth"
    extra_hosts: tuple[str, ...] = field(default_factory=tuple)
    # What the library knows of the model (``ModelEntry.as_json``), for Ollama's listings.
    model_facts: dict[str, Any] = field(default_factory=dict)
    # Document collections for the ``hearth.collections`` request option: given the
    # question, the collections, the passages wanted and the tokens they may take, the
    # context to put before the question and its sources (``app.docs.library.api_grounder``).
    ground: Grounder | None = None

    def check(self) -> None:
        from app.errors import HearthError

        if self.host not in LOOPBACK_NAMES and not self.api_key:
            raise HearthError(
                Phrase(
                    "Serving on {0} makes the model reachable from other computers; Hearth "
                    "requires an API key for that (--api-key-file, $HEARTH_SERVE_API_KEY or "
                    "--api-key).",
                    self.host,
                )
            )
        if not 1 <= self.port <= 65535:
            raise HearthError(Phrase("The port must be between 1 and 65535, not {0}.", self.port))

    def check_port(self) -> None:
        """Refuse a port that is taken before the model loads, in words."""
        import errno
        import socket

        from app.errors import HearthError

        family = socket.AF_INET6 if ":" in self.host.strip("[]") else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            if os.name != "nt":  # as uvicorn binds: TIME_WAIT is no conflict (on Windows
                # the same option would allow binding a port in use)
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((self.host.strip("[]"), self.port))
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise HearthError(
                        Phrase(
                            "Port {0} is already in use on {1} (another Hearth or another "
                            "server?). Choose another with --port.",
                            self.port,
                            self.host,
                        )
                    ) from exc
                raise HearthError(
                    Phrase("Hearth cannot listen on {0}:{1} ({2}).", self.host, self.port, exc)
                ) from exc

    def allowed_hosts(self) -> set[str]:
        names = {*LOOPBACK_NAMES, self.host, *self.extra_hosts}
        return {f"{name}:{self.port}" for name in names} | names


def build_app(
    client: EngineClient,
    spec: Callable[[], ModelSpec],
    config: ServerConfig,
    defaults: Callable[[], dict[str, Any]] | None = None,
) -> Any:
    """The ASGI app for one model. ``spec`` gives the model to use now (the window's
    choice may change); a request's ``model`` does not choose."""
    one = SingleModel(client, spec, config.model_name, lambda: config.model_facts, defaults or dict)
    return build_app_for(one, config)


def build_app_for(models: ServedModels, config: ServerConfig) -> Any:
    """The ASGI app: ``models`` says which model answers each request."""
    app = FastAPI(title="Hearth", docs_url=None, redoc_url=None, openapi_url=None)

    async def ground(
        reply: ChatCompletion, body: ChatRequest, spec: ModelSpec, params: dict[str, Any]
    ) -> str:
        """Search the request's collections and put the passages before its question;
        a sentence when that cannot be done."""
        assert body.hearth is not None
        if config.ground is None:
            return "this server has no document collections"
        question = reply.question()
        used = sum(len(str(m.get("content") or "")) for m in reply.messages) // 4
        answer = int(params.get("max_tokens") or min(1024, spec.n_ctx // 4))
        budget = max(0, spec.n_ctx - used - answer - 64)
        try:
            context, sources = await asyncio.to_thread(
                config.ground, question, list(body.hearth.collections), body.hearth.k, budget
            )
        except HearthError as exc:
            return str(exc.message)
        reply.ground(context, sources)
        return ""

    allowed_hosts = config.allowed_hosts()
    state = {"requests": 0}

    def refuse(status: int, message: str, kind: str) -> JSONResponse:
        return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)

    def refuse_in_dialect(request: Request, status: int, message: str, kind: str) -> JSONResponse:
        """An error in the shape the route's clients read: Ollama's under ``/api/``,
        Anthropic's for ``/v1/messages``, OpenAI's elsewhere."""
        if request.url.path.startswith("/api/"):
            return ollama_api.error(status, message)
        if request.url.path.startswith("/v1/messages"):
            return anthropic_messages.error(status, message)
        return refuse(status, message, kind)

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Any]) -> Any:
        def refuse(status: int, message: str, kind: str) -> JSONResponse:
            return refuse_in_dialect(request, status, message, kind)

        host = request.headers.get("host", "")
        if not config.api_key and (not host or host not in allowed_hosts):
            return refuse(
                400, "This server only answers requests addressed to it (Host).", "invalid_host"
            )
        origin = request.headers.get("origin")
        if origin is not None and origin not in config.allowed_origins:
            return refuse(
                403, "Requests from web pages are not allowed (Origin).", "forbidden_origin"
            )
        if origin is not None and request.method == "OPTIONS":
            return _preflight(request, origin)  # browsers send no key with a preflight
        if config.api_key and not _key_matches(request, config.api_key):
            return refuse(
                401,
                "A valid API key is required (Authorization: Bearer … or x-api-key: …).",
                "invalid_api_key",
            )
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            return refuse(413, TOO_LARGE, "request_too_large")
        response = await call_next(request)
        if origin is not None:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Vary"] = "Origin"
        return response

    app.add_middleware(_BodyLimit, limit=MAX_BODY_BYTES)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = {413: "request_too_large", 404: "not_found", 405: "method_not_allowed"}
        return refuse_in_dialect(
            request, exc.status_code, str(exc.detail), kind.get(exc.status_code, "error")
        )

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ())[1:]) or "body"
        return refuse_in_dialect(
            request,
            400,
            f"Invalid {where}: {first.get('msg', 'bad value')}.",
            "invalid_request_error",
        )

    def described(exc: ValidationError) -> str:
        errors = exc.errors()
        if not errors:
            return "bad value"
        where = ".".join(str(p) for p in errors[0]["loc"]) or "value"
        return f"{where}: {errors[0]['msg']}"

    def model_entry(name: str) -> dict[str, Any]:
        return {"id": name, "object": "model", "created": int(time.time()), "owned_by": "hearth"}

    async def take(request: Request, name: str | None, keep_alive_s: float | None = None) -> Any:
        """The request's model (loaded if need be), or the refusal in its dialect."""
        try:
            return await models.take(name, keep_alive_s)
        except UnknownModel as exc:
            return refuse_in_dialect(request, 404, str(exc), "model_not_found")
        except LoadFailed as exc:
            return refuse_in_dialect(request, exc.status, str(exc), "model_unavailable")

    @app.get("/health")
    async def health() -> dict[str, Any]:
        """For load balancers and scripts waiting for the server (llama-server's route)."""
        listed = models.listed()
        return {
            "status": "ok",
            "model": listed[0][0] if listed else None,
            "models": len(listed),
            "loaded": [running.name for running in models.running()],
        }

    @app.get("/v1/models")
    async def list_models() -> dict[str, Any]:
        return {"object": "list", "data": [model_entry(name) for name, _facts in models.listed()]}

    @app.get("/v1/models/{model_id:path}")
    async def one_model(model_id: str) -> Any:
        names = [name for name, _facts in models.listed()]
        by_ollama_name = {ollama_name(name): name for name in names}
        model_id = by_ollama_name.get(model_id.lower(), model_id)
        if model_id not in names:
            return refuse(
                404,
                f"The model {model_id!r} is not served here; this server has "
                f"{', '.join(repr(n) for n in names[:5])} (GET /v1/models).",
                "model_not_found",
            )
        return model_entry(model_id)

    @app.post("/v1/chat/completions")
    async def chat(body: ChatRequest, request: Request) -> Any:
        state["requests"] += 1
        served = await take(request, body.model)
        if not isinstance(served, Served):
            return served

        async def produce() -> Any:
            refusal = body.refusal(served.spec)
            if refusal:
                return refuse(400, refusal, "invalid_request_error")
            params = body.params(served.defaults)
            reply = ChatCompletion(served.client, served.spec, body, params, served.name)
            if body.hearth is not None and body.hearth.collections:
                problem = await ground(reply, body, served.spec, params)
                if problem:
                    return refuse(400, problem, "invalid_request_error")
            if body.stream:
                return await reply.streamed(request, refuse)
            return await reply.whole(request, refuse)

        return await answered(served, produce)

    @app.post("/v1/completions")
    async def completions(body: CompletionRequest, request: Request) -> Any:
        state["requests"] += 1
        served = await take(request, body.model)
        if not isinstance(served, Served):
            return served

        async def produce() -> Any:
            refusal = body.refusal(served.spec)
            if refusal:
                return refuse(400, refusal, "invalid_request_error")
            params = body.params(served.defaults)
            reply = TextCompletion(served.client, served.spec, body, params, served.name)
            return await reply.answer(request, refuse)

        return await answered(served, produce)

    @app.post("/v1/embeddings")
    async def embeddings(body: EmbeddingRequest, request: Request) -> Any:
        state["requests"] += 1
        served = await take(request, body.model)
        if not isinstance(served, Served):
            return served
        done = await embed_for(served, inputs_of(body.input))
        if not isinstance(done, Embedded):
            return refused_by_engine(done, refuse)
        problem = dimensions_problem(body, done)
        if problem:
            return refuse(400, problem, "invalid_request_error")
        return openai_reply(body, done, served.name)

    @app.post("/v1/responses")
    async def responses(body: ResponsesRequest, request: Request) -> Any:
        state["requests"] += 1
        refusal = body.refusal()
        if refusal:
            return refuse(400, refusal, "invalid_request_error")
        try:
            chat = body.as_chat()
        except ValidationError as exc:
            return refuse(400, f"Invalid input: {described(exc)}", "invalid_request_error")
        served = await take(request, body.model)
        if not isinstance(served, Served):
            return served

        async def produce() -> Any:
            refusal = chat.refusal(served.spec)
            if refusal:
                return refuse(400, refusal, "invalid_request_error")
            params = chat.params(served.defaults)
            reply = ModelResponse(served.client, served.spec, chat, params, served.name)
            return await reply.answer(request, refuse)

        return await answered(served, produce)

    @app.post("/v1/messages")
    async def messages(body: MessagesRequest, request: Request) -> Any:
        state["requests"] += 1
        served = await take(request, body.model)
        if not isinstance(served, Served):
            return served

        async def produce() -> Any:
            refusal = body.refusal(served.spec)
            if refusal:
                return anthropic_messages.error(400, refusal)
            reply = MessagesReply(served.client, served.spec, body)
            return await reply.answer(request, served.defaults)

        return await answered(served, produce)

    @app.post("/v1/messages/count_tokens")
    async def count_tokens(body: CountRequest, request: Request) -> Any:
        served = await take(request, body.model)
        if not isinstance(served, Served):
            return served
        try:
            job = served.client.count_tokens(served.spec, body.text())
        finally:
            served.release()
        counted = await asyncio.to_thread(job.wait, 600)
        if counted is None or counted.get("type") == protocol.ERROR:
            message = (counted or {}).get("message") or "no answer from the engine"
            return anthropic_messages.error(503, str(message))
        return {"input_tokens": int(counted.get("tokens") or 0)}

    ollama_api.register(app, models, take)
    app.state.hearth = state
    return app


class _BodyLimit:
    """Counts a request's body as it arrives and answers 413 past ``limit``: a chunked body
    has no Content-Length to check first, and must not fill the memory.

    Past the limit the app is told that the client went away (so that it stops reading
    whatever layer it is in) and its own answer to that is dropped for the 413."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        received = 0
        too_large = started = False

        async def counted() -> Message:
            nonlocal received, too_large
            if too_large:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
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
            if not too_large:
                raise
        if too_large and not started:
            refusal = _too_large(str(scope.get("path", "")))
            await refusal(scope, counted, send)


def _too_large(path: str) -> JSONResponse:
    """The 413 in the shape of the route's dialect (the app's handlers are not reached)."""
    if path.startswith("/api/"):
        refusal = ollama_api.error(413, TOO_LARGE)
    elif path.startswith("/v1/messages"):
        refusal = anthropic_messages.error(413, TOO_LARGE)
    else:
        body = {"error": {"message": TOO_LARGE, "type": "request_too_large"}}
        refusal = JSONResponse(body, status_code=413)
    refusal.headers["Connection"] = "close"
    return refusal


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


def _uvicorn(app: Any, config: ServerConfig) -> Any:
    """The one uvicorn set-up for both the window's switch and ``hearth serve``."""
    import uvicorn

    return uvicorn.Server(
        uvicorn.Config(
            app,
            host=config.host,
            port=config.port,
            log_level="warning",
            access_log=False,
            limit_concurrency=64,
            timeout_keep_alive=5,
        )
    )


class ApiServer:
    """uvicorn on a thread of its own (for the window's switch)."""

    def __init__(self, app: Any, config: ServerConfig) -> None:
        self.config = config
        self.server = _uvicorn(app, config)
        self.thread = threading.Thread(target=self.server.run, name="api-server", daemon=True)

    def start(self, timeout: float = 10.0) -> None:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        if not self.server.started:
            from app.errors import HearthError

            raise HearthError(
                Phrase(
                    "The API server could not start on {0}:{1} (is the port in use?).",
                    self.config.host,
                    self.config.port,
                )
            )

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)


def serve_models(
    models: ServedModels, config: ServerConfig, ready: Callable[[str], None] | None = None
) -> None:
    """``hearth serve`` of the library: models load when a request names them."""
    config.check()
    config.check_port()
    _run(build_app_for(models, config), config, ready)


def _run(app: Any, config: ServerConfig, ready: Callable[[str], None] | None) -> None:
    server = _uvicorn(app, config)
    if ready is not None:
        original = server.startup

        async def startup(*args: Any, **kwargs: Any) -> None:
            await original(*args, **kwargs)
            ready(f"http://{config.host}:{config.port}/v1")

        server.startup = startup
    server.run()


def serve_forever(
    client: EngineClient,
    spec: ModelSpec,
    config: ServerConfig,
    defaults: dict[str, Any],
    ready: Callable[[str], None] | None = None,
) -> None:
    """``hearth serve --model``: load the model, then serve until interrupted."""
    config.check()
    config.check_port()
    loaded = client.load(spec).wait(600)
    if loaded is None or loaded.get("type") == protocol.ERROR:
        from app.errors import HearthError

        raise HearthError(
            Phrase("The model could not be loaded: {0}", (loaded or {}).get("message"))
        )
    _run(build_app(client, lambda: spec, config, lambda: dict(defaults)), config, ready)
