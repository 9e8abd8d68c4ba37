"""The worker process: one loaded model, driven by newline-JSON requests.

Started by the client as ``hearth --worker`` (or ``python -m backends.worker``); the frozen
app re-executes itself the same way, so no source tree is needed.

Threads:
* the *reader* thread reads requests from stdin.  The controls take effect at once
  (``backends.job_control``): ``cancel`` sets a request's flag and ``threads`` a thread
  count that the engine reads between tokens (neither waits behind the request queue);
  everything else is queued.  End of stdin means the engine host has gone, so the worker
  cancels what it is doing and exits.
* the *main* thread takes requests from the queue, in order, and runs the engine.
* a *reply* thread per chat request, for an engine that answers several at once (a
  llama.cpp model with slots, ``backends.slots``): the main thread loads the model (or
  finds it loaded) and hands the reply on, so the next request starts at once.  What
  would change the model under the replies (another model, Unload, embeddings, which
  take the same cores) waits on the main thread until they are done.

Before anything else the worker keeps a private duplicate of stdout for the protocol and
points file descriptor 1 at stderr (the client sends stderr to a log file), so a native
library printing to stdout can never break the channel.
"""

from __future__ import annotations

import logging
import os
import queue
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from functools import partial
from typing import IO, Any

from backends import runtimes
from backends.delta_batch import INTERVAL, DeltaBatcher
from backends.engine import Engine, EngineError, create_engine
from backends.job_control import JobControl, ThreadWish
from backends.text_stream import ReasoningSplit
from wire import protocol
from wire.child_process import limit_memory, private_protocol_stream
from wire.engine_overlay import use_overlay
from wire.engine_traits import traits_of
from wire.model_spec import LLAMA_CPP, ModelSpec, serves
from wire.phrases import Phrase, to_wire
from wire.platforms import illegal_instruction

log = logging.getLogger("hearth.worker")

REMEMBERED_CANCELS = 256  # Stops for requests not seen (yet), kept this many at most

# How a request's handling ended.
ANSWERED, FAILED, FATAL = "answered", "failed", "fatal"


