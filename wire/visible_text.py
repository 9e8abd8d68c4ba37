"""Text from outside (file names, document passages) made safe to show on a terminal or in
a label: control characters and bidirectional overrides are written as visible escapes.

Why: a file called ``"\\x1b]0;owned\\x07.txt"`` would otherwise drive the terminal that
``hearth docs search`` prints to (set its title, colour it, plant an OSC-8 link), a newline
in a name splits one entry into two lines, and U+202E (right-to-left override) makes
``rtl\\u202egnp.txt`` read as "rtltxt.png".  Like ``ls`` does, each such character is shown
as an escape (``\\x1b``, ``\\u202e``) so the name reads as what it is.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls; the bidi embeddings, overrides and
# isolates; the line and paragraph separators; the Arabic letter mark.  Tab and newline are
# kept only where the caller says the text is a passage (``multiline``).
_ALWAYS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_SINGLE_LINE = re.compile(f"[\t\n{_ALWAYS}]")
_MULTILINE = re.compile(f"[{_ALWAYS}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, multiline: bool = False) -> str:
    """``text`` with every control or bidi-override character written as an escape; with
    ``multiline``, tabs and newlines stay (a passage), else they are escaped too (a name)."""
    return (_MULTILINE if multiline else _SINGLE_LINE).sub(_escape, text)
