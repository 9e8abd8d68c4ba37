"""Several replies at once from one llama.cpp worker (slots: continuous batching), and the
prompt cache, with the real worker, the real engine and the starter model."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.engine.jobs import Job
from app.engine.seat import Seat
from tests.conftest import REPO, collect, until
from wire import protocol
from wire.model_spec import ModelSpec

pytestmark = pytest.mark.slow

CAT = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "legs": {"type": "integer"}},
    "required": ["name", "legs"],
}
# Four requests unlike each other: greedy, seeded, a stop string, a JSON schema; lengths.
FOUR: list[tuple[str, dict[str, Any]]] = [
    ("Tell me about the sea.", {"temperature": 0, "max_tokens": 48, "ignore_eos": True}),
    ("Name three colours.", {"temperature": 0.8, "seed": 5, "max_tokens": 30}),
    (
        "List the days of the week, one per line.",
        {"temperature": 0, "max_tokens": 64, "stop": ["Thursday"]},
    ),
    (
        "Describe a cat.",
        {
            "temperature": 0,
            "max_tokens": 60,
            "response_format": {"type": "json_schema", "json_schema": {"schema": CAT}},
        },
    ),
]


@pytest.fixture
def slotted(spec: ModelSpec) -> ModelSpec:
    return replace(spec, parallel=4)


class Timeline:
    """Every job's events in the order the worker sent them (one reader thread delivers
    them all), to tell replies that streamed at the same time from ones in turn."""

    def __init__(self) -> None:
        self.events: list[tuple[int, dict[str, Any]]] = []
        self._ended: dict[int, threading.Event] = {}
        self._lock = threading.Lock()

    def watcher(self, number: int) -> Any:
        ended = self._ended[number] = threading.Event()

        def seen(event: dict[str, Any]) -> None:
            with self._lock:
                self.events.append((number, event))
            if event["type"] in protocol.TERMINAL_EVENTS:
                ended.set()

        return seen

    def answer(self, number: int) -> str:
        assert self._ended[number].wait(300), f"reply {number} did not end"
        mine = [e for n, e in self.events if n == number]
        assert mine[-1]["type"] == "done", mine[-1]
        return "".join(e.get("text", "") for e in mine if e["type"] == "delta")

    def overlapped(self, a: int, b: int) -> bool:
        """``a`` and ``b`` each streamed words before the other was done."""

        def first(number: int, kind: str) -> int:
            return next(
                i for i, (n, e) in enumerate(self.events) if n == number and e["type"] == kind
            )

        return first(a, "delta") < first(b, "done") and first(b, "delta") < first(a, "done")


def ask(
    client: Seat, spec: ModelSpec, prompt: str, params: dict[str, Any], on_event: Any = None
) -> Job:
    return client.chat(spec, [{"role": "user", "content": prompt}], dict(params), on_event)


def answer(job: Job) -> tuple[str, list[dict[str, Any]]]:
    text, events = collect(job)
    assert events[-1]["type"] == "done", events[-1]
    return text, events


def test_four_requests_at_once_each_get_the_reply_they_get_alone(
    client: Seat, slotted: ModelSpec
) -> None:
    alone = [answer(ask(client, slotted, prompt, params))[0] for prompt, params in FOUR]
    timeline = Timeline()
    jobs = [
        ask(client, slotted, prompt, params, timeline.watcher(number))
        for number, (prompt, params) in enumerate(FOUR)
    ]
    assert len(jobs) == len(FOUR)
    together = [timeline.answer(number) for number in range(len(FOUR))]
    assert together == alone
    assert "Wednesday" in together[2] and "Thursday" not in together[2], "its stop string"
    assert json.loads(together[3])["legs"] >= 0, "the schema held beside the others"
    assert timeline.overlapped(0, 2), "the replies streamed at the same time, not in turn"


def test_a_step_of_four_replies_is_one_pass_over_the_model(starter: Path) -> None:
    """Four replies at once cost one pass over the model's weights a step, whatever order
    their slots joined the batch in (llama.cpp splits a batch whose sequences are out of
    order into several passes: four replies ran at 0.7 of llama-server's speed)."""
    counted = subprocess.run(
        [sys.executable, "-m", "tests.tools.batch_passes", str(starter)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=REPO,
    )
    assert counted.returncode == 0, counted.stderr
    assert json.loads(counted.stdout.splitlines()[-1]) == {"prompts": 1, "tokens": 1}


def test_stopping_one_reply_leaves_the_others_as_they_are(client: Seat, slotted: ModelSpec) -> None:
    long = {"temperature": 0, "max_tokens": 64, "ignore_eos": True}
    prompts = ["Tell me about the sea.", "Tell me about the moon.", "Tell me about trees."]
    alone = [answer(ask(client, slotted, prompt, long))[0] for prompt in prompts[1:]]
    jobs = [ask(client, slotted, prompt, long) for prompt in prompts]
    deltas = 0
    for event in jobs[0].events(timeout=300):
        if event["type"] == "delta":
            deltas += 1
            if deltas == 3:
                jobs[0].cancel()
        if event["type"] == "done":
            assert event["finish_reason"] == protocol.FINISH_CANCELLED
    assert [answer(job)[0] for job in jobs[1:]] == alone


def test_a_request_beyond_the_slots_waits_its_turn_and_then_runs(
    client: Seat, spec: ModelSpec
) -> None:
    two = replace(spec, parallel=2)
    params = {"temperature": 0, "max_tokens": 40, "ignore_eos": True}
    prompts = ["Tell me about the sea.", "Tell me about the moon.", "Name three colours."]
    last_alone = answer(ask(client, two, prompts[2], params))[0]
    jobs = [ask(client, two, prompt, params) for prompt in prompts]
    next(e for e in jobs[0].events(timeout=300) if e["type"] == "delta")
    # The three reach the worker in turn through the host's thread: wait for the third.
    until(lambda: [m.replies for m in client.host.loaded()] == [3], 300, "all three sent")
    (loaded,) = client.host.loaded()
    assert (loaded.slots, loaded.replies, loaded.waiting) == (2, 3, 1), "as Loaded models shows"
    text, events = answer(jobs[2])
    # Told its place as it changes (2 first, when the one before it was still preparing
    # its prompt), never further back, and next before its turn.
    places = [e[protocol.QUEUE_POSITION] for e in events if e.get(protocol.QUEUE_POSITION)]
    assert places and places[-1] == 1, "it was told it waits, and where"
    assert places == sorted(places, reverse=True)
    assert text == last_alone
    for job in jobs[:2]:
        answer(job)


def test_a_conversation_comes_back_from_the_prompt_cache_after_another_ran(
    client: Seat, spec: ModelSpec
) -> None:
    """One slot: the other conversation takes it, and the first one's state is kept."""
    one = replace(spec, parallel=1)
    greedy = {"temperature": 0, "max_tokens": 16}
    facts = " ".join(f"Box {i} is {['red', 'blue', 'green'][i % 3]}." for i in range(80))
    first = [{"role": "user", "content": f"{facts} Which colour is box 7?"}]
    reply, events = answer(client.chat(one, first, greedy))
    cold = next(e for e in events if e["type"] == "stats")
    answer(client.chat(one, [{"role": "user", "content": "Tell me a joke."}], greedy))
    follow_up = [
        *first,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": "And box 8?"},
    ]
    _, events = answer(client.chat(one, follow_up, greedy))
    stats = next(e for e in events if e["type"] == "stats")
    read = stats["prompt_tokens"] - stats["cached_prompt_tokens"]
    assert stats["cached_prompt_tokens"] >= cold["prompt_tokens"], stats
    assert read < 40, f"only the new turn is read, not {read} tokens"


def test_a_regenerate_finds_its_prompt_in_its_slot(client: Seat, slotted: ModelSpec) -> None:
    """The slot holding the prompt and the reply being replaced is the one taken, not an
    empty one: only the prompt's last token is read again."""
    params = {"temperature": 0.7, "max_tokens": 64, "ignore_eos": True}  # longer than the prompt
    answer(ask(client, slotted, "Tell me about the sea.", params))
    _, events = answer(ask(client, slotted, "Tell me about the sea.", params))
    stats = next(e for e in events if e["type"] == "stats")
    assert stats["cached_prompt_tokens"] == stats["prompt_tokens"] - 1, stats
