"""Markdown blocks to the HTML subset that QTextDocument understands.

* markdown-it (CommonMark + tables + strikethrough) with raw HTML switched off: a model's
  output can never inject markup.
* Images are never loaded (Hearth is private and offline): an image becomes a link
  with its description, opened in the browser only if clicked.
* Code blocks are highlighted with Pygments (inline colours, no style sheet) and carry
  their language and a Copy link.  The code itself is one object in the document, drawn
  by ``ui.chat.code_view`` so that a long line scrolls inside its block instead of
  widening the whole conversation; ``CodeBlocks`` remembers each block's text (the Copy
  link copies exactly what the model wrote) and its highlighted HTML.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from PySide6.QtCore import QCoreApplication

from ui.visual import Palette

COPY_CODE = "hearth:copy-code/"
QUOTE_BAR_PX = 4  # a quote is a bar (a narrow cell) and its text, this far from the bar
QUOTE_PADDING_PX = 12
CODE_IMAGE = "hearth:code/"  # the name of a code block's object in the document


@dataclass
class CodeBlock:
    """One code block shown in the transcript."""

    text: str  # exactly as the model wrote it (what Copy copies)
    body: str  # the same, highlighted, as HTML (what is drawn)
    offset: float = 0.0  # how far it is scrolled sideways, in pixels
    found: tuple[int, int, int] | None = None  # a search hit: (line, first column, end)


@dataclass
class CodeBlocks:
    """Every code block shown, by the number in its Copy link and its object's name.

    Numbers are never reused (a stale number finds nothing rather than another block).
    How far a block was scrolled sideways is kept by its text, so the conversation rendered
    again (a theme, a message being edited, a section opened) keeps its blocks' places."""

    blocks: dict[int, CodeBlock] = field(default_factory=dict)
    offsets: dict[str, float] = field(default_factory=dict)
    _next: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def add(self, text: str, body: str) -> int:
        key = next(self._next)
        self.blocks[key] = CodeBlock(text, body, self.offsets.get(text, 0.0))
        return key

    def get(self, key: int) -> CodeBlock | None:
        return self.blocks.get(key)

    def scrolled(self, key: int, offset: float) -> None:
        block = self.blocks.get(key)
        if block is not None:
            block.offset = offset
            if offset:
                self.offsets[block.text] = offset
            else:
                self.offsets.pop(block.text, None)

    @property
    def texts(self) -> dict[int, str]:
        return {key: block.text for key, block in self.blocks.items()}

    def clear(self) -> None:
        self.blocks.clear()
        if len(self.offsets) > 1000:
            self.offsets.clear()