class _Channel:
    """The protocol's output side: one lock, so events from two threads never interleave."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.broken = False

    def send(self, message: dict[str, Any]) -> None:
        with self._lock:
            if self.broken:
                return
            try:
                protocol.write_message(self._stream, message)
            except (BrokenPipeError, OSError, ValueError):
                self.broken = True  # the client has gone; the reader sees EOF too


class Worker:
    def __init__(self, channel: _Channel) -> None:
        self.channel = channel
        self.requests: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.threads = ThreadWish()  # the engine's, whichever requests run
        self.running: dict[object, JobControl] = {}  # the requests being answered, by id
        self.replies: list[threading.Thread] = []  # reply threads (slots)
        self.fatal = False  # a reply thread ran out of memory: the worker ends
        # Cancelled before their turn (in order, the oldest forgotten first: a Stop that
        # came after its reply ended names a request that never comes).
        self.cancelled_ids: dict[object, None] = {}
        self.answered_ids: set[object] = set()  # of those, the ones answered already
        self.queued_ids: set[object] = set()  # received, not yet started
        self.lock = threading.Lock()
        self.engine: Engine | None = None
        self.loaded_spec: dict[str, Any] | None = None
        self.loaded_facts: dict[str, Any] = {}  # what the load reported (context, template…)
        self.runtime: runtimes.Runtime | None = None

    # -- reader thread -------------------------------------------------------------
    def read_requests(self, stream: IO[bytes]) -> None:
        while True:
            try:
                message = protocol.read_message(stream)
            except protocol.ProtocolError as exc:
                self.channel.send(
                    {
                        "type": protocol.ERROR,
                        "id": None,
                        "kind": protocol.ERR_BAD_REQUEST,
                        "message": str(exc),
                    }
                )
                continue
            except (OSError, ValueError):
                message = None
            if message is None:
                self._cancel(None)
                self.requests.put(None)
                return
            if message["type"] == protocol.CANCEL:
                self._cancel(message.get("target"))
            elif message["type"] == protocol.THREADS:
                self.threads.want(_count(message.get("threads")), _grant(message))
            elif message["type"] == protocol.SHUTDOWN:
                self._cancel(None)
                self.requests.put(message)
                self.requests.put(None)
            else:
                if message.get("threads") is not None:
                    self.threads.want(_count(message.get("threads")), _grant(message))
                with self.lock:
                    self.queued_ids.add(message.get("id"))
                self.requests.put(message)

    def _cancel(self, target: object) -> None:
        """Stop a request being answered between two tokens (every one, without a target);
        a request still waiting in the queue is answered at once (its client is not kept
        waiting behind the current one, which is not disturbed) and skipped when its turn
        comes; one whose cancel came first is answered when its turn comes, without
        running."""
        with self.lock:
            if target is None:
                for control in self.running.values():
                    control.cancel()
                return
            running = self.running.get(target)
            if running is not None:
                running.cancel()
                return
            # Waiting in the queue, or not arrived yet (the cancel overtook it).
            waiting = target in self.queued_ids
            self.cancelled_ids[target] = None
            extra = len(self.cancelled_ids) - REMEMBERED_CANCELS
            if extra > 0:  # never one still queued: it must be skipped when its turn comes
                stale = [i for i in self.cancelled_ids if i not in self.queued_ids][:extra]
                for old in stale:
                    self.cancelled_ids.pop(old)
            if waiting:
                self.answered_ids.add(target)
        if waiting:
            self.channel.send(
                {"type": protocol.DONE, "id": target, "finish_reason": protocol.FINISH_CANCELLED}
            )

    # -- main thread ---------------------------------------------------------------
    def run(self) -> None:
        while True:
            message = self.requests.get()
            if message is None or self.fatal:
                break
            request_id = message.get("id")
            log.info("request %s %s", message["type"], request_id)
            control = JobControl(self.threads)
            with self.lock:
                pre_cancelled = request_id in self.cancelled_ids
                answered = request_id in self.answered_ids
                self.cancelled_ids.pop(request_id, None)
                self.answered_ids.discard(request_id)
                self.queued_ids.discard(request_id)
                if not pre_cancelled:
                    self.running[request_id] = control
                    control.start(self._apply_threads)
            if pre_cancelled:
                if not answered:  # the cancel came before the request itself
                    self.channel.send(
                        {
                            "type": protocol.DONE,
                            "id": request_id,
                            "finish_reason": protocol.FINISH_CANCELLED,
                        }
                    )
                continue
            if message["type"] == protocol.CHAT:
                outcome = self.guarded(request_id, partial(self.load_for_chat, message))
                if outcome == ANSWERED and self.answers_alongside():
                    self.reply_alongside(message, control)
                    continue
                if outcome == ANSWERED:
                    outcome = self.guarded(request_id, partial(self.chat, message, control))
            else:
                if message["type"] in (protocol.EMBED, protocol.UNLOAD, protocol.SHUTDOWN):
                    self.wait_for_replies()
                outcome = self.guarded(request_id, partial(self.handle, message, control))
            with self.lock:
                self.running.pop(request_id, None)
            if outcome == FATAL:
                break  # end the worker: its memory is surely freed, nothing retries
        self._cancel(None)
        self.wait_for_replies()
        self.close_engine()

    def guarded(self, request_id: object, action: Callable[[], None]) -> str:
        """Run ``action`` for a request; a failure is the request's error event."""
        try:
            action()
            return ANSWERED
        except EngineError as exc:
            log.warning("request %s failed: %s", request_id, exc.message)
            self.channel.send(
                {
                    "type": protocol.ERROR,
                    "id": request_id,
                    "kind": exc.kind,
                    **exc.details,
                    **to_wire(exc.message),
                }
            )
            return FATAL if exc.kind == protocol.ERR_OUT_OF_MEMORY else FAILED
        except MemoryError:
            log.error("out of memory\n%s", traceback.format_exc())
            self.channel.send(
                {
                    "type": protocol.ERROR,
                    "id": request_id,
                    "kind": protocol.ERR_OUT_OF_MEMORY,
                    **to_wire(
                        Phrase(
                            "The model ran out of memory. Try a smaller model or a "
                            "shorter context length."
                        )
                    ),
                }
            )
            return FAILED
        except Exception as exc:  # noqa: BLE001 - anything else is reported, not fatal
            log.error("request %s crashed\n%s", request_id, traceback.format_exc())
            self.channel.send(
                {
                    "type": protocol.ERROR,
                    "id": request_id,
                    "kind": protocol.ERR_ENGINE,
                    **to_wire(Phrase("The engine failed: {0}", exc)),
                }
            )
            return FAILED

    # -- replies at once (slots) ---------------------------------------------------------
    def answers_alongside(self) -> bool:
        """The loaded engine answers several requests at once."""
        return int(getattr(self.engine, "slots", 0) or 0) > 0

    def reply_alongside(self, message: dict[str, Any], control: JobControl) -> None:
        request_id = message.get("id")

        def reply() -> None:
            outcome = self.guarded(request_id, partial(self.chat, message, control))
            with self.lock:
                self.running.pop(request_id, None)
            if outcome == FATAL:
                self.fatal = True
                self._cancel(None)
                self.requests.put(None)

        reserve = getattr(self.engine, "reserve", None)
        if reserve is not None:  # its place in the queue for slots: the order it came in
            control.ticket = reserve()
        thread = threading.Thread(target=reply, name=f"reply-{request_id}", daemon=True)
        self.replies = [t for t in self.replies if t.is_alive()]
        self.replies.append(thread)
        thread.start()

    def delta_interval(self) -> float:
        """How long a reply's deltas are merged: ``INTERVAL``, times the replies streaming
        at once (several replies together then send as many messages as one: each costs
        the app's reader, and an API client's stream, the same whatever it holds)."""
        return INTERVAL * max(1, len(self.running))

    def wait_for_replies(self) -> None:
        """Until every reply thread has ended (their Stops still act meanwhile)."""
        for thread in self.replies:
            thread.join()
        self.replies = []

    def handle(self, message: dict[str, Any], control: JobControl) -> None:
        kind = message["type"]
        request_id = message.get("id")
        if kind == protocol.HELLO:
            self.channel.send(
                {
                    "type": protocol.READY,
                    "id": request_id,
                    "protocol": protocol.PROTOCOL_VERSION,
                    "pid": os.getpid(),
                }
            )
        elif kind == protocol.LOAD:
            info = self.ensure_loaded(request_id, message.get("model"))
            self.channel.send({"type": protocol.LOADED, "id": request_id, **info})
        elif kind == protocol.COUNT_TOKENS:
            engine = self.require_engine()
            self.channel.send(
                {
                    "type": protocol.RESULT,
                    "id": request_id,
                    "tokens": engine.count_tokens(str(message.get("text", ""))),
                }
            )
        elif kind == protocol.EMBED:
            engine = self.require_engine()
            control.checkpoint()  # the threads this request may use
            embed = getattr(engine, "embed", None)
            if embed is None:
                raise EngineError(
                    protocol.ERR_BAD_REQUEST,
                    Phrase("This model's engine cannot make embeddings; use a GGUF model."),
                )
            texts = [str(text) for text in message.get("input") or []]
            self.channel.send({"type": protocol.RESULT, "id": request_id, **embed(texts)})
        elif kind == protocol.UNLOAD:
            self.close_engine()
            self.channel.send({"type": protocol.RESULT, "id": request_id, "unloaded": True})
        elif kind == protocol.SHUTDOWN:
            self.channel.send({"type": protocol.RESULT, "id": request_id, "shutdown": True})
        else:
            raise EngineError(protocol.ERR_BAD_REQUEST, Phrase("Unknown request {0!r}.", kind))

    def load_for_chat(self, message: dict[str, Any]) -> None:
        """The model a chat names, loaded (or found loaded) before its reply."""
        request_id = message.get("id")
        if message.get("model") is not None:
            info = self.ensure_loaded(request_id, message["model"])
            if info.get(protocol.LOADED_NOW):
                self.channel.send(
                    {"type": protocol.LOADED, "id": request_id, **info, protocol.FINAL: False}
                )
        self.require_engine()

    def chat(self, message: dict[str, Any], control: JobControl) -> None:
        request_id = message.get("id")
        engine = self.require_engine()
        control.checkpoint()  # the threads this reply may use, from its first token
        fault = runtimes.injected_fault(self.runtime)
        if fault == "sigill-reply":
            illegal_instruction()
        if fault == "crash-reply":
            os._exit(70)

        counted = {"prompt": False}

        def send(event: dict[str, Any]) -> None:
            if event.get("type") == protocol.DELTA:
                # What the reply has cost so far, for a client whose worker may die
                # before the stats (the first delta also says what the prompt took).
                event[protocol.GENERATED_TOKENS] = control.generated_tokens
                if not counted["prompt"]:
                    counted["prompt"] = True
                    event[protocol.PROMPT_TOKENS] = control.prompt_tokens
            self.channel.send(event)
            if fault == "sigill-delta" and event.get("type") == protocol.DELTA:
                illegal_instruction()

        # Local engines' deltas are merged; a server's arrive as it sends them (its stalls
        # must not hold back text already there).
        merge = traits_of(str((self.loaded_spec or {}).get("engine") or "")).merge_deltas
        batch = DeltaBatcher(send, interval=self.delta_interval if merge else 0.0)

        def emit(event: dict[str, Any]) -> None:
            event.setdefault("id", request_id)
            batch(event)

        # <think>…</think> apart from the answer, for every engine; a completion's text is
        # the caller's to read as it is.
        raw = message.get("prompt") is not None
        split = emit if raw else ReasoningSplit(emit)
        try:
            finish = engine.chat(message, control, split)
            if isinstance(split, ReasoningSplit):
                split.flush()
        finally:
            batch.flush()
        log.info("request %s ended (%s)", request_id, finish)
        self.channel.send({"type": protocol.DONE, "id": request_id, "finish_reason": finish})

    def ensure_loaded(self, request_id: object, spec: Any) -> dict[str, Any]:
        if not isinstance(spec, dict) or not spec.get("path"):
            raise EngineError(
                protocol.ERR_BAD_REQUEST, Phrase("A load request needs a model path.")
            )
        if self.engine is not None and self._serves(spec):
            # What the load found (context, template…), again: a lease that did not load
            # it (the window's, when the API loaded the model first) has not seen it.
            return {**self.loaded_facts, "model": spec, protocol.LOADED_NOW: False}
        self.wait_for_replies()  # on the main thread: what the loaded model answers ends first
        self.close_engine()

        def progress(fraction: float, stage: str) -> None:
            self.channel.send(
                {
                    "type": protocol.PROGRESS,
                    "id": request_id,
                    "fraction": round(fraction, 3),
                    "stage": stage,
                }
            )

        started = time.perf_counter()
        name = str(spec.get("engine", LLAMA_CPP))
        if name == LLAMA_CPP:
            self.activate_runtime(spec, request_id)
        if spec.get("engine_path"):  # the PyTorch engine added after install
            log.info("engine packages from %s", use_overlay(str(spec["engine_path"])))
        engine = create_engine(name)
        try:
            runtimes.fail_on_purpose(self.runtime)
            facts = engine.load(spec, progress)
        except EngineError as exc:
            engine.close()
            runtime = self.runtime
            if (
                runtime is not None
                and runtime.name != runtimes.BUILT_IN
                and not spec.get("runtime")
            ):
                # Chosen automatically: the engine client tries the next runtime in a new
                # worker (this one has loaded the failed build).
                exc.details.update({"runtime": runtime.name, protocol.RETRY_WITHOUT_RUNTIME: True})
            raise
        except BaseException:
            engine.close()
            raise
        self.engine, self.loaded_spec = engine, spec
        self.loaded_facts = dict(facts)
        return {
            "model": spec,
            protocol.LOADED_NOW: True,
            "load_seconds": round(time.perf_counter() - started, 3),
            **facts,
        }

    def activate_runtime(self, spec: dict[str, Any], request_id: Any) -> None:
        """Choose the llama.cpp runtime before llama_cpp is imported (once per process:
        a process can load one build of llama.cpp)."""
        requested = str(spec.get("runtime") or "")
        if self.runtime is not None:
            if requested and requested != self.runtime.name:
                raise EngineError(
                    protocol.ERR_LOAD_FAILED,
                    Phrase(
                        "This engine process runs the {0} runtime; start a new one for {1}.",
                        self.runtime.name,
                        requested,
                    ),
                )
            return
        skip = tuple(str(name) for name in spec.get("skip_runtimes") or ())
        wants_gpu = int(spec.get("gpu_layers") or 0) != 0
        try:
            runtime, notes = runtimes.choose(requested, wants_gpu, skip)
        except runtimes.RuntimeUnavailable as exc:
            raise EngineError(
                protocol.ERR_LOAD_FAILED,
                Phrase("The llama.cpp runtime could not be used: {0}.", str(exc)),
            ) from exc
        runtimes.activate(runtime)
        self.runtime = runtime
        # No message: for the engine client, which retries elsewhere if this one crashes.
        self.channel.send(
            {
                "type": protocol.NOTICE,
                "id": request_id,
                "kind": protocol.NOTICE_RUNTIME_CHOSEN,
                "runtime": runtime.name,
                protocol.FORCED: bool(requested),
            }
        )
        for skipped, reason in notes:
            self.channel.send(
                {
                    "type": protocol.NOTICE,
                    "id": request_id,
                    "kind": protocol.NOTICE_RUNTIME_SKIPPED,
                    **to_wire(Phrase("The {0} runtime was skipped: {1}.", skipped, reason)),
                }
            )

    def _serves(self, spec: dict[str, Any]) -> bool:
        """The loaded model answers a request for ``spec`` as it is (``wire.model_spec.
        serves``, the rule the engine host chooses workers by)."""
        loaded = self.loaded_spec
        if loaded is None:
            return False
        if loaded == spec:
            return True
        try:
            return serves(
                ModelSpec.from_wire(loaded),
                self.runtime.name if self.runtime is not None else None,
                ModelSpec.from_wire(spec),
            )
        except (TypeError, ValueError):  # a spec this version cannot read: load it
            return False

    def _apply_threads(self, threads: int, grant: int) -> bool:
        """Have the engine use ``threads`` CPU threads, and say so (the engine host counts
        on it before it lets another model use the cores it gave up)."""
        engine = self.engine
        set_threads = getattr(engine, "set_threads", None)
        if engine is None:
            return False
        if set_threads is not None:
            set_threads(threads)
        with self.lock:  # the host reads it for the worker, whichever request it names
            named = next(iter(self.running), None)
        self.channel.send(
            {
                "type": protocol.NOTICE,
                "id": named,
                "kind": protocol.NOTICE_THREADS,
                "threads": threads,
                protocol.GRANT: grant,
                "at": time.monotonic(),
            }
        )
        return True

    def require_engine(self) -> Engine:
        if self.engine is None:
            raise EngineError(protocol.ERR_NOT_LOADED, Phrase("No model is loaded."))
        return self.engine

    def close_engine(self) -> None:
        if self.engine is not None:
            try:
                self.engine.close()
            finally:
                self.engine, self.loaded_spec = None, None


