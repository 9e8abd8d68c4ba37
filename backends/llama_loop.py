"""The pieces of the llama.cpp token loop at C speed: llama.cpp's own sampler chain, the
prompt-lookup drafter, the prompt's pacing (the loop itself is ``backends.slots``).

Why not ``Llama.generate``: for every token it copies the logits row (the whole vocabulary)
into numpy and runs its sampling bookkeeping in Python, about 1 ms per token, which is
10-20 % of the speed on a GPU.  Here each token costs a handful of C calls: its share of a
``llama_decode``, ``llama_sampler_sample`` (the chain: bias, repeat penalty, grammar, top-k,
top-p, min-p, temperature, the seeded draw, all in C on the context's own logits) and
``llama_token_to_piece``.  Nothing per token is copied into Python but the token's bytes.

Prompt-lookup decoding (``NgramDrafter``) guesses the next tokens from an earlier place in
the prompt or the reply where the last tokens occurred, and checks the guesses in one
batch: tasks that repeat their input (editing code, quoting, translating names) get several
tokens per decode.  Every token is still drawn by the sampler chain from its own
position's logits, so the reply is the one the model would give without drafting (up to
the rounding of a batch against single tokens, which may flip a near tie).

The sampler chain is built for each request, so nothing (seed, grammar, penalties, bias)
carries over from one request to the next.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from typing import Any

from backends.engine import EngineError
from backends.sampling import token_bias
from wire import protocol
from wire.phrases import Phrase

# llama-cpp-python's default for the repeat penalty's window (last_n_tokens_size).
PENALTY_WINDOW = 64
# Draft at most this many tokens per check; the batch holds that many plus the last token.
DRAFT_MAX = 16
# Before a batch has been timed, a guess is assumed to cost this share of a one-token decode.
PRIOR_GUESS_COST = 0.25
# Before any guess was checked: as if 3 of 4 guesses had been right.
PRIOR_RIGHT, PRIOR_WRONG = 3.0, 1.0
# Each check's weight fades by this factor, so the estimate follows the reply's phases.
ACCEPT_MEMORY = 0.8
# When drafting does not pay, one guess is still checked after this many skipped matches,
# so that a reply that starts repeating its input is noticed.
EXPLORE_EVERY = 16
TIMING_SMOOTHING = 0.2
# A draft is made only from a match of this many tokens (2 finds too many chance matches).
NGRAM_SIZES = (4, 3)

# A prompt is read in slices of this many tokens, or of more where they take less than this
# long (``PrefillPacer``).
PREFILL_FIRST = 128
PREFILL_SECONDS = 0.5

# Returned by the per-token callback to go on.
CONTINUE = None


class GrammarRefused(ValueError):
    """llama.cpp could not parse a request's GBNF grammar."""


