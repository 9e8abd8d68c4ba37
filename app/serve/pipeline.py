"""One pipeline for every reply the API gives, whatever its dialect.

A dialect (OpenAI's chat, completions and responses, Ollama's, Anthropic's) translates its
request into an ``Ask`` and the pipeline's pieces and endings back into its own shape;
everything between happens here, once:

1. the request's model is taken (a lease from the engine host, ``served_models``): an
   unknown name is a 404, a model that cannot load here a 400;
2. what the request needs of the engine (a grammar, tools, token probabilities, a raw
   prompt, images) is checked against the engine catalogue (``capabilities``);
3. passages from the request's document collections are put before its question;
4. the job starts, and the reply waits for the engine's first decisive event, so that a
   request the engine refuses before generating (a grammar, a prompt too long, no room in
   memory) gets its HTTP status rather than a 200 with an error inside;
5. the engine's events are folded (``folding``) into pieces and endings, or into whole
   outcomes, choice after choice (``n``).

Every failure before a reply is a ``Refusal`` (status, message, kind), which the route
answers in its dialect's shape.  A lease is released when the last choice's end is known,
before the client hears it (a client that sends its next request at once must find the
model free), and at the latest when the HTTP exchange ends however it ends, with any job
still running cancelled: a client that goes away, before or during its reply, never leaves
a model reserved or generating.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request

from app.engine.jobs import Job
from app.engines import EMBEDDINGS
from app.errors import HearthError
from app.serve import capabilities
from app.serve.folding import CANCELLED, ChoiceFold, Ending, Outcome, Piece
from app.serve.pictures import RequestPictures
from app.serve.relay import Relay
from app.serve.served_models import Refused, Served, ServedModels, UnknownModel
from app.settings import highest
from wire import images, protocol

log = logging.getLogger(__name__)

WAIT_S = 600.0  # embeddings and token counts
REQUEST_END = "hearth.on_request_end"  # the ASGI scope's list of what to do at the end

# Grounding: (question, collections, passages, context tokens, conversation characters,
# reply limit) -> (the context to put before the question, its sources).
Grounder = Callable[[str, list[str], int, int, int, int], tuple[str, list[dict[str, Any]]]]


class Refusal(Exception):
    """A request that gets no reply: its HTTP status, a sentence, and a kind (OpenAI's
    error ``type``)."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status, self.message, self.kind = status, message, kind


@dataclass
class Ask:
    """A request for a reply, as every dialect translates it."""

    model: str | None
    messages: list[dict[str, Any]] = field(default_factory=list)  # rendered by the template
    prompt: str | None = None  # a raw prompt instead (completions, Ollama's raw)
    suffix: str | None = None  # fill-in-the-middle: the text after the gap
    params: dict[str, Any] = field(default_factory=dict)  # over the model's own defaults
    n: int = 1  # choices, one after another
    tool_names: frozenset[str] = frozenset()  # the tools whose calls are read out
    needs: dict[str, str] = field(default_factory=dict)  # feature: how the request asked
    collections: list[str] = field(default_factory=list)  # answer from these documents
    passages: int = 6
    keep_alive_s: float | None = None


def on_request_end(request: Request, action: Callable[[], None]) -> None:
    """Run ``action`` when the HTTP exchange ends, answered or abandoned (the ASGI
    middleware ``api_server._RequestEnd`` runs the list)."""
    request.scope.setdefault(REQUEST_END, []).append(action)


async def take(
    models: ServedModels, request: Request, name: str | None, keep_alive_s: float | None = None
) -> Served:
    """The request's model, leased until its reply ends (or the exchange does)."""
    try:
        served = await models.take(name, keep_alive_s)
    except UnknownModel as exc:
        raise Refusal(404, str(exc), "model_not_found") from None
    except Refused as exc:
        raise Refusal(400, str(exc), "model_unavailable") from None
    on_request_end(request, served.release)
    return served


def engine_status(error: dict[str, Any]) -> int:
    """The HTTP status of an engine's error in every dialect: the request's fault (a bad
    parameter, a prompt too long: 400) or the engine's (503)."""
    theirs = error.get("kind") in (protocol.ERR_BAD_REQUEST, protocol.ERR_CONTEXT_OVERFLOW)
    return 400 if theirs else 503


def refused_by_engine(error: dict[str, Any]) -> Refusal:
    kind = str(error.get("kind"))
    return Refusal(
        engine_status(error),
        str(error.get("message")),
        "invalid_request_error" if kind == protocol.ERR_BAD_REQUEST else kind,
    )