def _count(value: Any) -> int:
    """A thread count from a request (0 when it has none, or none that makes sense)."""
    try:
        return max(int(value or 0), 0)
    except (TypeError, ValueError):
        return 0


def _grant(message: dict[str, Any]) -> int | None:
    """The number of the host's share a thread count belongs to (None: not numbered)."""
    value = message.get(protocol.GRANT)
    return _count(value) if value is not None else None


def _limit_memory() -> None:
    """``HEARTH_WORKER_MEMORY_LIMIT`` (bytes) caps the worker's address space (Unix).

    A safety valve for shared machines, and how tests provoke a real out-of-memory."""
    variable = "HEARTH_WORKER_MEMORY_LIMIT"
    if os.environ.get(variable) and not limit_memory(variable):
        log.warning("could not apply %s=%s", variable, os.environ[variable])


def main(argv: list[str] | None = None) -> int:
    """Run the worker until the client says shutdown or goes away."""
    out = private_protocol_stream()
    logging.raiseExceptions = False  # a log write that fails (full disk) is not a crash
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO,
        format="%(asctime)s worker[%(process)d] %(levelname)s %(name)s: %(message)s",
    )
    log.info("worker started (protocol %s)", protocol.PROTOCOL_VERSION)
    # Ctrl+C in a terminal reaches the whole process group: the client decides when the
    # worker stops (cancel, shutdown, or the pipe closing), never the keyboard.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _limit_memory()
    worker = Worker(_Channel(out))
    reader = threading.Thread(
        target=worker.read_requests, args=(sys.stdin.buffer,), name="requests", daemon=True
    )
    reader.start()
    worker.run()
    log.info("worker exiting")
    sys.stderr.flush()
    out.close()
    # Native libraries sometimes hang in their atexit handlers; the model is closed already.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
