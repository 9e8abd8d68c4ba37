"""Hearth's local API (``hearth serve`` and the window's switch): OpenAI's, Ollama's and
Anthropic's dialects on one port, served by FastAPI/uvicorn from one route table
(``routes``), every reply through one pipeline (``pipeline``) and every model leased from
the process's engine host (``served_models``), whose workers the window's chat shares.

A body is read as JSON whatever its Content-Type says (Ollama's own ``curl -d '{…}'``
examples, and litellm's Ollama providers, send none), and validated against its route's
model: every parameter with its range from the settings declaration, before anything
reaches an engine.  A malformed body, like every refusal, is answered in the route's
dialect.  The defences (Host, Origin, key, body size) are in ``guard``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.engine.host import EngineHost
from app.errors import HearthError
from app.serve import dialects
from app.serve.call import Call
from app.serve.config import ServerConfig, body_limit
from app.serve.guard import BodyLimit, RequestEnd, http_guard, refuse
from app.serve.pipeline import Refusal
from app.serve.routes import ROUTES, Route
from app.serve.served_models import ServedModels, SingleModel
from wire import protocol
from wire.model_spec import ModelSpec
from wire.phrases import Phrase


def build_app(models: ServedModels, config: ServerConfig) -> Any:
    """The ASGI app: ``models`` says which model answers each request."""
    app = FastAPI(title="Hearth", docs_url=None, redoc_url=None, openapi_url=None)
    app.middleware("http")(http_guard(config))
    app.add_middleware(BodyLimit, limit=body_limit)
    app.add_middleware(RequestEnd)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = {413: "request_too_large", 404: "not_found", 405: "method_not_allowed"}
        return refuse(
            request.url.path, exc.status_code, str(exc.detail), kind.get(exc.status_code, "error")
        )

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return refuse(request.url.path, 400, described(exc.errors()), "invalid_request_error")

    for route in ROUTES:
        app.add_api_route(route.path, endpoint(route, models, config), methods=list(route.methods))
    return app


def endpoint(route: Route, models: ServedModels, config: ServerConfig) -> Callable[..., Any]:
    async def answer(request: Request) -> Any:
        try:
            body = await read_body(request, route.body) if route.body is not None else None
            return await route.handler(Call(request, body, models, config))
        except Refusal as exc:
            return dialects.error(route.dialect, exc.status, exc.message, exc.kind)

    answer.__name__ = route.handler.__name__
    return answer


async def read_body(request: Request, model: type[BaseModel] | type[dict[str, Any]]) -> Any:
    """The body as JSON whatever the Content-Type says, validated against ``model``."""
    raw = await request.body()
    try:
        data = json.loads(raw) if raw.strip() else {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refusal(400, f"The body is not valid JSON ({exc}).") from None
    if model is dict:
        if not isinstance(data, dict):
            raise Refusal(400, "The body must be a JSON object.")
        return data
    assert issubclass(model, BaseModel)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise Refusal(400, described(exc.errors())) from None


def described(errors: Any) -> str:
    """A validation failure in one sentence, naming the field: "Invalid messages.0.role:
    Input should be 'system', 'user'…".  Of a field that may take several shapes (text or
    a list of parts), the deepest complaint is the one that names what is wrong (an
    unknown part type), not "Input should be a valid string"."""
    chosen = max(errors or [{}], key=lambda error: len(error.get("loc", ())))
    loc = [str(part) for part in chosen.get("loc", ()) if not _branch(part)]
    if loc[:1] == ["body"]:
        loc = loc[1:]
    return f"Invalid {'.'.join(loc) or 'body'}: {chosen.get('msg', 'bad value')}."


def _branch(part: Any) -> bool:
    """A step of pydantic's path that names a shape of a union (``str``, ``list[…]``)."""
    return isinstance(part, str) and (part in ("str", "int", "float", "bool") or "[" in part)


def _uvicorn(app: Any, config: ServerConfig) -> Any:
    """The one uvicorn set-up for both the window's switch and ``hearth serve``."""
    import uvicorn

    from app.serve.connections import GuardedH11

    return uvicorn.Server(
        uvicorn.Config(
            app,
            host=config.host,
            port=config.port,
            log_level="warning",
            access_log=False,
            # Requests in flight are counted by the guard (connections.InFlight), not
            # sockets; a connection is closed when its request's headers are late.
            http=GuardedH11,
            limit_concurrency=None,
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


def serve(app: Any, config: ServerConfig, ready: Callable[[str], None] | None = None) -> None:
    """``hearth serve``: serve ``app`` until interrupted (an unsafe address or a port in
    use is refused in words first)."""
    config.check()
    config.check_port()
    _run(app, config, ready)


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
    host: EngineHost,
    spec: ModelSpec,
    config: ServerConfig,
    facts: dict[str, Any],
    defaults: dict[str, Any],
    ready: Callable[[str], None] | None = None,
) -> None:
    """``hearth serve --model``: load the model (the server's seat keeps it loaded), then
    serve until interrupted."""
    config.check()
    config.check_port()
    one = SingleModel(host, spec, config.model_name, facts, lambda: dict(defaults))
    loaded = one.seat.load(spec).wait(600)
    if loaded is None or loaded.get("type") == protocol.ERROR:
        raise HearthError(
            Phrase("The model could not be loaded: {0}", (loaded or {}).get("message"))
        )
    _run(build_app(one, config), config, ready)
