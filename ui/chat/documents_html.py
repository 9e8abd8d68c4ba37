"""What a message was given, in the transcript: the attached files under your message,
and the numbered sources under the answer (the ones it cited, then the ones it was given
but did not cite), each a link to its preview."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QCoreApplication

from app.docs.grounding import Grounding, Source, cited_numbers
from ui.visual import Palette
from wire.visible_text import visible

SOURCE = "hearth:source/"  # SOURCE + "<message id of your message>/<source number>"


def source_label(source: Source) -> str:
    """ "report.pdf, page 3" / "notes.md › Install", in the window's language."""
    name = visible(source.file.replace("\\", "/").rsplit("/", 1)[-1])
    if source.page is not None:
        return QCoreApplication.translate("TranscriptView", "{0}, page {1}").format(
            name, source.page
        )
    if source.section:
        return f"{name} › {visible(source.section)}"
    return name


def grounding_of(documents: dict[str, Any]) -> Grounding | None:
    if not documents:
        return None
    try:
        grounding = Grounding.from_json(documents)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None  # a damaged record: the message itself still shows
    return None if grounding.empty and not grounding.collections else grounding


def attachments_html(documents: dict[str, Any], palette: Palette) -> str:
    """One muted line under your message: its files (with their size in tokens and
    whether they went whole) and the collections it asked."""
    grounding = grounding_of(documents)
    if grounding is None:
        return ""
    parts = []
    for item in grounding.attachments:
        how = (
            QCoreApplication.translate("TranscriptView", "whole")
            if item.mode == "whole"
            else QCoreApplication.translate("TranscriptView", "passages")
        )
        parts.append(
            html.escape(
                QCoreApplication.translate(
                    "TranscriptView", "Attached: {0} · {1:,} tokens · {2}"
                ).format(visible(item.name), item.tokens, how)
            )
        )
    if grounding.collections:
        parts.append(
            html.escape(
                QCoreApplication.translate("TranscriptView", "Collections: {0}").format(
                    ", ".join(visible(name) for name in grounding.collections)
                )
            )
        )
    if not parts:
        return ""
    return (
        f'<p style="margin-top:0px; margin-bottom:4px; color:{palette.muted};'
        f' font-size:small;">' + "&nbsp;&nbsp;".join(parts) + "</p>"
    )


def sources_html(user_id: int, documents: dict[str, Any], answer: str, palette: Palette) -> str:
    """The numbered sources under an answer: cited ones first, as links to a preview."""
    grounding = grounding_of(documents)
    if grounding is None or not grounding.sources:
        return ""
    cited = cited_numbers(answer)
    ordered = sorted(grounding.sources, key=lambda s: (s.n not in cited, s.n))
    lines = []
    for source in ordered:
        link = (
            f'<a href="{SOURCE}{user_id}/{source.n}" style="color:{palette.link};'
            f' text-decoration:none;">[{source.n}] {html.escape(source_label(source))}</a>'
        )
        # Every source was read by the model; those its answer names are marked cited.
        mark = (
            QCoreApplication.translate("TranscriptView", "cited")
            if source.n in cited
            else QCoreApplication.translate("TranscriptView", "used as context")
        )
        link += f'<span style="color:{palette.muted};"> — {html.escape(mark)}</span>'
        lines.append(link)
    title = html.escape(QCoreApplication.translate("TranscriptView", "Sources"))
    return (
        f'<p style="margin-top:6px; margin-bottom:2px; font-size:small;"><b>{title}</b><br>'
        + "<br>".join(lines)
        + "</p>"
    )
