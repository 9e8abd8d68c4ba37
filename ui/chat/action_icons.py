"""The actions under each message as icons (Copy, Regenerate, Edit, Delete…), with their
names in a tooltip on hover and for the keyboard.

In the conversation (a ``QTextBrowser``), an action is a link around a 16-pixel icon with a
little room around it: a larger target than the words with dots between them had been,
and the same link for the mouse, the keyboard (Tab moves from link to link, Enter runs
it) and the tests.  The icon is a picture named by its address
(``hearth-icon:NAME/COLOUR``) that ``CodeBlockObjects``, which lays out and draws the
conversation's pictures, hands to ``icon_size`` and ``draw_icon``: nothing is loaded.
``ActionTips`` says each action's name where the pointer rests.
"""

from __future__ import annotations

import html

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QEvent,
    QObject,
    QPoint,
    QRectF,
    QSizeF,
    Qt,
    QTimer,
)
from PySide6.QtGui import QCursor, QHelpEvent, QKeyEvent, QPainter, QTextFormat
from PySide6.QtWidgets import QTextBrowser, QToolTip

from ui.icons import ICON_SIZE, icon_image, screen_scale

ICON_SCHEME = "hearth-icon"
ACTION = "hearth:act/"  # a link to an action on a message: hearth:act/NAME/MESSAGE_ID
# action → (icon, name shown on hover)
ACTIONS: dict[str, tuple[str, object]] = {
    "edit": ("pencil", QT_TRANSLATE_NOOP("TranscriptView", "Edit")),
    "copy-md": ("copy", QT_TRANSLATE_NOOP("TranscriptView", "Copy (Markdown)")),
    "copy-text": ("type", QT_TRANSLATE_NOOP("TranscriptView", "Copy as text")),
    "regenerate": ("refresh-cw", QT_TRANSLATE_NOOP("TranscriptView", "Regenerate")),
    "continue": ("play", QT_TRANSLATE_NOOP("TranscriptView", "Continue")),
    "delete": ("trash-2", QT_TRANSLATE_NOOP("TranscriptView", "Delete")),
    "prev": ("chevron-left", QT_TRANSLATE_NOOP("TranscriptView", "Previous version")),
    "next": ("chevron-right", QT_TRANSLATE_NOOP("TranscriptView", "Next version")),
}


def action_name(action: str) -> str:
    known = ACTIONS.get(action)
    return QCoreApplication.translate("TranscriptView", str(known[1])) if known else ""


def icon_link(href: str, action: str, colour: str) -> str:
    """The action's icon as a link (``href``), with room around it."""
    name = ACTIONS[action][0]
    title = html.escape(action_name(action))
    source = f"{ICON_SCHEME}:{name}/{colour.lstrip('#')}"
    return (
        f'<a href="{href}" title="{title}" style="text-decoration:none;">'
        f'<img src="{source}" width="{ICON_SIZE}" height="{ICON_SIZE}" alt="{title}"'
        ' style="vertical-align: middle;"></a>'
    )


def parse_icon(address: str) -> tuple[str, str] | None:
    """(icon, colour) of an icon's address, or None for any other address."""
    if not address.startswith(f"{ICON_SCHEME}:"):
        return None
    name, _, colour = address.removeprefix(f"{ICON_SCHEME}:").partition("/")
    if not any(name == icon for icon, _label in ACTIONS.values()):
        return None
    if len(colour) != 6 or any(c not in "0123456789abcdefABCDEF" for c in colour):
        return None
    return name, f"#{colour.lower()}"


def icon_size(fmt: QTextFormat) -> QSizeF:
    """The room of an action's icon in the text (none for any other picture: the
    conversation never shows images)."""
    if parse_icon(fmt.toImageFormat().name()) is None:
        return QSizeF(0, 0)
    return QSizeF(ICON_SIZE, ICON_SIZE)


def draw_icon(painter: QPainter, rect: QRectF, fmt: QTextFormat) -> None:
    """Draw an action's icon where the text layout put it (the conversation's pictures
    are drawn by ``CodeBlockObjects``, which hands icons over to here)."""
    found = parse_icon(fmt.toImageFormat().name())
    if found is not None:
        scale = max(screen_scale(), painter.device().devicePixelRatioF())
        painter.drawImage(rect, icon_image(found[0], found[1], ICON_SIZE, scale))


class ActionTips(QObject):
    """The name of the action under the pointer, as a tooltip (installed on the view's
    viewport: Qt's text views do not show a link's title by themselves), and of the action
    reached by Tab, beside it: an icon is named for the keyboard as for the mouse."""

    def __init__(self, view: QTextBrowser) -> None:
        super().__init__(view)
        self.view = view
        self._pending = ""  # said once the key that asked for it is let go
        self._key_down = False
        view.viewport().installEventFilter(self)
        view.installEventFilter(self)  # Tab moves onto the next link, and Qt says nothing

    def say(self, words: str) -> None:
        """Show ``words`` where the action was chosen.  While a key is down the words wait
        for its release: on macOS a tooltip hides at every key press and release."""
        if self._key_down:
            self._pending = words
        else:
            QToolTip.showText(self.feedback_point(), words, self.view.viewport())

    def _chosen_by_keyboard(self) -> bool:
        """Tab put the text cursor on a link (the pointer only hovers, it moves nothing)."""
        cursor = self.view.textCursor()
        return cursor.hasSelection() and bool(cursor.charFormat().anchorHref())

    def _key(self, event: QKeyEvent) -> None:
        if event.isAutoRepeat():
            return
        if event.type() == QEvent.Type.KeyPress:
            self._key_down = True
            return
        if event.type() != QEvent.Type.KeyRelease:
            return
        self._key_down = False
        if self._pending:
            words, self._pending = self._pending, ""
            QTimer.singleShot(0, lambda: self.say(words))
        elif event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
            QTimer.singleShot(0, self._reached)  # the view has moved to the link by now

    def _reached(self) -> None:
        if not self._chosen_by_keyboard():
            return
        anchor = self.view.textCursor().charFormat().anchorHref()
        if not anchor.startswith(ACTION):
            return
        name = action_name(anchor.removeprefix(ACTION).partition("/")[0])
        if name:
            self.say(name)

    def feedback_point(self) -> QPoint:
        """Where to say what an action did ("Copied"): at the pointer when it rests on an
        action (a click), else beside the action the keyboard chose (Enter)."""
        viewport = self.view.viewport()
        pointer = viewport.mapFromGlobal(QCursor.pos())
        if viewport.rect().contains(pointer) and self.view.anchorAt(pointer).startswith(ACTION):
            return QCursor.pos()
        place = self.view.cursorRect(self.view.textCursor())
        return viewport.mapToGlobal(place.bottomRight())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is getattr(self, "view", None):  # (no view while Qt takes it apart)
            if isinstance(event, QKeyEvent):
                self._key(event)
            elif event.type() == QEvent.Type.FocusOut:  # its key's release goes elsewhere
                self._key_down, self._pending = False, ""
            return False
        if event.type() != QEvent.Type.ToolTip or not isinstance(event, QHelpEvent):
            return False
        anchor = self.view.anchorAt(event.pos())
        if not anchor.startswith(ACTION):
            return False
        name = action_name(anchor.removeprefix(ACTION).partition("/")[0])
        if not name:
            return False
        QToolTip.showText(event.globalPos(), name, self.view.viewport())
        return True
