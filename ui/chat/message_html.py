"""One message of the transcript as HTML: its header (who wrote it, ‹ n/m › between its
versions, your message's actions), your words or the model's answer (Markdown rendered
block by block, ``markdown_html``), its Thinking section, the sources it was given, and
the footer under a reply (how it ended, its speed, its actions).  Each finished message's
HTML is cached by everything it shows, so opening and switching conversations is fast.

Strings keep the transcript's translation context ("TranscriptView").
"""

from __future__ import annotations

import html
import json
from typing import Any, Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtGui import QTextDocument

from app.chat import store as st
from app.chat.markdown_blocks import split_blocks
from ui.chat.action_icons import ACTION, icon_link
from ui.chat.documents_html import attachments_html, sources_html
from ui.chat.markdown_html import MarkdownRenderer
from ui.chat.tool_blocks_html import tool_rounds_html
from ui.chat.transcript_pictures import TranscriptPictures
from ui.visual import Palette

LIVE = -1  # the message id used for the reply being streamed
GAP = "&nbsp;&nbsp;&nbsp;"  # between two actions' icons: room to aim

STATUS_TEXT = {
    st.STOPPED: QT_TRANSLATE_NOOP("TranscriptView", "Stopped"),
    # Hearth itself or its engine may have stopped: the cause, when known, is under it.
    st.INTERRUPTED: QT_TRANSLATE_NOOP("TranscriptView", "Interrupted before it was finished"),
    st.LENGTH: QT_TRANSLATE_NOOP("TranscriptView", "Cut at the token limit"),
    st.FAILED: QT_TRANSLATE_NOOP("TranscriptView", "Failed"),
    st.STREAMING: QT_TRANSLATE_NOOP("TranscriptView", "Writing…"),
}
CONTINUABLE = (st.LENGTH, st.STOPPED, st.INTERRUPTED)


def _tr(text: str) -> str:
    return QCoreApplication.translate("TranscriptView", text)


def stats_text(stats: dict[str, object]) -> str:
    """The line under a reply: speed, time to first token, length, and how much of the
    prompt came from the engine's prompt cache."""
    parts: list[str] = []
    speed = stats.get("tokens_per_s")
    if isinstance(speed, int | float):
        parts.append(QCoreApplication.translate("TranscriptView", "{0:.1f} tok/s").format(speed))
    ttft = stats.get("client_ttft_ms", stats.get("ttft_ms"))
    if isinstance(ttft, int | float):
        parts.append(
            QCoreApplication.translate("TranscriptView", "first token {0:.2f} s").format(
                ttft / 1000
            )
        )
    generated = stats.get("generated_tokens")
    if isinstance(generated, int):
        parts.append(QCoreApplication.translate("TranscriptView", "{0} tokens").format(generated))
    prompt, cached = stats.get("prompt_tokens"), stats.get("cached_prompt_tokens")
    if isinstance(prompt, int) and isinstance(cached, int) and cached > 0:
        # Why a follow-up's first words came quickly: most of the prompt was not read again.
        parts.append(
            QCoreApplication.translate("TranscriptView", "{0} of {1} prompt tokens reused").format(
                cached, prompt
            )
        )
    return " · ".join(parts)


def plain_text(markdown: str) -> str:
    """A reply without its Markdown marks, for pasting where Markdown means nothing."""
    document = QTextDocument()
    document.setMarkdown(markdown)
    return document.toPlainText()


class Shown(Protocol):
    """What the HTML depends on in the view (``ui.chat.transcript.TranscriptView``)."""

    palette_colors: Palette
    renderer: MarkdownRenderer
    editing_id: int | None
    expanded: set[int]
    tools_open: set[int]

    pictures: TranscriptPictures

    def branch_of(self, message_id: int) -> tuple[int, int] | None: ...
    def parent_of(self, message: st.Message) -> st.Message | None: ...