def choice_params(params: dict[str, Any], index: int) -> dict[str, Any]:
    """Choice ``index`` of ``n``: with a seed, seed + index, so that the choices differ
    and the whole answer is still reproducible."""
    if index and params.get("seed") is not None:
        return {**params, "seed": (int(params["seed"]) + index) % (highest("sampling.seed") + 1)}
    return params


async def start(
    ask: Ask,
    models: ServedModels,
    request: Request,
    grounder: Grounder | None = None,
    pictures: RequestPictures | None = None,
) -> Reply:
    """The reply, started: its first choice's engine has answered (Refusal otherwise).
    The request's pictures are kept in ``pictures`` and reach the worker by reference."""
    served = await take(models, request, ask.model, ask.keep_alive_s)
    refusal = capabilities.refusal(ask.needs, served.spec) or images.limits_problem(ask.messages)
    if refusal:
        served.release()
        raise Refusal(400, refusal)
    reply = Reply(served, ask, request)
    if pictures is not None:
        await reply.keep_pictures(pictures)
    if ask.collections:
        await reply.ground(grounder)
    await reply.begin()
    return reply


class Reply:
    """One request's reply: ``n`` generations through its model's lease, one at a time."""

    def __init__(self, served: Served, ask: Ask, request: Request) -> None:
        self.served, self.ask, self.request = served, ask, request
        self.name = served.name
        self.params = {**served.defaults, **ask.params}
        self.messages = [dict(message) for message in ask.messages]
        # The passages given to the model from document collections: sent back with the
        # answer as ``sources``.
        self.sources: list[dict[str, Any]] = []
        self._first: tuple[Relay, Job] | None = None
        self._jobs: list[Job] = []
        self._gone = False  # the client went away: nothing more starts
        on_request_end(request, self._cancel_unfinished)

    # -- before the reply ------------------------------------------------------------------
    async def keep_pictures(self, pictures: RequestPictures) -> None:
        """Keep the request's pictures (off the event loop: it writes files), so that they
        reach the worker by reference; a Refusal in words when they cannot be kept."""
        if not images.has_images(self.messages):
            return
        try:
            self.messages = await asyncio.to_thread(pictures.by_reference, self.messages)
        except OSError as exc:
            self.served.release()
            log.error("could not keep a request's pictures", exc_info=exc)
            raise Refusal(
                507, f"Hearth could not keep the request's pictures ({exc.strerror or exc})."
            ) from None

    async def ground(self, grounder: Grounder | None) -> None:
        """Search the request's collections and put the passages before its question."""
        if grounder is None:
            self.served.release()
            raise Refusal(400, "this server has no document collections")
        question: dict[str, Any] = next(
            (m for m in reversed(self.messages) if m.get("role") == "user"), {"content": ""}
        )
        said = sum(
            len(images.text_of(m.get("content"))) for m in self.messages if m is not question
        )
        try:
            context, sources = await asyncio.to_thread(
                grounder,
                images.text_of(question.get("content")),
                list(self.ask.collections),
                self.ask.passages,
                self.served.spec.n_ctx,
                said,
                int(self.params.get("max_tokens") or 0),
            )
        except HearthError as exc:
            self.served.release()
            raise Refusal(400, str(exc.message)) from None
        self.sources = sources
        if context and isinstance(question.get("content"), list):  # a question with pictures
            question["content"] = [{"type": "text", "text": context}, *question["content"]]
        elif context and "content" in question:
            question["content"] = f"{context}\n\n{question['content']}"

    async def begin(self) -> None:
        relay, job = await self._start(0)
        first = await relay.first(self.request, job)
        if first["type"] == protocol.ERROR:
            self.served.release()
            raise refused_by_engine(first)
        self._first = (relay, job)

    async def _start(self, index: int) -> tuple[Relay, Job]:
        relay = Relay()  # on the event loop: the worker's events are put into it
        params = choice_params(self.params, index)
        lease = self.served.lease

        # On the event loop: the engine host only takes the request (a worker it must
        # start for it starts on the host's own thread).
        if self.ask.prompt is not None:
            job = lease.complete(self.ask.prompt, params, relay.put, suffix=self.ask.suffix)
        else:
            job = lease.chat(self.messages, params, relay.put)
        self._jobs.append(job)
        if self._gone:
            job.cancel()
        return relay, job

    async def _choice(self, index: int) -> tuple[Relay, Job]:
        if index == 0 and self._first is not None:
            return self._first
        return await self._start(index)

    # -- the reply -------------------------------------------------------------------------
    async def stream(self) -> AsyncIterator[Piece | Ending]:
        """Every choice's pieces and its ending, as they come; after a failed choice
        (its ending says why, with what it cost) no other starts."""
        try:
            for index in range(self.ask.n):
                relay, _job = await self._choice(index)
                fold = ChoiceFold(index, self.ask.tool_names)
                async for event in relay.events():
                    items = fold.take(event)
                    ending = fold.ending
                    if ending is not None and (ending.failed or index == self.ask.n - 1):
                        self.served.release()  # before the client hears of the end
                    for item in items:
                        yield item
                if fold.ending is None or fold.ending.failed:
                    return
        finally:
            self._cancel_unfinished()
            self.served.release()

    async def whole(self) -> list[Outcome]:
        """Every choice whole (Refusal when one fails; none after a client went away)."""
        outcomes: list[Outcome] = []
        try:
            for index in range(self.ask.n):
                relay, job = await self._choice(index)
                fold = ChoiceFold(index, self.ask.tool_names)
                async for event in relay.events_until_gone(self.request, job):
                    fold.take(event)
                ending = fold.ending
                if ending is None or ending.finish == CANCELLED:
                    break  # the client went away: the other choices are not generated
                if ending.error is not None:
                    raise refused_by_engine(ending.error)
                outcomes.append(fold.outcome())
        finally:
            self.served.release()
        return outcomes

    def _cancel_unfinished(self) -> None:
        """The client went away, or the reply is over: stop what is still generating.  A
        Stop may let another request through to its worker (a share of the cores freed),
        so it is done from a thread, never on the event loop."""
        self._gone = True
        unfinished = [job for job in self._jobs if not job.finished]
        if unfinished:
            threading.Thread(target=_stop, args=(unfinished,), name="api-stop", daemon=True).start()


