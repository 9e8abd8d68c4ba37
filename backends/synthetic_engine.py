"""A scripted engine: replays a text file as a fast stream of deltas.

Why it exists: the window's cost per token must be measured without a model's own cost
in the way (``hearth bench`` streams a 20,000-token Markdown reply through it), and tests
need exact deltas (a ``<think>`` tag split across two of them, a code fence left open
mid-stream) through the real worker and protocol.  It is never offered to users.

The script is the file at the spec's ``path``.  A line ``<<<delta>>>`` in it marks the
exact places where deltas end; without such marks the text is cut every ``chunk_chars``
characters (request parameter, default 4: about one token).  ``delay_s`` waits between
deltas, or ``tokens_per_s`` paces them like an engine of that speed; ``max_tokens`` cuts
the reply (finish reason "length"), and ``stop`` strings end it as in the real engines
(held back across deltas until decided).  Stop is honoured between deltas.

A script of several replies, for a reply that calls tools and reads their results, puts
``<<<round>>>`` lines between them: a request gets the reply numbered by how many rounds
of tool calls its conversation has had since the user's last message (the last reply
once they run out).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from backends.context_budget import continues_reply, stats_event
from backends.engine import Emit, EngineError, Progress
from backends.job_control import JobControl
from backends.text_stream import TextAssembler, request_stops, stop_notice
from wire import protocol
from wire.defaults import CONTEXT_TOKENS
from wire.model_spec import SYNTHETIC

MARK = "<<<delta>>>\n"
ROUND = "<<<round>>>\n"


class SyntheticEngine:
    def __init__(self) -> None:
        self.script = ""
        self.n_ctx = CONTEXT_TOKENS

    def load(self, spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
        path = Path(str(spec["path"]))
        try:
            self.script = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise EngineError(protocol.ERR_MODEL_INVALID, f"{path.name}: {exc}") from exc
        self.n_ctx = int(spec.get("n_ctx") or CONTEXT_TOKENS)
        progress(1.0, "Ready")
        return {"n_ctx": self.n_ctx, "engine": SYNTHETIC, "name": path.stem}

    def deltas(self, chunk_chars: int, round_number: int = 0) -> list[str]:
        rounds = self.script.split(ROUND)
        script = rounds[min(round_number, len(rounds) - 1)]
        if MARK in script:
            return [piece for piece in script.split(MARK) if piece]
        size = max(chunk_chars, 1)
        return [script[i : i + size] for i in range(0, len(script), size)]

    def chat(self, request: dict[str, Any], control: JobControl, emit: Emit) -> str:
        started = time.perf_counter()
        params = request.get("params") or {}
        messages = list(request.get("messages") or [])
        deltas = self.deltas(int(params.get("chunk_chars") or 4), _tool_rounds(messages))
        if continues_reply(request, messages):
            deltas = ["(continued)"]
        delay = float(params.get("delay_s") or 0.0)
        rate = float(params.get("tokens_per_s") or 0.0)
        limit = int(params.get("max_tokens") or 0)
        prompt_tokens = sum(self.count_tokens(str(m.get("content", ""))) for m in messages)
        first_at: float | None = None
        generated = 0
        finish = protocol.FINISH_STOP
        assembler = TextAssembler(request_stops(params.get("stop")), strip_leading=False)
        control.tokens(prompt_tokens, 0)
        for delta in deltas:
            control.checkpoint()
            if control.cancelled():
                finish = protocol.FINISH_CANCELLED
                break
            if limit and generated >= limit:
                finish = protocol.FINISH_LENGTH
                break
            if delay:
                time.sleep(delay)
            elif rate:
                wait = started + generated / rate - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
            first_at = first_at or time.perf_counter()
            text = assembler.feed(delta.encode("utf-8"))
            if text:
                emit({"type": protocol.DELTA, "text": text})
            generated += 1
            control.tokens(prompt_tokens, generated)
            if assembler.stopped:
                break
        rest = assembler.finish()
        if rest:
            emit({"type": protocol.DELTA, "text": rest})
        notice = stop_notice(assembler, request_stops(params.get("stop")))
        if notice:
            emit(notice)
        now = time.perf_counter()
        emit(stats_event(prompt_tokens, generated, started, first_at, now, now))
        return finish

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4) if text else 0

    def close(self) -> None:
        self.script = ""


def _tool_rounds(messages: list[dict[str, Any]]) -> int:
    """How many rounds of tool calls came after the user's last message."""
    rounds = 0
    for message in reversed(messages):
        if message.get("role") == "user":
            break
        if message.get("role") == "assistant" and message.get("tool_calls"):
            rounds += 1
    return rounds
