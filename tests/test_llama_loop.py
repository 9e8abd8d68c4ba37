"""The llama.cpp token loop (llama.cpp's sampler chain, prompt-lookup decoding) through
the real worker and the starter model."""

import json
import subprocess
import sys
from typing import Any

import pytest

from app.engine.seat import Seat
from tests.conftest import REPO, collect
from wire.model_spec import ModelSpec

pytestmark = pytest.mark.slow

# A task the starter model answers by quoting the prompt (measured: most of its reply).
QUOTE = (
    "Fix the typo in this sentence and write the whole sentence again: 'The quick brown fox "
    "jumsp over the lazy dog near the river bank on a sunny afternoon in the month of May.'"
)
GREEDY = {"temperature": 0, "max_tokens": 64}


def reply(client: Seat, spec: ModelSpec, prompt: str, **params: Any) -> Any:
    text, events = collect(client.chat(spec, [{"role": "user", "content": prompt}], params))
    assert events[-1]["type"] == "done", events[-1]
    stats = next(e for e in events if e["type"] == "stats")
    return text, stats


def test_prompt_lookup_gives_the_same_reply_in_fewer_steps(client: Seat, spec: ModelSpec) -> None:
    plain, plain_stats = reply(client, spec, QUOTE, **GREEDY, prompt_lookup=False)
    # "always": every match is checked, whatever this machine's timings say it costs
    # (how much is drafted otherwise is a matter of speed, which a test does not assert).
    drafted, stats = reply(client, spec, QUOTE, **GREEDY, prompt_lookup="always")
    assert drafted == plain, "guessed tokens must never change the reply"
    assert plain_stats["drafted_tokens"] == 0
    assert stats["accepted_draft_tokens"] > 5, stats
    assert stats["generated_tokens"] == plain_stats["generated_tokens"]
    assert stats["runtime"] == "cpu"


def test_a_seeded_sampled_reply_with_drafts_is_reproducible(client: Seat, spec: ModelSpec) -> None:
    """Sampling checks each guess against a draw from its own position's distribution.
    (A batch is evaluated in another order than one token at a time, so a near tie may
    round the other way than without drafts: equality is asserted for greedy above.)"""
    params = {"temperature": 0.8, "seed": 11, "max_tokens": 48}
    first, stats = reply(client, spec, QUOTE, **params, prompt_lookup=True)
    again, _ = reply(client, spec, QUOTE, **params, prompt_lookup=True)
    assert first == again
    assert stats["drafted_tokens"] > 0


def test_a_seed_does_not_carry_over_to_later_requests(client: Seat, spec: ModelSpec) -> None:
    prompt = "Tell me about the sea."
    params = {"temperature": 1.0, "max_tokens": 40, "ignore_eos": True}
    seeded, _ = reply(client, spec, prompt, **params, seed=7)
    again, _ = reply(client, spec, prompt, **params, seed=7)
    assert seeded == again, "one seed gives one reply"
    unseeded = [reply(client, spec, prompt, **params)[0] for _ in range(2)]
    assert seeded not in unseeded and unseeded[0] != unseeded[1]


def test_a_stop_string_ends_the_reply_before_it(client: Seat, spec: ModelSpec) -> None:
    whole, _ = reply(client, spec, QUOTE, **GREEDY)
    words = whole.split()
    assert len(words) > 6, whole
    stop = f" {words[5]}"
    cut, stats = reply(client, spec, QUOTE, **GREEDY, stop=[stop])
    assert cut == whole[: whole.index(stop)]
    assert stats["generated_tokens"] < len(whole) // 2


def test_a_grammar_constrains_the_reply(client: Seat, spec: ModelSpec) -> None:
    text, _ = reply(
        client,
        spec,
        "Is the sky green? Answer yes or no.",
        **GREEDY,
        grammar='root ::= "yes" | "no"',
    )
    assert text in ("yes", "no")


def test_a_broken_grammar_is_refused_with_a_reason(client: Seat, spec: ModelSpec) -> None:
    job = client.chat(
        spec, [{"role": "user", "content": "Hi"}], {**GREEDY, "grammar": "root ::= ("}
    )
    _text, events = collect(job)
    assert events[-1]["type"] == "error"
    assert "grammar" in events[-1]["message"]
    # The engine is still there for the next request.
    text, _ = reply(client, spec, "Hi", **GREEDY)
    assert text


@pytest.mark.parametrize(
    "params",
    [
        {"temperature": 0, "repeat_penalty": 1.5},
        {"temperature": 0.9, "top_k": 40, "top_p": 0.95, "seed": 5, "repeat_penalty": 1.3},
    ],
)
def test_the_repeat_penalty_on_the_highest_logits_only_picks_the_same_tokens(
    spec: ModelSpec, params: dict[str, Any]
) -> None:
    """The penalty sees only the logits that can still win (a prefilter that makes it
    3 times cheaper): every token is the one the full penalty over the whole vocabulary
    picks, greedy and sampled alike."""
    result = subprocess.run(
        [sys.executable, "-m", "tests.tools.sampler_twins", spec.path, json.dumps(params)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    twins = json.loads(result.stdout.splitlines()[-1])
    assert len(twins["prefiltered"]) == 48
    assert twins["prefiltered"] == twins["exact"]
