"""What to send when a conversation no longer fits the model's context window.

The policy, shown to the user as a notice whenever it acts:

* leading system messages are always kept;
* the newest message is always kept;
* the oldest other messages are dropped, oldest first, until the prompt leaves room
  for the reply (``reply_reserve`` tokens);
* if the system prompt and the newest message alone do not fit, nothing is sent and the
  user is told how long the message is and what the limit is.

Counting is done by the caller's ``count`` function (render the chat template and
tokenize), so the same policy serves every engine.  A binary search keeps the number of
renderings logarithmic in the length of the conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wire import protocol
from wire.phrases import Phrase, to_wire

Message = dict[str, Any]


class ContextOverflow(Exception):
    """Even the system prompt plus the newest message do not fit."""

    def __init__(self, needed: int, available: int) -> None:
        super().__init__(
            Phrase(
                "Your message needs {0} tokens but this model's context leaves room for {1}. "
                "Shorten the message or raise the context length in the settings.",
                needed,
                available,
            )
        )
        self.needed = needed
        self.available = available


@dataclass(frozen=True)
class Fitted:
    messages: list[Message]
    prompt_tokens: int
    dropped: int  # how many older messages were left out


THINK_OPEN = "<think>"


def opens_thinking(prompt: str) -> bool:
    """Whether a template starts the reply inside ``<think>`` (DeepSeek-R1 distills do):
    the engine then says so first, so the window shows a Thinking section at once."""
    return prompt.rstrip().endswith(THINK_OPEN)


def continues_reply(request: dict[str, Any], messages: Sequence[Message]) -> bool:
    """A request to go on with the last reply (cut at the token limit or stopped)."""
    return (
        bool(request.get("continue"))
        and bool(messages)
        and (messages[-1].get("role") == "assistant")
    )


def reply_reserve(n_ctx: int, max_tokens: int | None) -> int:
    """Tokens kept free for the reply: the requested maximum, capped at half the window."""
    if max_tokens is not None and max_tokens > 0:
        return min(max_tokens, n_ctx // 2)
    return n_ctx // 4


def fit_messages(
    messages: Sequence[Message], count: Callable[[list[Message]], int], budget: int
) -> Fitted:
    """Return the longest suffix of the conversation (plus its system prompt) that fits."""
    messages = list(messages)
    n_system = 0
    while n_system < len(messages) and messages[n_system].get("role") == "system":
        n_system += 1
    system, rest = messages[:n_system], messages[n_system:]

    def attempt(drop: int) -> tuple[list[Message], int]:
        candidate = system + rest[drop:]
        return candidate, count(candidate)

    full, tokens = attempt(0)
    if tokens <= budget:
        return Fitted(full, tokens, 0)
    max_drop = max(len(rest) - 1, 0)
    smallest, smallest_tokens = attempt(max_drop)
    if smallest_tokens > budget:
        raise ContextOverflow(smallest_tokens, budget)
    # Find the fewest dropped messages that fit: fits(drop) is monotonic in drop.
    low, high = 0, max_drop  # fits(low) is False, fits(high) is True
    best, best_tokens = smallest, smallest_tokens
    while high - low > 1:
        mid = (low + high) // 2
        candidate, candidate_tokens = attempt(mid)
        if candidate_tokens <= budget:
            high, best, best_tokens = mid, candidate, candidate_tokens
        else:
            low = mid
    # Do not start the kept history with an assistant turn (or a tool result) that answers a
    # dropped question.
    drop = high
    while drop < max_drop and rest[drop].get("role") in ("assistant", "tool"):
        drop += 1
        best, best_tokens = attempt(drop)
    return Fitted(best, best_tokens, drop)


@dataclass(frozen=True)
class Prompt:
    tokens: list[int]
    dropped: int
    limit: int  # the most tokens the reply may have


def prepare_prompt(
    messages: Sequence[Message],
    render: Callable[[list[Message]], list[int]],
    n_ctx: int,
    max_tokens: int | None,
    emit: Callable[[dict[str, Any]], None],
) -> Prompt:
    """Apply the policy with the engine's ``render`` (template + tokenizer), tell the user
    when older messages were left out, and say how long the reply may be.

    Raises ContextOverflow (the caller turns it into a protocol error)."""
    rendered: dict[int, list[int]] = {}

    def count(candidate: list[Message]) -> int:
        tokens = render(candidate)
        rendered[id(candidate)] = tokens
        return len(tokens)

    fitted = fit_messages(messages, count, n_ctx - reply_reserve(n_ctx, max_tokens))
    if fitted.dropped:
        emit(
            {
                "type": protocol.NOTICE,
                "kind": protocol.NOTICE_CONTEXT_TRIMMED,
                "dropped": fitted.dropped,
                **to_wire(
                    Phrase(
                        "The conversation is longer than the model's context, so the {0} "
                        "oldest message(s) were left out of this reply.",
                        fitted.dropped,
                    )
                ),
            }
        )
    tokens = rendered.get(id(fitted.messages)) or render(fitted.messages)
    limit = n_ctx - len(tokens)
    if max_tokens is not None:
        limit = min(limit, max_tokens)
    return Prompt(tokens, fitted.dropped, limit)


def fit_raw(tokens: list[int], n_ctx: int, max_tokens: int | None) -> Prompt:
    """A raw prompt (a completion, no conversation to shorten): it fits whole with room
    for the reply, or it is refused with its length."""
    room = n_ctx - reply_reserve(n_ctx, max_tokens)
    if len(tokens) > room:
        raise ContextOverflow(len(tokens), room)
    limit = n_ctx - len(tokens)
    return Prompt(tokens, 0, min(limit, max_tokens) if max_tokens is not None else limit)


def stats_event(
    prompt_tokens: int,
    generated: int,
    started: float,
    first_at: float | None,
    last_at: float,
    ended: float,
    **extra: Any,
) -> dict[str, Any]:
    """The ``stats`` event every engine sends: tokens/s counts from the first token on."""
    decode_s = last_at - first_at if first_at is not None else 0.0
    return {
        "type": "stats",
        "prompt_tokens": prompt_tokens,
        "generated_tokens": generated,
        "ttft_ms": round(((first_at or last_at) - started) * 1000, 2),
        "tokens_per_s": round((generated - 1) / decode_s, 2)
        if generated > 1 and decode_s > 0
        else None,
        "total_ms": round((ended - started) * 1000, 2),
        **extra,
    }
