"""Request parameters that every local engine reads alike."""

from __future__ import annotations

from typing import Any

BAN = -100.0  # OpenAI's logit_bias: -100 bans a token, +100 all but forces it


def token_bias(raw: Any, n_vocab: int) -> list[tuple[int, float]]:
    """OpenAI's ``logit_bias`` ({token id: -100..100}) as (token, amount) pairs; ids outside
    the vocabulary are left out (the server has checked the ranges), and -100 bans."""
    if not isinstance(raw, dict):
        return []
    bias = []
    for key, value in raw.items():
        try:
            token, amount = int(key), float(value)
        except (TypeError, ValueError):
            continue
        if 0 <= token < n_vocab and BAN <= amount <= -BAN:
            bias.append((token, float("-inf") if amount <= BAN else amount))
    return bias
