"""The wire protocol between Hearth and its worker process.

Why a protocol of its own: the engines (llama.cpp, torch) run in a separate process so
that a crash, a leak or a frozen native call can never take the window down with it.
The two sides exchange *newline-delimited JSON*, one UTF-8 object per line, over the
worker's stdin (requests) and a private duplicate of its stdout (events).  The worker
moves file descriptor 1 to its log file at start-up, so native code that prints to
stdout can never corrupt the channel.

Every request carries an ``id``; every event carries the ``id`` of the request it
answers.  The first exchange is ``hello``: the worker answers with its ``protocol``
version, and the client refuses a worker that speaks another version.

This module is shared by both sides (the ``wire`` room), so it imports the standard library
(and ``wire.text``) only.
"""

from __future__ import annotations

import json
from typing import IO, Any, Final

from wire.text import repaired

# 2: deltas carry reasoning apart; 3: embed; 4: threads, token counts in deltas, one rule
# for "this worker serves this spec" (``wire.model_spec.serves``)
PROTOCOL_VERSION: Final = 4

# Requests (client -> worker)
HELLO: Final = "hello"
LOAD: Final = "load"
CHAT: Final = "chat"
CANCEL: Final = "cancel"
COUNT_TOKENS: Final = "count_tokens"
EMBED: Final = "embed"  # {"input": [texts]} -> result {"embeddings", "prompt_tokens"}
UNLOAD: Final = "unload"
SHUTDOWN: Final = "shutdown"
# A control, read at once like ``cancel``: from its next token (or prompt slice) on, the
# engine uses ``threads`` CPU threads (the engine host shares the cores among workers).
# A computing request carries ``threads`` too.  Both carry ``grant``, the number of that
# share (increasing): a worker follows the newest grant it has seen, whatever order the
# messages came in, and its ``threads`` notice names the grant it applied.
THREADS: Final = "threads"
GRANT: Final = "grant"
REQUEST_TYPES: Final = frozenset(
    {HELLO, LOAD, CHAT, CANCEL, COUNT_TOKENS, EMBED, UNLOAD, SHUTDOWN, THREADS}
)

# A ``chat`` request carries ``messages`` (rendered with the model's template) or, for a
# completion, a raw ``prompt`` and optionally a ``suffix`` (fill-in-the-middle); its
# ``params`` may hold ``tools``/``tool_choice``, ``response_format``, ``logit_bias`` and the
# penalties as OpenAI names them.

# Events (worker -> client)
READY: Final = "ready"  # answer to hello
PROGRESS: Final = "progress"
LOADED: Final = "loaded"
NOTICE: Final = "notice"  # something the user should know, e.g. old turns were dropped
DELTA: Final = "delta"
STATS: Final = "stats"
DONE: Final = "done"
ERROR: Final = "error"
RESULT: Final = "result"  # answer to count_tokens / embed / unload
EVENT_TYPES: Final = frozenset({READY, PROGRESS, LOADED, NOTICE, DELTA, STATS, DONE, ERROR, RESULT})

# A delta carries ``text`` (the answer) and/or ``reasoning`` (a reasoning model's thinking):
# the worker splits ``<think>…</think>`` once, for every engine, so every front end gets the
# same split.  ``moved_to_reasoning: true`` says that the answer text sent so far was
# thinking after all (a template opened ``<think>`` without saying so, and only
# ``</think>`` showed it); a viewer moves it once.
DELTA_TEXT: Final = "text"
DELTA_REASONING: Final = "reasoning"
MOVED_TO_REASONING: Final = "moved_to_reasoning"

# A ``progress`` event while a long prompt is read (before the first token) carries how many
# of its tokens have been read so far, next to ``prompt_tokens``.
PROMPT_TOKENS_READ: Final = "prompt_tokens_read"
# A ``progress`` event while every slot of the model is busy: the request's place in the
# queue (1: next).
QUEUE_POSITION: Final = "queue_position"

# Token counts.  Every delta carries ``generated_tokens`` (the reply's tokens so far, a
# running total) and the first one ``prompt_tokens`` too, so that a client can say what a
# reply cost even when its worker dies before the ``stats`` event.
GENERATED_TOKENS: Final = "generated_tokens"
PROMPT_TOKENS: Final = "prompt_tokens"

# Notice kinds (``notice`` events).  A notice with a ``message`` is for the person; the
# others are facts for Hearth's own code.
NOTICE_RUNTIME_CHOSEN: Final = "runtime_chosen"  # runtime, forced: the host's, never shown
NOTICE_RUNTIME_SKIPPED: Final = "runtime"  # a GPU runtime that could not be used, and why
NOTICE_RUNTIME_FAILED: Final = "runtime_failed"  # runtime: trying the next one (the host's)
NOTICE_CONTEXT_TRIMMED: Final = "context_trimmed"  # old turns were left out
NOTICE_LOGPROB: Final = "logprob"  # one generated token's probabilities
NOTICE_STOP_SEQUENCE: Final = "stop_sequence"  # text: the request's stop string that ended it
NOTICE_FINAL_TEXT: Final = "final_text"  # text: the reply decoded in one piece (tests)
NOTICE_DECODE_FAILED: Final = "decode_failed"  # the context filled up or the backend failed
NOTICE_THREADS: Final = "threads"  # threads, grant, at: the CPU threads it uses from now on
NOTICE_KINDS: Final = frozenset(
    {
        NOTICE_RUNTIME_CHOSEN,
        NOTICE_RUNTIME_SKIPPED,
        NOTICE_RUNTIME_FAILED,
        NOTICE_CONTEXT_TRIMMED,
        NOTICE_LOGPROB,
        NOTICE_STOP_SEQUENCE,
        NOTICE_FINAL_TEXT,
        NOTICE_DECODE_FAILED,
        NOTICE_THREADS,
    }
)

