"""What a person is told when a worker fails a request: it died (and what that may mean),
a message too long for the pipe, no room in the memory budget, or a worker that could not
be started.  Each is an ``error`` event with a kind from ``wire.protocol`` and a sentence
the window can translate (a ``Phrase``)."""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING, Any

from wire import images, protocol
from wire.model_spec import BUILT_IN_RUNTIME
from wire.phrases import Phrase, to_wire
from wire.platforms import WINDOWS_ILLEGAL_INSTRUCTION

if TYPE_CHECKING:
    from app.engine.jobs import Job

# How a process that hit an illegal instruction ends: SIGILL, or Windows' exception code.
ILLEGAL_INSTRUCTION = frozenset({-signal.SIGILL.value, WINDOWS_ILLEGAL_INSTRUCTION})


def worker_died(
    job: Job, code: int | None, avoided: str | None = None, model_loaded: bool = False
) -> dict[str, Any]:
    """``model_loaded``: the worker had loaded the model, so a death before this reply's
    first words says more about the request (a huge grammar) than about the file."""
    how = (
        Phrase("exit code {0}", code)
        if code is not None and code >= 0
        else (Phrase("signal {0}", -code) if code is not None else Phrase("no exit code"))
    )
    if code in ILLEGAL_INSTRUCTION and avoided:
        message = Phrase(
            "The model engine stopped ({0}, an illegal instruction): the {1} build of "
            "llama.cpp uses processor instructions that this computer, or the virtual machine "
            "it runs in, does not allow. Hearth now uses another llama.cpp runtime for this "
            "model; anything already written was kept.",
            how,
            avoided,
        )
    elif code in ILLEGAL_INSTRUCTION:
        # Retrying gives the same crash: the build uses instructions this processor (or
        # the virtual machine it runs in) does not allow.
        message = Phrase(
            "The model engine stopped ({0}, an illegal instruction): this build of llama.cpp "
            "uses processor instructions that this computer, or the virtual machine it runs "
            "in, does not allow. Choose another llama.cpp runtime in Model settings; a build "
            "from source needs rebuilding for this processor.",
            how,
        )
    elif job.kind != protocol.LOAD and model_loaded and job.first_delta_at is None:
        message = Phrase(
            "The model engine stopped unexpectedly ({0}) before this reply began. The model "
            "had loaded, so something in this request may have caused it (a very large "
            "schema, grammar or prompt); the engine starts again with the next request.",
            how,
        )
    elif job.kind == protocol.LOAD or job.first_delta_at is None:
        # Before any answer: sending again may well crash it again, so say what may be
        # wrong rather than invite a retry.
        message = Phrase(
            "The model engine stopped unexpectedly ({0}) before the model answered. If this "
            "happens again, the model file may be damaged or too large for this computer: "
            "choose another model or a shorter context.",
            how,
        )
    else:
        message = Phrase(
            "The model engine stopped unexpectedly ({0}). What was written so far was kept; "
            "send a message to start the engine again.",
            how,
        )
    return _died_event(job, code, message)


def _died_event(job: Job, code: int | None, message: Phrase) -> dict[str, Any]:
    return {
        "type": protocol.ERROR,
        "id": job.id,
        "kind": protocol.ERR_WORKER_DIED,
        "exit_code": code,
        # What the reply cost before it ended, as its deltas said.
        protocol.PROMPT_TOKENS: job.prompt_tokens,
        protocol.GENERATED_TOKENS: job.generated_tokens,
        **to_wire(message),
    }


def died(worker: Any, job: Job, code: int | None, avoided: str | None) -> dict[str, Any]:
    """What ``job`` is told when ``worker`` (a ``WorkerProcess``) ended under it."""
    said = _grown(worker) or _stalled(worker)
    if said:
        return _died_event(job, code, said)
    return worker_died(job, code, avoided, worker.model_loaded)


def _grown(worker: Any) -> Phrase | None:
    if not worker.killed_grown:
        return None
    return Phrase(
        "The model engine grew to {0} GB of memory, far more than its model needs, so "
        "Hearth stopped it before the computer ran out. {1} The engine starts again with "
        "the next request.",
        round(worker.killed_grown / 1024**3, 1),
        worker.grown_cause or Phrase("Something in a request may have asked for too much."),
    )


def heavy_asks(messages: list[dict[str, Any]]) -> Phrase | None:
    """What the requests in flight asked that takes memory beyond the model: their
    pictures, or a schema or grammar to follow (the likely cause when a worker grew)."""
    pictures = sum(
        len(images.images_of(each))
        for message in messages
        for each in message.get("messages") or []
        if isinstance(each, dict)
    )
    if pictures:
        return Phrase("The requests in flight held {0} pictures to read.", pictures)
    if any(follows_grammar(message) for message in messages):
        return Phrase("A request asked the model to follow a very large schema or grammar.")
    return None