@dataclass
class Embedded:
    """What the engine answered: one vector per input, and the tokens read."""

    vectors: list[list[float]]
    prompt_tokens: int


async def embed(
    models: ServedModels,
    request: Request,
    name: str | None,
    texts: list[str],
    keep_alive_s: float | None = None,
) -> tuple[str, Embedded]:
    """The request's model's embeddings of ``texts`` (and the model's name)."""
    served = await take(models, request, name, keep_alive_s)
    try:
        refusal = capabilities.refusal({EMBEDDINGS: "embeddings"}, served.spec)
        if refusal:
            raise Refusal(400, refusal)
        result = await _result(served.lease.embed(texts))
        return served.name, Embedded(result["embeddings"], int(result["prompt_tokens"]))
    finally:
        served.release()


async def load(
    models: ServedModels, request: Request, name: str | None, keep_alive_s: float | None = None
) -> None:
    """The request's model loaded (and left for its keep-alive), or a Refusal."""
    served = await take(models, request, name, keep_alive_s)
    try:
        await _result(served.lease.load())
    finally:
        served.release()


async def count_tokens(models: ServedModels, request: Request, name: str | None, text: str) -> int:
    served = await take(models, request, name)
    try:
        job = served.lease.count_tokens(text)
        return int((await _result(job)).get("tokens") or 0)
    finally:
        served.release()


def _stop(jobs: list[Job]) -> None:
    for job in jobs:
        job.cancel()


async def _ended(job: Job, timeout: float) -> dict[str, Any] | None:
    """The job's last event once it has one (None after ``timeout``), waited for on the
    event loop: a long wait holds no thread of the pool the requests are sent from."""
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ended.done():
            ended.set_result(None)

    def on_finish(_job: Job) -> None:
        with contextlib.suppress(RuntimeError):  # the server's loop has closed
            loop.call_soon_threadsafe(wake)

    job.on_finish.append(on_finish)
    if job.finished:  # ended before the hook was there
        wake()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(ended, timeout)
    return job.final if job.finished else None


async def _result(job: Job) -> dict[str, Any]:
    """A request's answer (``result``, ``loaded``), or its error as a Refusal."""
    result = await _ended(job, WAIT_S)
    if result is None:
        job.cancel()
        raise Refusal(503, "no answer from the engine", protocol.ERR_TIMEOUT)
    if result.get("type") == protocol.ERROR:
        raise refused_by_engine(result)
    if result.get("type") == protocol.DONE:  # stopped before it ran (the client went away)
        raise Refusal(503, "the request was cancelled before the engine answered it")
    return result
