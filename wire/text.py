"""Hearth's policy for text that comes from outside: it is UTF-8, and what is not becomes
U+FFFD (the replacement character), counted so that the user can be told.

Why one policy: bytes that are not UTF-8 (a Latin-1 file on stdin, binary data, ``\\xff`` in
an argument, a ``\\ud800`` escape in a JSON request) otherwise reach Python as lone
surrogates, which no UTF-8 writer accepts — the chat database, the worker pipe and the
tokenizer each failed on them in their own way.  Text is repaired where it enters (the
command line, the API, the chat session), and the protocol's encoder repairs whatever
slipped past, so that nothing downstream ever sees a surrogate.
"""

from __future__ import annotations

import re
from typing import NamedTuple

REPLACEMENT = "\ufffd"
_SURROGATES = re.compile("[\ud800-\udfff]")


class Repaired(NamedTuple):
    text: str
    replaced: int  # how many bytes or code points could not be read


def repaired(text: str) -> Repaired:
    """``text`` with each lone surrogate replaced (from ``surrogateescape`` command-line
    arguments, one per byte that was not UTF-8; from JSON, one per bad escape)."""
    if _SURROGATES.search(text) is None:  # the common case: nothing to copy
        return Repaired(text, 0)
    fixed, count = _SURROGATES.subn(REPLACEMENT, text)
    return Repaired(fixed, count)
