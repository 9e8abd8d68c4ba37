"""Whether a newer Hearth is out, in the window: asked once on first start, checked at
most once a day when allowed (``app.updates``), shown in the status bar and the About box
with a link to the release.  Nothing is downloaded or installed.

The request runs on a pool thread (``ui.background``); the window never waits for it.
"""

from __future__ import annotations

import html
import logging
import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QStatusBar, QWidget

from app import updates
from app.settings import Settings
from ui.background import run_in_background
from ui.error_banner import banner_style
from ui.i18n import translated
from ui.theme import is_dark
from ui.visual import SPACE
from wire.phrases import message_of

log = logging.getLogger(__name__)


class UpdateOffer(QFrame):
    """The one question of the first start: may Hearth check for new versions?"""

    answered = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")  # the calm banner style (ui.error_banner)
        self.setStyleSheet(banner_style(True, is_dark()))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(SPACE["m"], SPACE["xs"], SPACE["xs"], SPACE["xs"])
        self.label = QLabel(
            self.tr(
                "May Hearth check once a day whether a new version is out? Only that question "
                "is sent: nothing about you, your chats or your models. Hearth never "
                "downloads or installs anything by itself. (You can change this in Settings.)"
            )
        )
        self.label.setWordWrap(True)
        self.allow_button = QPushButton(self.tr("Check for new versions"))
        self.allow_button.setObjectName("allowUpdateCheck")
        self.decline_button = QPushButton(self.tr("No, thanks"))
        self.decline_button.setObjectName("declineUpdateCheck")
        self.allow_button.clicked.connect(lambda: self.answered.emit(True))
        self.decline_button.clicked.connect(lambda: self.answered.emit(False))
        layout.addWidget(self.label, 1)
        layout.addWidget(self.allow_button, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.decline_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.hide()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.ApplicationPaletteChange:
            self.setStyleSheet(banner_style(True, is_dark()))
        super().changeEvent(event)


class UpdateChecker(QObject):
    """Asks, checks and tells.  ``state`` says where it stands, for the About box and tests:
    "unavailable" (this build knows no releases page), "off", "checking", "newer",
    "current", "later" (checked less than a day ago, no answer kept) or "failed"."""

    def __init__(
        self,
        settings: Settings,
        status_bar: QStatusBar,
        offer: UpdateOffer,
        feed_url: Callable[[], str | None] = updates.feed_url,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.offer = offer
        self.url = feed_url()
        self.state = "unavailable" if self.url is None else "off"
        self.result: updates.UpdateCheck | None = None
        self.problem = ""
        self.started = False  # start() has run (after the first paint)
        self.requests = 0  # checks begun in this session
        self.link = QLabel("")
        self.link.setObjectName("updateLink")
        self.link.setOpenExternalLinks(True)  # the release page, in the user's browser
        self.link.hide()
        status_bar.addPermanentWidget(self.link)
        offer.answered.connect(self._answered)

    def start(self) -> None:
        """After the first paint: ask the first-start question, or check if it is time."""
        self.started = True
        if self.url is None:
            return
        if not self.settings.get("updates.asked"):
            self.offer.show()
            return
        if self.settings.get("updates.check"):
            self._resume()

    def _resume(self) -> None:
        """Checking is allowed: the last answer at once, and a new one if a day has passed."""
        self._recall()
        if self._due():
            self.check()
        elif self.result is None:
            self.state = "later"  # asked less than a day ago, with no answer to show

    def _due(self) -> bool:
        last = float(self.settings.get("updates.last_check"))
        return time.time() - last >= updates.CHECK_INTERVAL_S

    def _recall(self) -> None:
        """The last check's answer: shown again without asking again."""
        latest, page = (
            str(self.settings.get("updates.latest")),
            str(self.settings.get("updates.page")),
        )
        if not latest or not page:
            return
        try:
            known = updates.read_answer({"tag_name": latest, "html_url": page})
        except updates.UpdateCheckFailed:
            return
        self._show(known)

    def settings_changed(self) -> None:
        """The Settings dialog was accepted: checking turned off, or on (then it counts as
        the first start's answer, and a check runs if one is due)."""
        if self.url is None:
            return
        if not self.settings.get("updates.check"):
            self.state = "off"
            self.link.hide()
        elif self.state == "off":
            self.settings.set("updates.asked", True)
            self.offer.hide()
            self._resume()

    def check(self) -> None:
        """Ask the feed now, in the background.  Every attempt counts for "once a day",
        answered or not."""
        url = self.url
        if url is None or self.state == "checking":
            return
        self.settings.set("updates.last_check", time.time())
        self.requests += 1
        self.state = "checking"
        run_in_background(self, lambda: updates.check(url), self._checked, self._failed)

    def _answered(self, allowed: bool) -> None:
        self.offer.hide()
        self.settings.set("updates.asked", True)
        self.settings.set("updates.check", allowed)
        if allowed:
            self._resume()

    def _checked(self, result: updates.UpdateCheck) -> None:
        self.settings.set("updates.latest", result.latest)
        self.settings.set("updates.page", result.page)
        self._show(result)

    def _show(self, result: updates.UpdateCheck) -> None:
        self.result = result
        self.problem = ""
        self.state = "newer" if result.newer else "current"
        if result.newer:
            self.link.setText(self._newer_html())
            self.link.show()
        else:
            self.link.hide()

    def _failed(self, error: BaseException) -> None:
        # Not the user's problem, and nothing they must do: told in the About box, logged.
        if not isinstance(error, updates.UpdateCheckFailed):
            log.warning("update check failed", exc_info=error)
        self.problem = (
            translated(message_of(error)) if isinstance(error, updates.UpdateCheckFailed) else ""
        )
        self.state = "failed"

    def _newer_html(self) -> str:
        assert self.result is not None
        text = self.tr("Hearth {0} is available").format(self.result.latest)
        # Both come from the network: escaped, so they stay a link and a label.
        return f'<a href="{html.escape(self.result.page)}">{html.escape(text)}</a>'

    def about_line(self) -> str:
        """One line for the About box (HTML)."""
        if self.state == "unavailable":
            return ""
        if self.state == "off":
            return self.tr("Checking for new versions is off (Settings).")
        if self.state == "checking":
            return self.tr("Checking for a new version…")
        if self.state == "newer":
            return self._newer_html() + self.tr(": read about it and download it from its page.")
        if self.state == "current":
            return self.tr("This is the newest version.")
        if self.state == "later":
            return self.tr("Hearth checked for new versions less than a day ago.")
        return self.tr("Could not check for a new version: {0}.").format(
            self.problem or self.tr("unknown error")
        )
