"""Windows that fit the screen they open on: a netbook, a laptop at 125 %, a screen at 2×.

Hearth's windows are sized from the *available* area of their screen (without panels and
docks), in logical pixels, so the same rules hold at any scale:

* the main window's first size is a share of the screen, centred, never more than a
  comfortable reading size; a remembered size is kept only while it still fits (a laptop
  taken off its big monitor gets a window it can see whole);
* a dialog whose content can be long is made no larger than the screen (``fit_to_screen``)
  and scrolls inside (the settings' pages), so its buttons stay reachable.  (Not an
  application-wide event filter: Python would then see every event of every widget.)
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

# The first window's size: this share of the screen, at most the comfortable size; on a
# small screen (a netbook, a laptop at 125 %) all of it up to the small size.
SHARE = 0.9
COMFORTABLE = QSize(1280, 860)
SMALL = QSize(1000, 640)
# What the window's frame and title bar take, when the window system does not say yet.
FRAME_ALLOWANCE = QSize(16, 40)


def screen_of(widget: QWidget) -> QScreen:
    """The screen ``widget`` is on, or its parent window's, or the primary one."""
    for candidate in (widget, widget.parentWidget()):
        if candidate is not None:
            screen = candidate.screen()
            if screen is not None:
                return screen
    primary = QGuiApplication.primaryScreen()
    assert primary is not None, "Qt has no screen"
    return primary


def _room(screen: QScreen) -> QRect:
    """The screen's available area less a frame's allowance."""
    area = screen.availableGeometry()
    return QRect(
        area.topLeft(),
        QSize(
            max(area.width() - FRAME_ALLOWANCE.width(), 320),
            max(area.height() - FRAME_ALLOWANCE.height(), 240),
        ),
    )


def first_window_size(screen: QScreen) -> QSize:
    room = _room(screen)
    return QSize(
        min(max(int(room.width() * SHARE), SMALL.width()), room.width(), COMFORTABLE.width()),
        min(max(int(room.height() * SHARE), SMALL.height()), room.height(), COMFORTABLE.height()),
    )


def place_first_window(window: QWidget) -> None:
    """Size ``window`` from its screen and centre it there."""
    screen = screen_of(window)
    size = first_window_size(screen)
    window.resize(size)
    centre = screen.availableGeometry().center()
    window.move(centre - QPoint(size.width() // 2, size.height() // 2))


def keep_on_screen(window: QWidget) -> None:
    """After a remembered geometry is restored: shrink and move ``window`` so that it lies
    whole on the screen it is on (a screen may have gone, or be smaller now)."""
    screen = screen_of(window)
    room = _room(screen)
    frame = window.frameGeometry()
    if room.contains(frame) and not window.isMaximized():
        return
    if window.isMaximized() or window.isFullScreen():
        return  # the window system sizes it
    size = window.size().boundedTo(room.size())
    window.resize(size)
    x = min(max(frame.x(), room.x()), room.right() - size.width())
    y = min(max(frame.y(), room.y()), room.bottom() - size.height())
    window.move(max(x, room.x()), max(y, room.y()))


def fit_to_screen(window: QWidget) -> None:
    """Make ``window`` (a dialog, most often) no larger than its screen's room, and keep
    it on that screen."""
    room = _room(screen_of(window))
    size = window.size()
    if size.width() <= room.width() and size.height() <= room.height():
        if window.isVisible():
            keep_on_screen(window)
        return
    window.resize(size.boundedTo(room.size()))
    if window.isVisible():
        keep_on_screen(window)
