"""Turning a stream of token bytes into clean text deltas.

Two things go wrong in naive streaming and both are handled here, for every engine:

* A multi-byte UTF-8 character (Chinese, emoji) is often split across tokens.  Decoding
  each token on its own prints replacement characters.  ``TextAssembler`` keeps an
  incremental UTF-8 decoder, so a character is released only once it is complete; the
  concatenated deltas therefore equal the decoded whole reply.
* A stop string (for example ``\\nUser:`` in the fallback template) may arrive in pieces.
  Text that could still become a stop string is held back until it is decided.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence


class TextAssembler:
    """Feed token bytes, get text that is safe to show; tells when a stop string appeared."""

    def __init__(self, stop_strings: Sequence[str] = (), strip_leading: bool = True) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._stops = [s for s in stop_strings if s]
        self._held = ""
        self._strip_leading = strip_leading
        self._started = False
        self.stopped = False
        self.text = ""  # everything released so far

    def feed(self, data: bytes) -> str:
        """Add one token's bytes; return the text that can be shown now."""
        if self.stopped:
            return ""
        return self._release(self._decoder.decode(data, final=False))

    def finish(self) -> str:
        """End of stream: flush whatever is held (an unfinished stop string is just text)."""
        if self.stopped:
            return ""
        pending = self._decoder.decode(b"", final=True)
        out = self._release(pending)
        rest, self._held = self._held, ""
        rest = self._leading(rest)
        self.text += rest
        return out + rest

    def _leading(self, text: str) -> str:
        if self._strip_leading and not self._started:
            text = text.lstrip(" ")
            self._started = bool(text)
        return text

    def _release(self, new: str) -> str:
        if not new and not self._held:
            return ""
        buffer = self._held + new
        for stop in self._stops:
            index = buffer.find(stop)
            if index != -1:
                self.stopped = True
                out = self._leading(buffer[:index])
                self._held = ""
                self.text += out
                return out
        keep = longest_prefix_at_end(buffer, self._stops)
        out, self._held = buffer[: len(buffer) - keep], buffer[len(buffer) - keep :]
        out = self._leading(out)
        self.text += out
        return out


def longest_prefix_at_end(text: str, stops: Sequence[str]) -> int:
    """Length of the longest end of ``text`` that could still grow into one of ``stops``
    (held back by stop-string and tag detection until it is decided)."""
    best = 0
    for stop in stops:
        for length in range(min(len(stop) - 1, len(text)), best, -1):
            if text.endswith(stop[:length]):
                best = length
                break
    return best
