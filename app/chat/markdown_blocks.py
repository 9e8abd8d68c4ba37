"""Split Markdown into top-level blocks, incrementally, as a reply streams in.

Why: a streaming reply must not be re-parsed on every token, and a half-written code
fence or table must not be rendered (its meaning changes when it ends).  The splitter
keeps the text since the last finished block; whenever a block is certainly finished
(a blank line outside a code fence, a closing fence, a heading line, a fence starting
after a paragraph) it is handed out once and never looked at again.  Finished messages
are split by the same code, so a reply looks the same streamed and reopened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")
_LIST_ITEM = re.compile(r"^ {0,3}([-*+]|\d{1,9}[.)])(\s|$)")


@dataclass
class BlockSplitter:
    """Feed text; receive finished blocks.  ``tail`` is what is not finished yet."""

    tail: str = ""
    _lines: list[str] = field(default_factory=list)  # complete lines of the open block
    _fence: str = ""  # the opening fence marker while inside a code block
    _blank: bool = False  # a blank line ended the open lines; the next line decides

    @property
    def in_code(self) -> bool:
        """Whether the unfinished text is inside a code fence (shown as code meanwhile)."""
        return bool(self._fence)

    @property
    def pending(self) -> str:
        """Everything not yet handed out as a block: open lines plus the partial line."""
        return "".join(self._lines) + self.tail

    def feed(self, text: str) -> list[str]:
        blocks: list[str] = []
        self.tail += text
        while True:
            newline = self.tail.find("\n")
            if newline < 0:
                break
            line, self.tail = self.tail[: newline + 1], self.tail[newline + 1 :]
            blocks.extend(self._line(line))
        return blocks

    def finish(self) -> list[str]:
        """The end of the text: whatever is left is a block."""
        tail, self.tail = self.tail, ""
        blocks = self._line(tail) if tail else []
        rest = "".join(self._lines)
        self._lines, self._fence, self._blank = [], "", False
        return blocks + ([rest] if rest.strip() else [])

    def _flush(self) -> list[str]:
        block = "".join(self._lines)
        self._lines = []
        return [block] if block.strip() else []

    def _line(self, line: str) -> list[str]:
        stripped = line.rstrip("\n")
        if self._fence:
            self._lines.append(line)
            match = _FENCE.match(stripped)
            if (
                match
                and match.group(1)[0] == self._fence[0]
                and len(match.group(1)) >= len(self._fence)
                and not match.group(2).strip()
            ):
                self._fence = ""
                return self._flush()
            return []
        match = _FENCE.match(stripped)
        if match:
            self._blank = False
            finished = self._flush()
            self._fence = match.group(1)
            self._lines.append(line)
            return finished
        if not stripped.strip():
            if self._lines:
                self._lines.append(line)
                self._blank = True
            return []
        out: list[str] = []
        if self._blank:
            # A list (or an indented continuation) goes on across blank lines; anything
            # else after a blank line starts a new block.
            self._blank = False
            in_list = bool(self._lines) and bool(_LIST_ITEM.match(self._lines[0]))
            if not (in_list and (line[:1] in (" ", "\t") or _LIST_ITEM.match(stripped))):
                out = self._flush()
        if _HEADING.match(stripped):
            out += self._flush()
            self._lines.append(line)
            return out + self._flush()
        self._lines.append(line)
        return out


def split_blocks(text: str) -> list[str]:
    """A whole text as blocks, exactly as streaming it would have produced them."""
    splitter = BlockSplitter()
    return splitter.feed(text) + splitter.finish()
