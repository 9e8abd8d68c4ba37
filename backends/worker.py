"""The worker process: one loaded model, driven by newline-JSON requests.

Started by the client as ``hearth --worker`` (or ``python -m backends.worker``); the frozen
app re-executes itself the same way, so no source tree is needed.

Threads:
* the *reader* thread reads requests from stdin.  The controls take effect at once
  (``backends.job_control``): ``cancel`` sets a flag and ``threads`` a thread count that
  the engine reads between tokens (neither waits behind the request queue); everything
  else is queued.  End of stdin means the engine host has gone, so the worker cancels
  what it is doing and exits.
* the *main* thread takes requests from the queue and runs the engine.

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
from typing import IO, Any

from backends import runtimes
from backends.delta_batch import INTERVAL, DeltaBatcher
from backends.engine import Engine, EngineError, create_engine
from backends.job_control import JobControl
from backends.text_stream import ReasoningSplit
from wire import protocol
from wire.child_process import limit_memory, private_protocol_stream
from wire.model_spec import LLAMA_CPP, REMOTE, ModelSpec, serves
from wire.phrases import Phrase, to_wire

log = logging.getLogger("hearth.worker")

REMEMBERED_CANCELS = 256  # Stops for requests not seen (yet), kept this many at most


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
        self.control = JobControl()
        self.current_id: object = None
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
                self.control.cancel()
                self.requests.put(None)
                return
            if message["type"] == protocol.CANCEL:
                self._cancel(message.get("target"))
            elif message["type"] == protocol.THREADS:
                self.control.want_threads(_count(message.get("threads")), _grant(message))
            elif message["type"] == protocol.SHUTDOWN:
                self.control.cancel()
                self.requests.put(message)
                self.requests.put(None)
            else:
                if message.get("threads") is not None:
                    self.control.want_threads(_count(message.get("threads")), _grant(message))
                with self.lock:
                    self.queued_ids.add(message.get("id"))
                self.requests.put(message)

    def _cancel(self, target: object) -> None:
        """Stop the current request between two tokens; a request still waiting in the
        queue is answered at once (its client is not kept waiting behind the current one,
        which is not disturbed) and skipped when its turn comes; one whose cancel came
        first is answered when its turn comes, without running."""
        with self.lock:
            if target is None or target == self.current_id:
                self.control.cancel()
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
            if message is None:
                break
            request_id = message.get("id")
            log.info("request %s %s", message["type"], request_id)
            with self.lock:
                self.current_id = request_id
                self.control.start(self._apply_threads)
                pre_cancelled = request_id in self.cancelled_ids
                answered = request_id in self.answered_ids
                self.cancelled_ids.pop(request_id, None)
                self.answered_ids.discard(request_id)
                self.queued_ids.discard(request_id)
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
            try:
                self.handle(message)
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
                if exc.kind == protocol.ERR_OUT_OF_MEMORY:
                    break  # end the worker: its memory is surely freed, nothing retries
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
            finally:
                with self.lock:
                    self.current_id = None
        self.close_engine()

    def handle(self, message: dict[str, Any]) -> None:
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
        elif kind == protocol.CHAT:
            self.chat(request_id, message)
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
            self.control.checkpoint()  # the threads this request may use
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

    def chat(self, request_id: object, message: dict[str, Any]) -> None:
        if message.get("model") is not None:
            info = self.ensure_loaded(request_id, message["model"])
            if info.get(protocol.LOADED_NOW):
                self.channel.send(
                    {"type": protocol.LOADED, "id": request_id, **info, protocol.FINAL: False}
                )
        engine = self.require_engine()
        control = self.control
        control.checkpoint()  # the threads this reply may use, from its first token
        fault = self.injected_fault()
        if fault == "sigill-reply":
            signal.raise_signal(signal.SIGILL)
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
                signal.raise_signal(signal.SIGILL)

        # Local engines' deltas are merged; a server's arrive as it sends them (its stalls
        # must not hold back text already there).
        remote = (self.loaded_spec or {}).get("engine") == REMOTE
        batch = DeltaBatcher(send, interval=0.0 if remote else INTERVAL)

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
        engine = create_engine(name)
        try:
            self.fail_on_purpose()
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
        self.channel.send(
            {
                "type": protocol.NOTICE,
                "id": self.current_id,
                "kind": protocol.NOTICE_THREADS,
                "threads": threads,
                protocol.GRANT: grant,
                "at": time.monotonic(),
            }
        )
        return True

    def injected_fault(self) -> str:
        """How ``HEARTH_FAIL_LOAD_ON_RUNTIME`` (tests) makes this worker fail on the runtime
        it uses: "" (not at all), "fail", "crash", "sigill", "crash-reply" or
        "sigill-reply" (when a reply starts) or "sigill-delta" (once the reply's first words
        are sent)."""
        name, _, how = os.environ.get(runtimes.FAIL_LOAD_ENV, "").partition(":")
        if not name or self.runtime is None or self.runtime.name != name:
            return ""
        known = ("crash", "sigill", "crash-reply", "sigill-reply", "sigill-delta")
        return how if how in known else "fail"

    def fail_on_purpose(self) -> None:
        """Fail or crash while loading, as ``injected_fault`` says."""
        how = self.injected_fault()
        if how == "crash":
            os._exit(70)
        if how == "sigill":  # what a build for another processor does
            signal.raise_signal(signal.SIGILL)
        if how == "fail":
            raise EngineError(
                protocol.ERR_LOAD_FAILED,
                Phrase(
                    "The {0} runtime could not load the model (on purpose).",
                    self.runtime.name if self.runtime else "",
                ),
            )

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