class GrammarTooSlow(EngineError):
    """Following a request's grammar took longer than ``GRAMMAR_STEP_S`` for one token:
    the grammar reads its text in too many ways at once (the sampler is busy, not
    progressing), so the request ends in words and the model's other replies go on."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            protocol.ERR_BAD_REQUEST,
            Phrase(
                "The request's schema or grammar took {0:.1f} seconds to follow for one token, "
                "so it was stopped. Make it simpler (fewer repetitions inside repetitions).",
                seconds,
            ),
        )


# A grammar's draw takes milliseconds; this is a thousand times that (tests set it lower).
GRAMMAR_STEP_S = float(os.environ.get("HEARTH_GRAMMAR_STEP_S") or 10.0)


def _penalty_prefilter(lowers_only: bool, temperature: float, top_k: int, grammar: bool) -> int:
    """How many of the highest logits the penalties need to see (0: all of them).

    The penalties look each candidate up in their window: over a whole vocabulary that is a
    hash lookup per token (0.15 ms of a 6 ms token with a 49k vocabulary).  Penalties that
    only lower logits (a repeat penalty above 1, frequency and presence penalties of 0 or
    more) touch at most ``PENALTY_WINDOW`` tokens, so the token greedy decoding picks is
    among the ``PENALTY_WINDOW + 1`` highest, and the ``top_k`` that sampling keeps are
    among the ``top_k + PENALTY_WINDOW`` highest: the same choice (up to exactly equal
    logits, which may be ordered otherwise), from far fewer candidates.  A grammar must see
    every candidate; a penalty that raises logits may lift any of them; sampling without
    top-k weighs the whole vocabulary."""
    if not lowers_only or grammar:
        return 0
    if temperature <= 0:
        return PENALTY_WINDOW + 1
    return top_k + PENALTY_WINDOW if top_k > 0 else 0


class SamplerChain:
    """llama.cpp's sampler chain for one request (freed with ``close``)."""

    def __init__(
        self,
        lib: Any,
        vocab: Any,
        n_vocab: int,
        params: dict[str, Any],
        banned: Sequence[int] = (),
        prefilter: bool = True,
    ) -> None:
        self._lib = lib
        self._prefilter = prefilter
        self.grammar = bool(params.get("grammar"))  # its draws are watched for their time
        self.chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        try:
            self._build(lib, vocab, n_vocab, params, banned)
        except BaseException:
            self.close()
            raise

    def _build(
        self, lib: Any, vocab: Any, n_vocab: int, params: dict[str, Any], banned: Sequence[int]
    ) -> None:
        add = self._add
        bias = dict(token_bias(params.get("logit_bias"), n_vocab))
        bias.update({token: float("-inf") for token in banned})
        if bias:
            entries = (lib.llama_logit_bias * len(bias))()
            for index, (token, value) in enumerate(bias.items()):
                entries[index].token = token
                entries[index].bias = value
            add(lib.llama_sampler_init_logit_bias(n_vocab, len(bias), entries))
        repeat = float(params.get("repeat_penalty", 1.0))
        temperature = float(params.get("temperature", 0.0))
        top_k = int(params.get("top_k", 40))
        grammar = params.get("grammar")
        # OpenAI's penalties: each use of a token lowers its logit by ``frequency``, its
        # first use by ``presence`` too.
        frequency = float(params.get("frequency_penalty") or 0.0)
        presence = float(params.get("presence_penalty") or 0.0)
        if repeat != 1.0 or frequency or presence:
            lowers_only = repeat >= 1.0 and frequency >= 0 and presence >= 0
            keep = _penalty_prefilter(lowers_only, temperature, top_k, bool(grammar))
            if keep and self._prefilter:
                add(lib.llama_sampler_init_top_k(keep))
            # Over the reply's tokens, as llama-cpp-python's own chain does.
            add(
                lib.llama_sampler_init_penalties(
                    n_vocab, PENALTY_WINDOW, repeat, frequency, presence
                )
            )
        if grammar:
            sampler = lib.llama_sampler_init_grammar(vocab, str(grammar).encode(), b"root")
            if not sampler:
                raise GrammarRefused("the grammar could not be parsed")
            add(sampler)
        if temperature <= 0:
            add(lib.llama_sampler_init_greedy())
        else:
            add(lib.llama_sampler_init_top_k(top_k))
            add(lib.llama_sampler_init_top_p(float(params.get("top_p", 1.0)), 1))
            add(lib.llama_sampler_init_min_p(float(params.get("min_p", 0.0)), 1))
            add(lib.llama_sampler_init_temp(temperature))
            seed = params.get("seed")
            seed = int(seed) if seed is not None and int(seed) >= 0 else lib.LLAMA_DEFAULT_SEED
            add(lib.llama_sampler_init_dist(seed & 0xFFFFFFFF))

    def _add(self, sampler: Any) -> None:
        self._lib.llama_sampler_chain_add(self.chain, sampler)

    def close(self) -> None:
        if self.chain is not None:
            self._lib.llama_sampler_free(self.chain)
            self.chain = None


class DecodeCosts:
    """What a decode of n tokens costs with this model on this machine, learnt as it runs:
    about ``single + per_guess * (n - 1)`` seconds.  On a GPU, or a large model on the CPU,
    a batch costs little more than one token (memory-bound); a small model on the CPU pays
    for each token (compute-bound), and long drafts there are slower than none.  Kept by
    the engine for the loaded model, across requests."""

    def __init__(self) -> None:
        self.single = 0.0  # seconds; 0 until a one-token decode was timed
        self.per_guess = -1.0  # seconds per extra token in a batch; < 0 until timed

    def observe(self, size: int, seconds: float) -> None:
        if size == 1:
            self.single = _smoothed(self.single, seconds, self.single > 0)
        elif self.single > 0:
            extra = max(0.0, (seconds - self.single) / (size - 1))
            self.per_guess = _smoothed(self.per_guess, extra, self.per_guess >= 0)

    def of(self, size: int) -> float:
        per_guess = self.per_guess if self.per_guess >= 0 else self.single * PRIOR_GUESS_COST
        return self.single + per_guess * (size - 1)


def _smoothed(old: float, new: float, known: bool) -> float:
    return old + TIMING_SMOOTHING * (new - old) if known else new


