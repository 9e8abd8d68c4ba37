"""A reply's tool rounds in the transcript: the text the model wrote before each round,
then one block per call — the tool and its server, how it went, and, opened, the
arguments and the result (content Hearth cannot show is a note).  What a server or the
model wrote there has its control and bidi characters shown as escapes (``visible``).
The blocks of a reply open and close together with one link (``tools/<message id>``),
like its Thinking.

Strings keep the transcript's translation context ("TranscriptView").
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from app.chat import tool_rounds as tr
from app.chat.markdown_blocks import split_blocks
from ui.chat.markdown_html import MarkdownRenderer
from ui.visual import Palette
from wire.visible_text import visible

SHOWN_RESULT_CHARS = 4000  # of a long result, in the block (the model got all it was given)
STATUS = {
    tr.DONE: QT_TRANSLATE_NOOP("TranscriptView", "done"),
    tr.ERROR: QT_TRANSLATE_NOOP("TranscriptView", "failed"),
    tr.TIMEOUT: QT_TRANSLATE_NOOP("TranscriptView", "timed out"),
    tr.DENIED: QT_TRANSLATE_NOOP("TranscriptView", "denied"),
    tr.STOPPED: QT_TRANSLATE_NOOP("TranscriptView", "stopped"),
    tr.MALFORMED: QT_TRANSLATE_NOOP("TranscriptView", "could not be read"),
    tr.LIMIT: QT_TRANSLATE_NOOP("TranscriptView", "not run: call limit"),
    tr.PENDING: QT_TRANSLATE_NOOP("TranscriptView", "waiting…"),
}
LIVE = -1  # the message id of the reply being streamed (``message_html.LIVE``)
Link = Callable[[str, int, str], str]  # (action, message id, label) -> an <a> of the view


def _tr(text: str) -> str:
    return QCoreApplication.translate("TranscriptView", text)


def tool_rounds_html(
    rounds: Sequence[dict[str, Any]],
    message_id: int,
    opened: bool,
    palette: Palette,
    renderer: MarkdownRenderer,
    link: Link,
) -> str:
    """The rounds of one reply, before its final text ("" when it used no tool)."""
    if not rounds:
        return ""
    parts: list[str] = []
    calls = [call for round_ in rounds for call in round_.get("calls", [])]
    arrow = "▾" if opened else "▸"
    label = QCoreApplication.translate("TranscriptView", "Tools: {0} call(s)").format(len(calls))
    for round_ in rounds:
        text = str(round_.get("text") or "")
        if text.strip():
            parts += [renderer.block(block) for block in split_blocks(text)]
        for call in round_.get("calls", []):
            parts.append(_call_html(call, opened, palette, message_id == LIVE))
    head = (
        f'<p style="margin-top:2px; margin-bottom:2px; color:{palette.muted};">'
        + link("tools", message_id, f"{arrow} {label}")
        + "</p>"
    )
    return head + "".join(parts)


def _call_html(call: dict[str, Any], opened: bool, palette: Palette, live: bool) -> str:
    status = str(call.get("status") or "")
    if status == tr.PENDING and not live:
        status = tr.STOPPED  # Hearth ended while it waited
    where = f"{call.get('server')}/{call.get('tool')}" if call.get("server") else call.get("name")
    seconds = call.get("seconds")
    timing = f" · {float(seconds):.2f} s" if isinstance(seconds, int | float) else ""
    bad = status not in (tr.DONE, tr.PENDING)
    colour = palette.error if bad else palette.muted
    title = (
        f'<span style="font-weight:600;">{html.escape(visible(str(where)))}</span>'
        f' <span style="color:{colour};">— {html.escape(_tr(str(STATUS.get(status, status))))}'
        f"{timing}</span>"
    )
    style = (
        f"background-color:{palette.code_background}; border:1px solid {palette.code_border};"
        " padding:4px; margin-top:2px; margin-bottom:4px;"
    )
    if not opened:
        return f'<table width="100%" style="{style}"><tr><td>{title}</td></tr></table>'
    arguments = json.dumps(call.get("arguments") or {}, ensure_ascii=False, indent=1)
    if call.get("raw"):
        arguments = str(call["raw"])
    arguments = visible(arguments, multiline=True)
    result = visible(str(call.get("result") or ""), multiline=True)
    more = ""
    if len(result) > SHOWN_RESULT_CHARS:
        more = QCoreApplication.translate("TranscriptView", "… {0:,} more characters")
        more = more.format(len(result) - SHOWN_RESULT_CHARS)
        result = result[:SHOWN_RESULT_CHARS]
    notes = "".join(
        f'<br><span style="color:{palette.muted};">{html.escape(visible(str(note)))}</span>'
        for note in call.get("notes") or []
    )
    arguments_label = QCoreApplication.translate("TranscriptView", "Arguments")
    result_label = QCoreApplication.translate("TranscriptView", "Result")
    body = (
        f"{title}<br>"
        f'<span style="color:{palette.muted};">{html.escape(arguments_label)}</span>'
        f"<pre>{html.escape(arguments)}</pre>"
        f'<span style="color:{palette.muted};">{html.escape(result_label)}</span>'
        f'<pre style="white-space:pre-wrap;">{html.escape(result)}</pre>'
        + (f'<span style="color:{palette.muted};">{html.escape(more)}</span>' if more else "")
        + notes
    )
    return f'<table width="100%" style="{style}"><tr><td>{body}</td></tr></table>'
