"""What the transformers engine hands ``generate``: the streamer that turns token ids into
text as soon as it is whole, the reply's penalties and logit bias, and the criterion that
stops at a cancel between two tokens."""

from __future__ import annotations

import time
from typing import Any

from backends.engine import Emit
from backends.job_control import JobControl
from backends.text_stream import TextAssembler
from wire import protocol


class Streamer:
    """Receives token ids from ``generate`` and emits text as soon as it is complete.

    Decoding restarts after each newline (as transformers' own streamer does), and text
    ending in an incomplete UTF-8 character (U+FFFD) is held back until the next token
    completes it, so no replacement characters ever reach the window.
    """

    def __init__(self, tokenizer: Any, emit: Emit, stops: tuple[str, ...]) -> None:
        self.tokenizer, self.emit = tokenizer, emit
        # Text that could still become a stop string is held back until it is decided.
        self.assembler = TextAssembler(stops)
        self.ids: list[int] = []
        self.cache: list[int] = []
        self.shown = 0
        self.prompt_seen = False
        self.generated = 0
        self.first_at: float | None = None
        self.last_at: float | None = None
        self.stopped_by_text = False

    def put(self, value: Any) -> None:
        if not self.prompt_seen:  # generate() hands over the prompt first
            self.prompt_seen = True
            return
        new = [int(t) for t in value.reshape(-1).tolist()]
        now = time.perf_counter()
        self.first_at = self.first_at or now
        self.last_at = now
        self.generated += len(new)
        self.ids.extend(new)
        self.cache.extend(new)
        text = self.tokenizer.decode(self.cache, skip_special_tokens=True)
        if text.endswith("\ufffd"):
            return
        self._show(text[self.shown :])
        if text.endswith("\n"):
            self.cache, self.shown = [], 0
        else:
            self.shown = len(text)

    def _show(self, piece: str, final: bool = False) -> None:
        text = self.assembler.feed(piece.encode("utf-8"))
        if final:
            text += self.assembler.finish()
        self.stopped_by_text = self.assembler.stopped
        if text:
            self.emit({"type": protocol.DELTA, "text": text})

    def end(self) -> None:
        """Called by generate(); the remaining text is flushed by ``finish``."""

    def finish(self) -> None:
        rest = ""
        if self.cache:
            rest = self.tokenizer.decode(self.cache, skip_special_tokens=True)[self.shown :]
            rest = rest.rstrip("\ufffd")  # a character the token limit cut in half
            self.cache, self.shown = [], 0
        self._show(rest, final=True)


class ReplyPenalties:
    """llama.cpp's penalties, over the reply's last ``window`` tokens (its sampler sees
    generated tokens only, not the prompt), so both engines answer alike with the same
    settings: the repeat penalty divides a used token's positive logit (multiplies a
    negative one); OpenAI's frequency penalty subtracts per use, the presence penalty once."""

    def __init__(
        self,
        repeat: float,
        frequency: float,
        presence: float,
        prompt_length: int,
        window: int = 64,
    ) -> None:
        self.repeat, self.frequency, self.presence = repeat, frequency, presence
        self.prompt_length, self.window = prompt_length, window
        self.active = repeat != 1.0 or frequency != 0.0 or presence != 0.0

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        recent = input_ids[:, self.prompt_length :][:, -self.window :]
        if recent.shape[1] == 0:
            return scores
        picked = scores.gather(1, recent)
        if self.repeat != 1.0:
            picked = torch.where(picked > 0, picked / self.repeat, picked * self.repeat)
        scores = scores.scatter(1, recent, picked)
        if self.frequency or self.presence:
            counts = torch.zeros_like(scores).scatter_add(
                1, recent, torch.ones_like(recent, dtype=scores.dtype)
            )
            used = (counts > 0).to(scores.dtype)
            scores = scores - counts * self.frequency - used * self.presence
        return scores


class LogitBias:
    """OpenAI's ``logit_bias``: added to the chosen tokens' logits (-100 bans a token)."""

    def __init__(self, bias: list[tuple[int, float]]) -> None:
        self.tokens = [token for token, _ in bias]
        self.amounts = [amount for _, amount in bias]

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        index = torch.tensor(self.tokens, device=scores.device)
        amounts = torch.tensor(self.amounts, device=scores.device, dtype=scores.dtype)
        return scores.index_add(1, index, amounts.expand(scores.shape[0], -1))


class CancelCriterion:
    """Stops generation when Stop was pressed (checked after every token), and between
    tokens applies the CPU threads the engine host allows now."""

    def __init__(self, control: JobControl, streamer: Streamer, prompt_tokens: int) -> None:
        self.control, self.streamer, self.prompt_tokens = control, streamer, prompt_tokens

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        self.control.tokens(self.prompt_tokens, self.streamer.generated)
        self.control.checkpoint()
        stop = self.control.cancelled() or self.streamer.stopped_by_text
        return torch.full((input_ids.shape[0],), stop, dtype=torch.bool, device=input_ids.device)
