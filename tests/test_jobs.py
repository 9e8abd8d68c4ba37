"""A request in flight (``app.engine.jobs.Job``): whoever ends it (its worker, a Stop, a
fault), its listener hears exactly one end, and what it held is given back once."""

from __future__ import annotations

import threading
from typing import Any

from app.engine.jobs import Job
from wire import protocol


def test_a_request_ended_from_two_threads_at_once_ends_once() -> None:
    """A Stop answered by the host while the worker answers it too: the listener hears
    one end, and the cleanup runs once."""
    heard: list[dict[str, Any]] = []
    listening, go_on = threading.Event(), threading.Event()

    def listener(event: dict[str, Any]) -> None:
        heard.append(event)
        if len(heard) == 1:
            listening.set()
            go_on.wait(10)

    job = Job(1, protocol.CHAT, listener)
    cleaned: list[int] = []
    job.on_finish.append(lambda ended: cleaned.append(ended.id))
    stopped = {"type": protocol.DONE, "id": 1, "finish_reason": protocol.FINISH_CANCELLED}
    failed = {"type": protocol.ERROR, "id": 1, "kind": protocol.ERR_WORKER_DIED}
    first = threading.Thread(target=job.deliver, args=(stopped,))
    first.start()
    assert listening.wait(10)
    second = threading.Thread(target=job.deliver, args=(failed,))
    second.start()
    second.join(1.0)  # it has had its chance to slip in beside the first
    go_on.set()
    first.join(10)
    second.join(10)
    assert heard == [stopped] and job.final == stopped
    assert cleaned == [1]


def test_a_stopped_embedding_or_load_ends_too() -> None:
    """Stop answers any request ``done`` (cancelled): embeddings, token counts and loads
    end with it rather than waiting for an answer that never comes."""
    for kind in (protocol.EMBED, protocol.COUNT_TOKENS, protocol.LOAD):
        job = Job(2, kind)
        job.deliver({"type": protocol.DONE, "id": 2, "finish_reason": protocol.FINISH_CANCELLED})
        assert job.finished and job.wait(0) is not None, kind
