"""Replies from the real worker process, with the real llama.cpp engine and the starter
model, through the engine host as a front end sends them (a seat)."""

import os
from pathlib import Path

import pytest

from app.engine.host import EngineHost
from app.engine.jobs import Job, next_job_id
from app.engine.process import WorkerProcess
from app.engine.seat import Seat
from tests.conftest import collect, kill_hard
from wire import protocol
from wire.model_spec import ModelSpec

pytestmark = pytest.mark.slow

LONG = {"temperature": 0.7, "max_tokens": 2000, "ignore_eos": True, "seed": 3}


def test_a_reply_streams_token_by_token_with_stats(client: Seat, spec: ModelSpec) -> None:
    job = client.chat(
        spec, [{"role": "user", "content": "What is 2+2?"}], {"temperature": 0, "max_tokens": 48}
    )
    text, events = collect(job)
    kinds = [e["type"] for e in events]
    assert kinds.count("delta") > 3, "the reply should arrive in many pieces"
    assert kinds[-2:] == ["stats", "done"]
    assert "4" in text or "four" in text.lower(), f"a broken template answers nonsense: {text!r}"
    stats = events[-2]
    assert stats["generated_tokens"] > 3 and stats["prompt_tokens"] > 5
    assert stats["tokens_per_s"] > 0 and stats["ttft_ms"] > 0  # measured, whatever the speed
    assert events[-1]["finish_reason"] in ("stop", "length")


def test_multibyte_text_streams_without_replacement_characters(
    client: Seat, spec: ModelSpec
) -> None:
    prompt = "Translate to Chinese and add emoji: I love red flowers 🌹🎉"
    job = client.chat(
        spec,
        [{"role": "user", "content": prompt}],
        {"temperature": 0, "max_tokens": 80, "final_text": True},
    )
    text, events = collect(job)
    final = next(e["text"] for e in events if e.get("kind") == "final_text")
    assert text
    assert "\ufffd" not in text
    assert text == final, "the streamed text must equal the reply decoded in one piece"
    assert any(ord(ch) > 0x2E7F for ch in text), f"expected multi-byte output, got {text!r}"


def test_cancel_stops_between_tokens(client: Seat, spec: ModelSpec) -> None:
    job = client.chat(spec, [{"role": "user", "content": "Tell me a long story."}], LONG)
    pieces = []
    for event in job.events(timeout=60):
        if event["type"] == "delta":
            pieces.append(event["text"])
            if len(pieces) == 5:
                job.cancel()
        if event["type"] == "done":
            break
    assert job.final is not None and job.final["finish_reason"] == "cancelled"
    assert not job.final.get("forced"), "the worker should honour cancel without being killed"
    assert len(pieces) < LONG["max_tokens"]  # it stopped long before the end
    # The same worker (same pid) keeps serving.
    pid = client.worker_pid
    text, _ = collect(client.chat(spec, [{"role": "user", "content": "Hi"}], {"max_tokens": 8}))
    assert text and client.worker_pid == pid


def test_a_killed_worker_is_reported_and_the_next_request_starts_a_new_one(
    client: Seat, spec: ModelSpec, expect_error_logs: None
) -> None:
    job = client.chat(spec, [{"role": "user", "content": "Tell me a long story."}], LONG)
    first_pid = None
    for event in job.events(timeout=60):
        if event["type"] == "delta" and first_pid is None:
            first_pid = client.worker_pid
            assert first_pid is not None
            kill_hard(first_pid)
    assert job.final is not None and job.final["kind"] == protocol.ERR_WORKER_DIED
    assert "stopped unexpectedly" in job.final["message"]
    text, events = collect(
        client.chat(spec, [{"role": "user", "content": "Hi"}], {"max_tokens": 8})
    )
    assert events[-1]["type"] == "done" and text
    assert client.worker_pid not in (None, first_pid)


def test_a_file_that_is_not_a_model_fails_to_load_and_the_engine_recovers(
    client: Seat, spec: ModelSpec, tmp_path: Path
) -> None:
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"GGUF" + os.urandom(4096))
    bad = ModelSpec(str(bogus), n_ctx=512, threads=2)
    job = client.load(bad)
    final = job.wait(60)
    assert final is not None and final["type"] == "error"
    assert final["kind"] == protocol.ERR_LOAD_FAILED and "bogus.gguf" in final["message"]
    text, _ = collect(client.chat(spec, [{"role": "user", "content": "Hi"}], {"max_tokens": 8}))
    assert text