# Flags of events.
FORCED: Final = "forced"  # runtime_chosen: the user chose it; done: the worker was killed
RETRY_WITHOUT_RUNTIME: Final = "retry_without_runtime"  # error: load it on another runtime
LOADED_NOW: Final = "loaded_now"  # loaded: this request loaded the model (not already there)
FINAL: Final = "final"  # loaded: false when a chat loaded its model on the way

# Events that end a request: after one of them no further event carries that id.
TERMINAL_EVENTS: Final = frozenset({READY, LOADED, DONE, ERROR, RESULT})

# Finish reasons carried by ``done``.
FINISH_STOP: Final = "stop"  # the model ended its turn
FINISH_LENGTH: Final = "length"  # max_tokens or the context was reached
FINISH_CANCELLED: Final = "cancelled"  # the user pressed Stop

# Error kinds carried by ``error``; the client adds ``worker_died`` itself.
ERR_BAD_REQUEST: Final = "bad_request"
ERR_MODEL_NOT_FOUND: Final = "model_not_found"
ERR_MODEL_INVALID: Final = "model_invalid"
ERR_LOAD_FAILED: Final = "load_failed"
ERR_NOT_LOADED: Final = "not_loaded"
ERR_CONTEXT_OVERFLOW: Final = "context_overflow"
ERR_OUT_OF_MEMORY: Final = "out_of_memory"
ERR_ENGINE: Final = "engine_error"
ERR_WORKER_DIED: Final = "worker_died"
ERR_PROTOCOL: Final = "protocol_mismatch"
# The transformers engine: the checkpoint needs the user's consent before its own code runs,
# or its weights are pickles the user has not allowed.
ERR_NEEDS_REMOTE_CODE: Final = "needs_remote_code"
ERR_PICKLE_REFUSED: Final = "pickle_refused"
# The remote engine (an OpenAI-compatible server).
ERR_CONNECTION_REFUSED: Final = "connection_refused"
ERR_UNAUTHORIZED: Final = "unauthorized"
ERR_TIMEOUT: Final = "timeout"
ERR_SERVER: Final = "server_error"
# The engine host: the model does not fit in the memory budget beside models in use.
ERR_NO_ROOM: Final = "no_room"
ERROR_KINDS: Final = frozenset(
    {
        ERR_BAD_REQUEST,
        ERR_MODEL_NOT_FOUND,
        ERR_MODEL_INVALID,
        ERR_LOAD_FAILED,
        ERR_NOT_LOADED,
        ERR_CONTEXT_OVERFLOW,
        ERR_OUT_OF_MEMORY,
        ERR_ENGINE,
        ERR_WORKER_DIED,
        ERR_PROTOCOL,
        ERR_NEEDS_REMOTE_CODE,
        ERR_PICKLE_REFUSED,
        ERR_CONNECTION_REFUSED,
        ERR_UNAUTHORIZED,
        ERR_TIMEOUT,
        ERR_SERVER,
        ERR_NO_ROOM,
    }
)

MAX_LINE_BYTES: Final = 64 * 1024 * 1024  # a whole conversation fits; a runaway line does not


class ProtocolError(ValueError):
    """A line that is not a valid protocol message."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as one line of UTF-8 JSON (no embedded newlines: JSON escapes them).
    A lone surrogate that slipped past the input policy becomes U+FFFD rather than an
    error that would look like a crash of the other process."""
    line = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        return line.encode() + b"\n"
    except UnicodeEncodeError:
        return repaired(line).text.encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """Parse one line; raise ProtocolError for anything that is not a typed JSON object."""
    if len(line) > MAX_LINE_BYTES:
        raise ProtocolError(f"message of {len(line)} bytes exceeds the limit")
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"not a JSON line: {exc}") from exc
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError("message is not an object with a 'type'")
    return message


def write_message(stream: IO[bytes], message: dict[str, Any]) -> None:
    """Write and flush one message.  Callers serialise writers with their own lock."""
    stream.write(encode(message))
    stream.flush()


def read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    """Read the next message; None at end of stream (the other side has gone)."""
    line = stream.readline(MAX_LINE_BYTES + 1)
    if not line:
        return None
    if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
        # Skip the rest of the runaway line, so that the next message is read whole.
        while (rest := stream.readline(1024 * 1024)) and not rest.endswith(b"\n"):
            pass
        raise ProtocolError(f"a message longer than {MAX_LINE_BYTES} bytes was skipped")
    return decode(line)