class PrefillPacer:
    """How many prompt tokens to evaluate in one decode: ``PREFILL_FIRST``, or more where
    that many take less than ``PREFILL_SECONDS`` with this model on this machine (learnt
    from the slices read so far, across requests), up to the context's batch size.

    Stop is checked between slices, so it acts within one slice.  On a GPU a 128-token
    slice is a few milliseconds of work, much of it fixed costs, and reads a long prompt
    slower than full batches do.  Slices never get smaller than ``PREFILL_FIRST``: on a
    CPU a smaller batch costs more per token, so a slow machine would read ever smaller,
    ever slower slices (measured here: half the speed)."""

    def __init__(self, most: int) -> None:
        self.most = max(1, most)
        self.per_token = 0.0  # seconds; 0 until a slice was timed
        # The first full slice after a load pays for warming up (pages of the model read
        # from disk, a GPU's kernels and graphs set up): not counted.
        self._warm = False

    def size(self) -> int:
        least = min(PREFILL_FIRST, self.most)
        if self.per_token <= 0:
            return least
        return max(least, min(self.most, int(PREFILL_SECONDS / self.per_token)))

    def observe(self, size: int, seconds: float) -> None:
        if size >= PREFILL_FIRST:  # a shorter tail's time is mostly fixed costs
            if not self._warm:
                self._warm = True
                return
            per_token = seconds / size
            self.per_token = _smoothed(self.per_token, per_token, self.per_token > 0)


class NgramDrafter:
    """Prompt-lookup drafts: the tokens that followed the last place where the current
    last few tokens occurred (in the prompt or the reply so far).

    How many of them to check is chosen for speed: with each guess right with probability
    p (measured on this reply) and a batch of n tokens costing ``costs.of(n)`` (measured
    on this machine), k guesses give ``1 + p + … + p^k`` tokens per ``costs.of(k + 1)``
    seconds; the k with the best rate is drafted, none when one token at a time is faster.
    """

    def __init__(
        self, tokens: Sequence[int], costs: DecodeCosts | None = None, always: bool = False
    ) -> None:
        self.history: list[int] = []
        self._follower: dict[tuple[int, ...], int] = {}
        self.extend(tokens)
        self.costs = costs if costs is not None else DecodeCosts()
        self.right, self.wrong = PRIOR_RIGHT, PRIOR_WRONG
        self.skipped = 0
        # Every match drafted whatever it costs (``prompt_lookup: "always"``): tests and
        # benchmarks that count steps, which must not depend on this machine's timings.
        self.always = always

    def extend(self, tokens: Sequence[int]) -> None:
        history, follower = self.history, self._follower
        for token in tokens:
            at = len(history)
            for size in NGRAM_SIZES:
                if at >= size:
                    follower[tuple(history[at - size : at])] = at
            history.append(token)

    def draft(self, last: int) -> list[int]:
        """Tokens guessed to follow ``last`` (which ends the history once extended), as
        many as pay for their check."""
        match = self._lookup(last)
        if match and self.always:
            return match
        if not match or self.costs.single <= 0:
            return []  # one token at a time first: that time is what guesses are weighed by
        count = self.worth(len(match))
        if count == 0:
            self.skipped += 1
            if self.skipped < EXPLORE_EVERY:
                return []
            count = 1
        self.skipped = 0
        return match[:count]

    def _lookup(self, last: int) -> list[int]:
        history = self.history
        for size in NGRAM_SIZES:
            if len(history) + 1 < size:
                continue
            key = (*history[len(history) - size + 1 :], last)
            at = self._follower.get(key)
            if at is not None:
                guesses = history[at : at + DRAFT_MAX]
                # A picture's placeholders (negative) are no tokens to guess.
                cut = next((i for i, token in enumerate(guesses) if token < 0), len(guesses))
                return guesses[:cut]
        return []

    def worth(self, available: int) -> int:
        """The number of guesses (0 to ``available``) with the most tokens per second."""
        costs = self.costs
        p = self.right / (self.right + self.wrong)
        best, best_rate = 0, 1.0 / costs.of(1)
        expected = term = 1.0
        for count in range(1, available + 1):
            term *= p
            expected += term
            rate = expected / costs.of(count + 1)
            if rate > best_rate:
                best, best_rate = count, rate
        return best

    def learn(self, drafted: int, accepted: int) -> None:
        """``accepted`` guesses were right, then (if fewer than ``drafted``) one wrong."""
        self.right = self.right * ACCEPT_MEMORY + accepted
        self.wrong = self.wrong * ACCEPT_MEMORY + (1 if accepted < drafted else 0)


class PieceDecoder:
    """A token's bytes (``llama_token_to_piece``), into one reused buffer."""

    def __init__(self, lib: Any, vocab: Any) -> None:
        self._lib = lib
        self._vocab = vocab
        self._size = 256
        self._buffer = ctypes.create_string_buffer(self._size)

    def __call__(self, token: int) -> bytes:
        count = self._lib.llama_token_to_piece(
            self._vocab, token, self._buffer, self._size, 0, False
        )
        if count < 0:
            self._size = -count
            self._buffer = ctypes.create_string_buffer(self._size)
            count = self._lib.llama_token_to_piece(
                self._vocab, token, self._buffer, self._size, 0, False
            )
        return self._buffer.raw[:count]


class LoopStats:
    """What the loop did, for the stats line."""

    def __init__(self) -> None:
        self.decodes = 0
        self.drafted = 0
        self.accepted = 0