def test_a_prompt_longer_than_the_context_is_refused_clearly(client: Seat, starter: Path) -> None:
    small = ModelSpec(str(starter), n_ctx=256, threads=2)
    job = client.chat(
        small, [{"role": "user", "content": "tell me about " * 400}], {"max_tokens": 16}
    )
    final = job.wait(60)
    assert final is not None and final["kind"] == protocol.ERR_CONTEXT_OVERFLOW
    assert "Shorten the message" in final["message"]


def test_a_long_conversation_drops_its_oldest_turns_and_says_so(
    client: Seat, starter: Path
) -> None:
    small = ModelSpec(str(starter), n_ctx=512, threads=2)
    messages = [{"role": "system", "content": "You are terse."}]
    for i in range(30):
        messages += [
            {"role": "user", "content": f"Fact number {i} is about rivers and hills."},
            {"role": "assistant", "content": f"Noted fact {i}."},
        ]
    messages.append({"role": "user", "content": "What is 2+2?"})
    text, events = collect(client.chat(small, messages, {"max_tokens": 24, "temperature": 0}))
    notice = next(e for e in events if e["type"] == "notice")
    assert notice["kind"] == "context_trimmed" and notice["dropped"] > 0
    assert events[-1]["type"] == "done" and text
    stats = next(e for e in events if e["type"] == "stats")
    assert stats["prompt_tokens"] <= 512


def test_native_prints_to_stdout_do_not_break_the_channel(
    client: Seat, starter: Path, data_dir: Path
) -> None:
    """verbose=True makes llama.cpp print its whole load report; the protocol must not care."""
    loud = ModelSpec(str(starter), n_ctx=512, threads=2)
    job = client.chat(loud, [{"role": "user", "content": "Hi"}], {"max_tokens": 8})
    done = job.wait(60)
    assert done is not None and done["type"] == "done"
    client.host.close()
    noisy = EngineHost(data_dir / "logs")
    wire = loud.to_wire() | {"verbose": True}  # not a field of ModelSpec: sent by hand
    worker = WorkerProcess(loud, noisy, noisy.log_dir)  # a bare worker, for a raw load
    probe = Job(next_job_id(), protocol.LOAD)
    worker.send(probe, {"type": protocol.LOAD, "id": probe.id, "model": wire})
    loaded = probe.wait(60)
    assert loaded is not None and loaded["type"] == "loaded"
    worker.stop(5.0)
    noisy.close()
    assert "llama" in (data_dir / "logs" / "worker.log").read_text(errors="replace").lower()


def test_the_worker_starts_through_the_app_entry_point_as_a_frozen_app_does(
    data_dir: Path, spec: ModelSpec
) -> None:
    """A frozen Hearth has no source tree: it runs itself with --worker."""
    import sys

    host = EngineHost(
        data_dir / "logs", worker_command=[sys.executable, "-m", "hearth", "--worker"]
    )
    try:
        text, events = collect(
            Seat(host).chat(spec, [{"role": "user", "content": "Hi"}], {"max_tokens": 8})
        )
        assert text and events[-1]["type"] == "done"
    finally:
        host.close()


def test_stop_during_a_long_prompt_does_not_wait_for_the_whole_prompt(
    client: Seat, starter: Path
) -> None:
    big = ModelSpec(str(starter), n_ctx=8192, threads=2)
    words = " ".join(f"item{i}" for i in range(1200))  # about 4,000 tokens: many slices
    prompt = [{"role": "user", "content": f"Summarise this list: {words}"}]
    job = client.chat(big, prompt, {"max_tokens": 1})
    read: list[int] = []
    total = 0
    for event in job.events(timeout=300):
        if event["type"] == "progress" and event.get(protocol.PROMPT_TOKENS_READ):
            read.append(int(event[protocol.PROMPT_TOKENS_READ]))
            total = int(event["prompt_tokens"])
            if len(read) == 1:
                job.cancel()  # while the prompt is being read
    final = job.final
    assert final is not None and final.get("finish_reason") == "cancelled"
    assert not final.get("forced"), "the worker should stop between slices, not be killed"
    assert read and read[-1] < total, "it stopped part-way through the prompt"
    # The engine is intact: a new question is answered sensibly.
    text, _ = collect(
        client.chat(
            big, [{"role": "user", "content": "What is 2+2?"}], {"max_tokens": 24, "temperature": 0}
        )
    )
    assert "4" in text or "four" in text.lower()