class MarkdownRenderer:
    def __init__(
        self,
        palette: Palette,
        code_blocks: CodeBlocks,
        mono_family: str,
        wrap_code: bool = False,
    ) -> None:
        self.palette = palette
        self.code_blocks = code_blocks
        self.mono_family = mono_family
        # Wrapped code is text of the document (selectable in part, read by screen
        # readers, reachable with the keyboard); unwrapped code scrolls in its block.
        self.wrap_code = wrap_code
        self._md: Any = None  # made on first use: importing markdown-it takes ~30 ms
        self._formatters: dict[str, HtmlFormatter[str]] = {}

    def _parser(self) -> Any:
        if self._md is None:
            from markdown_it import MarkdownIt

            # breaks: a single newline is a line break, as chat apps show it (a poem keeps
            # its lines); CommonMark alone would join the lines into one paragraph.
            self._md = MarkdownIt(
                "commonmark", {"html": False, "linkify": False, "breaks": True}
            ).enable(["table", "strikethrough"])
            rules: Any = getattr(self._md.renderer, "rules")  # noqa: B009 - untyped
            rules["fence"] = self._fence
            rules["code_block"] = self._code_block
            rules["image"] = self._image
        return self._md

    def block(self, markdown: str) -> str:
        """One finished block (see ``markdown_blocks``) as HTML."""
        # strip(): a trailing newline would become a space in the document
        rendered = self._parser().render(markdown).strip()
        return self._style(rendered)

    def warm_up(self) -> None:
        """Load the Markdown parser and the highlighter for common languages ahead of the
        first reply (together they take tens of milliseconds).  Safe on another thread: it
        only imports and compiles; it does not touch the renderer's state."""
        from markdown_it import MarkdownIt  # importing it takes ~30 ms

        MarkdownIt("commonmark").enable(["table", "strikethrough"]).render("*warm*\n")
        for language in ("python", "bash", "javascript"):  # the rest load when first seen
            try:
                highlight("x = 1\n", get_lexer_by_name(language), HtmlFormatter(nowrap=True))
            except ClassNotFound:
                continue

    def code_html(self, code: str, language: str) -> str:
        """A code block: a line with its language and a Copy link, then the code: one
        object that ``ui.chat.code_view`` draws and scrolls sideways, or (``wrap_code``)
        text that wraps inside its block."""
        body = self.highlighted(code, language)
        key = self.code_blocks.add(code, body)
        p = self.palette
        label = html.escape(language or "text")
        copy = QCoreApplication.translate("MarkdownRenderer", "Copy")
        # Paragraphs with a background rather than a table: a table is a frame, and every
        # frame adds to the cost of painting a long conversation.
        head = (
            f'<p style="background-color:{p.code_background}; color:{p.muted};'
            f' font-size:small; margin-top:8px; margin-bottom:0px;">&nbsp;{label}'
            f'&nbsp;&nbsp;·&nbsp;&nbsp;<a href="{COPY_CODE}{key}" style="color:{p.link};">'
            f"{html.escape(copy)}</a></p>"
        )
        if self.wrap_code:
            return head + (
                f'<pre style="background-color:{p.code_background};'
                f" font-family:'{self.mono_family}'; white-space:pre-wrap; margin-top:0px;"
                f' margin-bottom:8px;">{body}</pre>'
            )
        return head + (
            f'<p style="margin-top:0px; margin-bottom:8px;"><img src="{CODE_IMAGE}{key}"></p>'
        )

    # -- markdown-it rules ---------------------------------------------------------------
    def _fence(self, tokens: Any, idx: int, _options: Any, _env: Any) -> str:
        token = tokens[idx]
        language = (token.info or "").strip().split(" ")[0]
        return self.code_html(token.content, language)

    def _code_block(self, tokens: Any, idx: int, _options: Any, _env: Any) -> str:
        return self.code_html(tokens[idx].content, "")

    def _image(self, tokens: Any, idx: int, _options: Any, _env: Any) -> str:
        token = tokens[idx]
        source = html.escape(str(token.attrGet("src") or ""), quote=True)
        alt = token.content or QCoreApplication.translate("MarkdownRenderer", "image")
        label = QCoreApplication.translate("MarkdownRenderer", "[image: {0}]").format(alt)
        return f'<a href="{source}">{html.escape(label)}</a>'

    # -- helpers -------------------------------------------------------------------------
    def highlighted(self, code: str, language: str) -> str:
        """The code as HTML, coloured by Pygments where it knows the language."""
        try:
            # stripnl=False: a block's leading blank lines are drawn as they are measured
            lexer = get_lexer_by_name(language, stripnl=False) if language else None
        except ClassNotFound:
            lexer = None
        if lexer is None:
            return html.escape(code.rstrip("\n"))
        formatter = self._formatters.get(self.palette.pygments_style)
        if formatter is None:
            formatter = HtmlFormatter(
                noclasses=True, nowrap=True, style=self.palette.pygments_style
            )
            self._formatters[self.palette.pygments_style] = formatter
        return str(highlight(code, lexer, formatter)).rstrip("\n")

    def _style(self, rendered: str) -> str:
        """Inline the few styles Qt needs (it has no cascading for these tags)."""
        p = self.palette
        border = f"border-color:{p.table_border};"
        return (
            rendered.replace(
                "<table>",
                f'<table cellspacing="0" cellpadding="6" border="1" style="{border} '
                'border-collapse:collapse; margin-top:4px; margin-bottom:4px;">',
            )
            .replace("<th>", f'<th style="background-color:{p.header_background};">')
            .replace(
                '<th style="text-align:',
                f'<th style="background-color:{p.header_background};text-align:',
            )
            # A quote is a bar and its text: a two-cell table (Qt's blocks have no left
            # border); quotes are rare, so the frame they cost does not matter.
            .replace(
                "<blockquote>",
                f'<table cellspacing="0" cellpadding="0" style="margin-top:6px;'
                f' margin-bottom:6px;"><tr><td width="{QUOTE_BAR_PX}"'
                f' style="background-color:{p.quote_bar};"></td>'
                f'<td style="padding-left:{QUOTE_PADDING_PX}px; color:{p.quote};">',
            )
            .replace("</blockquote>", "</td></tr></table>")
            # Lists sit close to their text, a nested list close to its item.
            .replace("<ul>", '<ul style="margin-top:2px; margin-bottom:2px;">')
            .replace("<ol>", '<ol style="margin-top:2px; margin-bottom:2px;">')
            .replace("<ol start=", '<ol style="margin-top:2px; margin-bottom:2px;" start=')
            .replace("<code>", f"<code style=\"font-family:'{self.mono_family}';\">")
            .replace("<a href=", f'<a style="color:{p.link};" href=')
        )