class MessageHtml:
    def __init__(self, view: Shown) -> None:
        self.view = view
        self.cache: dict[tuple[object, ...], str] = {}

    def message(self, message: st.Message, is_last: bool) -> str:
        """One finished message, cached by everything it shows."""
        branch = self.view.branch_of(message.id)
        key = (
            message.id,
            message.content,
            message.reasoning,
            message.status,
            message.error,
            branch,
            is_last,
            message.id in self.view.expanded,
            message.id == self.view.editing_id,
            json.dumps(message.tools) if message.tools else "",
            message.id in self.view.tools_open,
        )
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        parts = [
            self.header(
                message.role, message.model, message.id, branch, message.id == self.view.editing_id
            )
        ]
        if message.role == "assistant":
            if message.reasoning:
                seconds = message.stats.get("thinking_s")
                parts.append(
                    self.thinking(
                        message.id,
                        message.reasoning,
                        float(seconds) if isinstance(seconds, int | float) else None,
                        message.id in self.view.expanded,
                        live=False,
                    )
                )
            parts.append(self.tool_rounds(message.tools, message.id))
            parts += [self.view.renderer.block(block) for block in split_blocks(message.content)]
            parts.append(self.sources(message))
            parts.append(self.footer(message, is_last))
        else:
            parts.append(self.user(message, message.id == self.view.editing_id))
        result = "".join(parts)
        self.cache[key] = result
        return result

    def tool_rounds(self, rounds: list[dict[str, Any]], message_id: int) -> str:
        """A reply's tool calls (``tool_blocks_html``), open or closed as the view has it."""
        view = self.view
        opened = message_id in view.tools_open
        return tool_rounds_html(
            rounds, message_id, opened, view.palette_colors, view.renderer, self.link
        )

    def icon(self, action: str, message_id: int) -> str:
        """An action under a message, as its icon (its name on hover)."""
        return icon_link(f"{ACTION}{action}/{message_id}", action, self.view.palette_colors.muted)

    def link(self, action: str, message_id: int, label: str) -> str:
        return (
            f'<a href="{ACTION}{action}/{message_id}" style="color:{self.view.palette_colors.link};'
            f' text-decoration:none;">{html.escape(label)}</a>'
        )

    def user_style(self, editing: bool) -> str:
        """Your messages are tinted blocks (the model's are not); the one being edited is
        highlighted."""
        p = self.view.palette_colors
        tint = p.editing_background if editing else p.user_background
        return f"background-color:{tint}; padding-left:8px;"

    def header(
        self,
        role: str,
        model: str,
        message_id: int,
        branch: tuple[int, int] | None,
        editing: bool = False,
    ) -> str:
        if role == "user":
            label = QCoreApplication.translate("TranscriptView", "You")
        elif role == "system":
            label = QCoreApplication.translate("TranscriptView", "System")
        else:
            label = model or QCoreApplication.translate("TranscriptView", "Assistant")
        nav = ""
        if branch is not None:
            position, count = branch
            nav = (
                "&nbsp;&nbsp;&nbsp;"
                + self.icon("prev", message_id)
                + f"&nbsp;{position}/{count}&nbsp;"
                + self.icon("next", message_id)
            )
        actions = ""
        if role == "user" and message_id != LIVE:
            actions = "&nbsp;&nbsp;&nbsp;" + GAP.join(
                self.icon(action, message_id) for action in ("edit", "copy-md", "delete")
            )
        muted = self.view.palette_colors.muted
        tint = self.user_style(editing) if role == "user" else ""
        editing_note = (
            f'&nbsp;&nbsp;<span style="color:{muted}; font-size:small;">'
            + html.escape(QCoreApplication.translate("TranscriptView", "(editing)"))
            + "</span>"
            if editing
            else ""
        )
        return (
            f'<p style="margin-top:16px; margin-bottom:0px; {tint}">'
            f"<b>{html.escape(label)}</b>"
            f'<span style="color:{muted}; font-size:small;">{nav}{actions}</span>{editing_note}</p>'
        )

    def user(self, message: st.Message, editing: bool = False) -> str:
        text = html.escape(message.content).replace("\n", "<br>")
        return (
            self.view.pictures.html(message.images)
            + (
                f'<p style="margin-top:0px; margin-bottom:4px; white-space:pre-wrap;'
                f' {self.user_style(editing)}">{text}<br></p>'
            )
            + attachments_html(message.documents, self.view.palette_colors)
        )

    def sources(self, message: st.Message) -> str:
        """The sources the answer was given (kept with your message before it)."""
        parent = self.view.parent_of(message)
        if parent is None or not parent.documents:
            return ""
        return sources_html(parent.id, parent.documents, message.content, self.view.palette_colors)

    def thinking(
        self,
        message_id: int,
        reasoning: str,
        seconds: float | None,
        expanded: bool,
        live: bool = True,
    ) -> str:
        if seconds is None:
            title = (
                QCoreApplication.translate("TranscriptView", "Thinking…")
                if live
                else QCoreApplication.translate("TranscriptView", "Thoughts")
            )
        else:
            title = QCoreApplication.translate("TranscriptView", "Thought for {0:.1f} s").format(
                seconds
            )
        arrow = "▾" if expanded else "▸"
        muted = self.view.palette_colors.muted
        head = (
            f'<p style="margin-top:2px; margin-bottom:2px; color:{muted};">'
            + self.link("think", message_id, f"{arrow} {title}")
            + "</p>"
        )
        if not expanded:
            return head
        body = html.escape(reasoning.strip("\n")).replace("\n", "<br>")
        return head + f'<p style="color:{muted}; margin-left:12px; font-style:italic;">{body}</p>'

    def footer(self, message: st.Message, is_last: bool) -> str:
        muted = self.view.palette_colors.muted
        parts = []
        if message.status in STATUS_TEXT and message.status != st.COMPLETE:
            parts.append(html.escape(_tr(str(STATUS_TEXT[message.status]))))
        line = stats_text(message.stats)
        if line:
            parts.append(html.escape(line))
        actions = ["copy-md", "copy-text", "regenerate"]
        if is_last and message.status in CONTINUABLE and message.content:
            actions.append("continue")
        actions.append("delete")
        icons = GAP.join(self.icon(action, message.id) for action in actions)
        error = ""
        if message.error:
            colour = self.view.palette_colors.error
            error = f'<br><span style="color:{colour};">{html.escape(message.error)}</span>'
        return (
            f'<p style="margin-top:2px; color:{muted}; font-size:small;">'
            + icons
            + ("&nbsp;&nbsp;&nbsp;" + " · ".join(parts) if parts else "")
            + error
            + "</p>"
        )
