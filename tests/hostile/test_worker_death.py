"""Class 18: one request that kills the worker takes no other request with it, and is not
blamed on the model file.

A request that waited in the worker's queue did nothing to it: when the worker dies it
is sent to a new worker (once) and answered.  The request the worker was on is told the
engine stopped; when the model had loaded fine, the sentence points at the request (a huge
schema, grammar or prompt), not at a damaged file.
"""

from __future__ import annotations

import time
from dataclasses import replace

import psutil
import pytest

from app.engine import hosted as hosted_module
from app.engine.faults import worker_died
from app.engine.host import EngineHost
from app.engine.jobs import Job, next_job_id
from app.engine.seat import Seat
from app.engine.stuck import STALL_S
from tests.conftest import collect, kill_hard
from wire import protocol
from wire.model_spec import ModelSpec

LONG = {"temperature": 0.7, "max_tokens": 2000, "ignore_eos": True, "seed": 3}


def _streaming(client: Seat, spec: ModelSpec) -> Job:
    """A long reply, once its first words have come."""
    running = client.chat(spec, [{"role": "user", "content": "Tell me a story."}], LONG)
    for event in running.events(timeout=600):
        if event["type"] == "delta":
            break
    return running


def test_a_death_before_the_reply_with_the_model_loaded_blames_the_request() -> None:
    job = Job(next_job_id(), protocol.CHAT)
    said = worker_died(job, -11, model_loaded=True)["message"]
    assert "damaged" not in said and "request" in said
    first_load = worker_died(Job(next_job_id(), protocol.CHAT), -11)["message"]
    assert "damaged" in first_load  # a model that never loaded: the file may be the cause


@pytest.mark.slow
def test_a_request_waiting_in_a_worker_that_dies_is_answered_by_a_new_one(
    client: Seat, spec: ModelSpec, expect_error_logs: None
) -> None:
    one_slot = replace(spec, parallel=1)
    running = _streaming(client, one_slot)
    pid = client.worker_pid
    assert pid is not None
    waiting = client.chat(one_slot, [{"role": "user", "content": "Hi"}], {"max_tokens": 8})
    deadline = time.monotonic() + 600
    while waiting.worker is None and not waiting.finished and time.monotonic() < deadline:
        time.sleep(0.01)  # until it is in the worker's own queue
    assert waiting.worker is not None and waiting.first_delta_at is None  # not begun
    kill_hard(pid)

    assert running.wait(600) is not None
    assert running.final is not None and running.final["kind"] == protocol.ERR_WORKER_DIED
    text, events = collect(waiting)
    assert events[-1]["type"] == "done", events[-1]
    assert text and client.worker_pid not in (None, pid)


@pytest.mark.slow
def test_a_worker_that_grows_far_past_its_model_is_stopped_and_says_why(
    client: Seat, host: EngineHost, spec: ModelSpec, monkeypatch: pytest.MonkeyPatch,
    expect_error_logs: None,
) -> None:  # fmt: skip
    running = _streaming(client, spec)
    # As if a tenth of what it took once loaded were all it may use: it is then far past.
    monkeypatch.setattr(hosted_module, "GROWTH_FACTOR", 0.1)
    monkeypatch.setattr(hosted_module, "GROWTH_ALLOWANCE", 0)
    host.sweep()
    assert running.wait(600) is not None and running.final is not None
    assert running.final["kind"] == protocol.ERR_WORKER_DIED
    assert "far more than its model needs" in running.final["message"]
    assert "may have asked for too much" in running.final["message"], "no schema blamed"


def test_a_grown_worker_is_said_to_have_grown_by_what_its_requests_asked() -> None:
    """Sixteen pictures once grew a worker past its bound, and the sentence blamed "a
    very large schema or grammar": the cause named is what the requests held."""
    from app.engine.faults import heavy_asks
    from wire import images

    picture = images.content("Compare", [b"\x89PNG one", b"\x89PNG two"])
    pictures = {"messages": [{"role": "user", "content": picture}], "params": {}}
    schema = {"messages": [], "params": {"response_format": {"type": "json_object"}}}
    assert "held 2 pictures" in str(heavy_asks([pictures, schema]))
    assert "schema or grammar" in str(heavy_asks([schema]))
    assert heavy_asks([{"messages": [{"role": "user", "content": "hi"}]}]) is None


@pytest.mark.slow
def test_a_stalled_worker_is_stopped_and_the_next_request_gets_a_new_one(
    client: Seat, host: EngineHost, spec: ModelSpec, expect_error_logs: None
) -> None:
    host.stall_s = 2.0  # no event and no CPU time for this long with a reply in flight
    running = _streaming(client, spec)
    pid = client.worker_pid
    assert pid is not None
    worker = psutil.Process(pid)
    for process in (worker, *worker.children(recursive=True)):  # a venv launcher's child too
        process.suspend()  # as kill -STOP, or a driver that hangs
    assert running.wait(600) is not None and running.final is not None
    assert running.final["kind"] == protocol.ERR_WORKER_DIED
    assert "stopped responding" in running.final["message"]
    host.stall_s = STALL_S  # the next worker is watched as always
    text, events = collect(
        client.chat(spec, [{"role": "user", "content": "Hi"}], {"max_tokens": 8})
    )
    assert events[-1]["type"] == "done" and text
    assert client.worker_pid not in (None, pid)
