"""Whether a newer Hearth is out, in the window: asked once on first start, checked at
most once a day when allowed (``app.updates``), shown in the status bar and the About box
with a link to the release.  Nothing is downloaded or installed.

The request runs on a pool thread (``ui.background``); the window never waits for it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QStatusBar, QWidget

from app import updates
from app.settings import Settings
from ui.background import run_in_background
from ui.error_banner import INFO_STYLE
from ui.i18n import translated
from wire.phrases import message_of

log = logging.getLogger(__name__)


class UpdateOffer(QFrame):
    """The one question of the first start: may Hearth check for new versions?"""

    answered = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")  # the calm banner style (ui.error_banner)
        self.setStyleSheet(INFO_STYLE)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
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


class UpdateChecker(QObject):
    """Asks, checks and tells.  ``state`` says where it stands, for the About box and tests:
    "unavailable" (this build knows no releases page), "off", "checking", "newer",
    "current" or "failed"."""

    changed = Signal()

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
        self.link = QLabel("")
        self.link.setObjectName("updateLink")
        self.link.setOpenExternalLinks(True)  # the release page, in the user's browser
        self.link.hide()
        status_bar.addPermanentWidget(self.link)
        offer.answered.connect(self._answered)

    def start(self) -> None:
        """After the first paint: ask the first-start question, or check if it is time."""
        if self.url is None:
            return
        if not self.settings.get("updates.asked"):
            self.offer.show()
            return
        if self.settings.get("updates.check"):
            self._recall()
            self.check(only_when_due=True)

    def _recall(self) -> None:
        """The last check's answer, if it was today's: shown again without asking again."""
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
        """The Settings dialog was accepted: a check just allowed runs now."""
        if self.url is None:
            return
        if not self.settings.get("updates.check"):
            self.state = "off"
            self.link.hide()
            self.changed.emit()
        elif self.state in ("off", "failed"):
            self.check(only_when_due=True)

    def check(self, only_when_due: bool = False) -> None:
        url = self.url
        if url is None or self.state == "checking":
            return
        last = float(self.settings.get("updates.last_check"))
        if only_when_due and time.time() - last < updates.CHECK_INTERVAL_S and self.result:
            return
        self.state = "checking"
        self.changed.emit()
        run_in_background(self, lambda: updates.check(url), self._checked, self._failed)

    def _answered(self, allowed: bool) -> None:
        self.offer.hide()
        self.settings.set("updates.asked", True)
        self.settings.set("updates.check", allowed)
        if allowed:
            self.check()

    def _checked(self, result: updates.UpdateCheck) -> None:
        self.settings.set("updates.last_check", time.time())
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
        self.changed.emit()

    def _failed(self, error: BaseException) -> None:
        # Not the user's problem, and nothing they must do: told in the About box, logged.
        if not isinstance(error, updates.UpdateCheckFailed):
            log.warning("update check failed", exc_info=error)
        self.problem = (
            translated(message_of(error)) if isinstance(error, updates.UpdateCheckFailed) else ""
        )
        self.state = "failed"
        self.changed.emit()

    def _newer_html(self) -> str:
        assert self.result is not None
        text = self.tr("Hearth {0} is available").format(self.result.latest)
        return f'<a href="{self.result.page}">{text}</a>'

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
        return self.tr("Could not check for a new version: {0}.").format(
            self.problem or self.tr("unknown error")
        )