def follows_grammar(message: dict[str, Any]) -> bool:
    """Whether a chat request holds its reply to a grammar: a schema, JSON, a raw grammar
    or a forced tool call."""
    params = message.get("params") or {}
    choice = params.get("tool_choice")
    forced = bool(params.get("tools")) and (choice == "required" or isinstance(choice, dict))
    return bool(params.get("grammar") or params.get("response_format") or forced)


def _stalled(worker: Any) -> Phrase | None:
    if not worker.killed_stalled:
        return None
    if worker.stalled_on_grammar:
        return Phrase(
            "The model engine worked for {0} seconds on a request's schema or grammar "
            "without writing anything, so Hearth stopped it. Make the schema simpler (fewer "
            "repetitions inside repetitions); the engine starts again with the next request.",
            round(worker.killed_stalled),
        )
    return Phrase(
        "The model engine stopped responding: it made no progress for {0} seconds, so "
        "Hearth stopped it. What was written so far was kept; the engine starts again with "
        "the next request.",
        round(worker.killed_stalled),
    )


def too_long(job: Job, size: int) -> dict[str, Any]:
    return {
        "type": protocol.ERROR,
        "id": job.id,
        "kind": protocol.ERR_BAD_REQUEST,
        **to_wire(
            Phrase(
                "This conversation is too long to send to the model ({0} MB; at most {1} MB "
                "can be sent). Start a new conversation, or send a shorter message.",
                size // (1024 * 1024),
                protocol.MAX_LINE_BYTES // (1024 * 1024),
            )
        ),
    }


def not_started(job: Job, exc: BaseException) -> dict[str, Any]:
    return {
        "type": protocol.ERROR,
        "id": job.id,
        "kind": protocol.ERR_ENGINE,
        **to_wire(Phrase("The model engine could not be started: {0}", exc)),
    }


def no_room(job: Job, sentence: Phrase) -> dict[str, Any]:
    return {"type": protocol.ERROR, "id": job.id, "kind": protocol.ERR_NO_ROOM, **to_wire(sentence)}


def forward_all(event: dict[str, Any], jobs: list[Job]) -> None:
    """The greeting's failure (a worker of another version) ends the requests it started
    for; a worker that died answers those requests itself (or sends them again elsewhere)."""
    if event["type"] == protocol.ERROR and event.get("kind") != protocol.ERR_WORKER_DIED:
        for job in jobs:
            job.deliver({**event, "id": job.id})


def starting(job: Job) -> dict[str, Any]:
    """What a load or reply says while its model's worker starts."""
    return {
        "type": protocol.PROGRESS,
        "id": job.id,
        "fraction": 0.0,
        "stage": "Starting the engine",
    }


def runtime_failed(job: Job, failed: str, event: dict[str, Any], loaded: bool) -> dict[str, Any]:
    """The notice that a request goes on without the runtime ``failed``."""
    why = str(event.get("message", ""))
    sentence = (
        Phrase("The {0} runtime stopped ({1}); trying the next one.", failed, why)
        if loaded
        else Phrase(
            "The {0} runtime could not load the model ({1}); trying the next one.", failed, why
        )
    )
    return {
        "type": protocol.NOTICE,
        "id": job.id,
        "kind": protocol.NOTICE_RUNTIME_FAILED,
        "runtime": failed,
        **to_wire(sentence),
    }


def _chosen_runtime(worker: Any) -> str | None:
    """The runtime the worker chose itself (not forced, not the built-in one), or None."""
    runtime = worker.runtime
    if runtime is None or runtime[1] or runtime[0] == BUILT_IN_RUNTIME:
        return None
    return str(runtime[0])


def runtime_at_fault(worker: Any, code: int | None) -> str | None:
    """The runtime an illegal instruction blames (one the worker chose itself, in a worker
    not ended on purpose): later requests for the model skip it.  None when none is."""
    if code not in ILLEGAL_INSTRUCTION or worker.retiring or worker.killed_stuck:
        return None
    return _chosen_runtime(worker)


def crash_retry(worker: Any, job: Job, code: int | None, replaced: bool) -> dict[str, Any] | None:
    """Why ``job`` goes to a new worker without the runtime its worker chose, or None: it
    died while loading (a GPU driver's crash), or with an illegal instruction before the
    reply's first words (a kernel for another processor).  ``replaced``: the model has
    another worker already (a loaded one's request is not sent again there)."""
    if _chosen_runtime(worker) is None:
        return None
    if worker.retiring or worker.killed_stuck or job.id not in worker.sent:
        return None  # ended on purpose, or words were shown: nothing to send again
    if worker.killed_grown or worker.killed_stalled:
        return None  # stopped by the host's watch: not the runtime's crash
    if worker.model_loaded and (code not in ILLEGAL_INSTRUCTION or replaced):
        return None  # a crash in a reply is not known to be the runtime's
    how = (
        Phrase("an illegal instruction")
        if code in ILLEGAL_INSTRUCTION
        else Phrase("the engine stopped ({0})", code)
    )
    return {"type": protocol.ERROR, "kind": protocol.ERR_WORKER_DIED, **to_wire(how)}