def test_a_reply_cut_at_the_limit_continues_where_it_stopped(client: Seat, spec: ModelSpec) -> None:
    question = {"role": "user", "content": "Name three primary colors."}
    params = {"temperature": 0, "max_tokens": 6}
    first, _ = collect(client.chat(spec, [question], params))
    assert first.strip()
    partial = {"role": "assistant", "content": first}
    more, events = collect(
        client.chat(spec, [question, partial], {"temperature": 0, "max_tokens": 12}, None, True)
    )
    assert events[-1]["type"] == "done" and more.strip()
    # It goes on from the cut (the same words the whole answer goes on with), rather than
    # starting the answer again.  (Token boundaries at the cut may differ slightly.)
    assert not more.lstrip().startswith(first.strip()[:10])
    whole, _ = collect(client.chat(spec, [question], {"temperature": 0, "max_tokens": 18}))
    rest = set(whole[len(first) :].split())
    assert rest & set(more.split()), (first, more, whole)


def test_cancelling_a_waiting_request_leaves_the_running_one_alone(
    client: Seat, spec: ModelSpec
) -> None:
    """A request still queued behind another is answered "cancelled" at once (an API
    client that went away), and the reply being generated goes on in the same worker."""
    running = client.chat(spec, [{"role": "user", "content": "Tell me a long story."}], LONG)
    waiting = client.chat(spec, [{"role": "user", "content": "Hi"}], {"max_tokens": 8})
    first = next(e for e in running.events(timeout=120) if e["type"] == "delta")
    assert first["text"]
    pid = client.worker_pid
    waiting.cancel()
    final = waiting.wait(60)
    assert final is not None and final["finish_reason"] == "cancelled"
    assert not running.finished, "the running reply was not disturbed"
    running.cancel()
    assert running.wait(60) is not None and not (running.final or {}).get("forced")
    assert client.worker_pid == pid, "the worker was not killed"


def test_a_stop_that_overtakes_its_request_still_ends_it(host: EngineHost, spec: ModelSpec) -> None:
    """Stop pressed just as a request is let through to the worker can reach the worker
    before the request itself: the request is answered "cancelled" without running, so
    its reply never hangs (and the model is never loaded for it)."""
    worker = WorkerProcess(spec, host, host.log_dir)  # a bare worker, for raw messages
    job = Job(next_job_id(), protocol.CHAT)
    worker.control({"type": protocol.CANCEL, "id": None, "target": job.id})
    hi = [{"role": "user", "content": "Hi"}]
    worker.send(job, {"type": protocol.CHAT, "id": job.id, "model": spec.to_wire(), "messages": hi})
    final = job.wait(60)
    assert final is not None and final["finish_reason"] == "cancelled", final
    assert not worker.model_loaded
    worker.stop(5.0)


def test_a_runtime_avoided_later_does_not_reload_a_worker_running_another(
    client: Seat, host: EngineHost, spec: ModelSpec
) -> None:
    """A runtime that failed the model (here a GPU runtime, for these settings) is skipped
    by every later request; the worker that already runs the model on another keeps serving
    it: the same process, and the model is not loaded again."""
    hi = [{"role": "user", "content": "Hi"}]
    first = list(client.chat(spec, hi, {"max_tokens": 4}).events(timeout=300))
    assert first[-1]["type"] == "done"
    pid = client.worker_pid
    routed = host.avoided.add(spec, "vulkan")
    assert routed.skip_runtimes == ("vulkan",), "later requests skip it"
    second = list(client.chat(spec, hi, {"max_tokens": 4}).events(timeout=300))
    assert second[-1]["type"] == "done"
    assert client.worker_pid == pid, "the same worker"
    assert not [e for e in second if e["type"] == "loaded"], "the model was not loaded again"
