"""Downloads of catalogue models as the welcome's and the Models screen's cards show them:
one click finds the recommended file (``app.hub.pull.plan_catalog``, off the main thread),
hands it to the download manager, and reports progress until the file is verified.

Every card of one model shows the same download: the state lives here, by model name,
and a card made later (the Models screen opened mid-download) asks ``state``.  Problems
(no network, a repository gone, a full disk) end the download with the manager's own
sentence, and the card offers to try again; nothing is lost, a retry resumes.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer, Signal

from app.core import Core
from app.errors import describe_error
from app.hub import downloads as dl
from app.hub.catalog import CatalogEntry, preferred_source
from app.hub.downloads import DownloadManager, PullPlan
from app.hub.repo_files import human_duration, human_size
from ui.background import run_in_background
from ui.i18n import translated

POLL_MS = 300


@dataclass
class CardState:
    """What a card shows for its model's download."""

    fraction: float  # 0..1; -1 while the file is being looked up
    words: str
    ids: tuple[str, ...] = ()
    model_path: str = ""


class CatalogDownloads(QObject):
    changed = Signal(str)  # a model's state changed: its cards read ``state``
    finished = Signal(str, str)  # model name, path of the downloaded model file
    failed = Signal(str, str)  # model name, what went wrong (words)

    def __init__(self, core: Core, manager: DownloadManager, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.core, self.manager = core, manager
        self.states: dict[str, CardState] = {}
        # A failure's details (each hub's own answer), shown folded under its sentence.
        self.details: dict[str, str] = {}
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self._poll)

    def state(self, name: str) -> CardState | None:
        return self.states.get(name)

    def start(self, entry: CatalogEntry) -> None:
        """Look up the recommended file and download it (nothing if already under way)."""
        if entry.name in self.states:
            return
        from app.hub.pull import plan_catalog

        self.states[entry.name] = CardState(-1, self.tr("Finding the file…"))
        self.changed.emit(entry.name)
        source = preferred_source(str(self.core.settings.get("appearance.language")))
        run_in_background(
            self,
            lambda: plan_catalog(self.core.settings, entry, source),
            lambda found: self._planned(entry, found),
            lambda exc: self._fail(
                entry.name,
                self._said(exc, self.tr("finding the model's file")),
                translated(getattr(exc, "details", "")),
            ),
        )

    def _said(self, exc: BaseException, doing: str) -> str:
        """The one path for errors: logged with the stack, said in one sentence."""
        return translated(describe_error(exc, doing, str(self.core.paths.logs_dir)))

    def cancel(self, name: str) -> None:
        state = self.states.pop(name, None)
        if state is None:
            return
        for download_id in state.ids:
            self.manager.cancel(download_id)
        self.changed.emit(name)

    def _planned(self, entry: CatalogEntry, found: tuple[str, str, PullPlan]) -> None:
        if entry.name not in self.states:
            return  # cancelled while the file was looked up
        source, repo_id, plan = found
        target = self.core.models_dir / repo_id
        revision = "master" if source == "modelscope" else "main"
        try:
            items = [
                self.manager.add(source, repo_id, file, target, revision=revision)
                for file in plan.files
            ]
        except Exception as exc:  # noqa: BLE001 - a full disk, a bad path: said on the card
            self._fail(entry.name, self._said(exc, self.tr("adding the download")))
            return
        models = [i for i in items if i.target.endswith(".gguf")] or items
        self.states[entry.name] = CardState(
            0.0,
            self.tr("Starting…"),
            tuple(i.id for i in items),
            min(i.target for i in models),  # a split model loads from its first part
        )
        self.changed.emit(entry.name)
        self.timer.start()

    def _fail(self, name: str, message: str, details: str = "") -> None:
        self.states.pop(name, None)
        self.details[name] = details
        self.changed.emit(name)
        self.failed.emit(name, message)

    def _poll(self) -> None:
        running = False
        for name, state in list(self.states.items()):
            if not state.ids:
                running = True  # still looking up the file
                continue
            items = [self.manager.get(i) for i in state.ids]
            broken = next((i for i in items if i.state in (dl.FAILED, dl.CANCELLED)), None)
            if broken is not None:
                self._fail(name, broken.error or self.tr("The download was cancelled."))
                continue
            if all(i.state == dl.DONE for i in items):
                del self.states[name]
                self.changed.emit(name)
                self.finished.emit(name, state.model_path)
                continue
            running = True
            received = sum(i.received for i in items)
            size = sum(i.size for i in items) or 1
            speed = sum(i.speed for i in items)
            left = (size - received) / speed if speed > 0 else None
            words = self.tr("{0} of {1}").format(human_size(received), human_size(size))
            if any(i.state == dl.VERIFYING for i in items):
                words = self.tr("Checking the file…")
            elif any(i.state == dl.PAUSED for i in items):
                words = self.tr("Paused — resume it in Models › Downloads")
            elif left is not None:
                words += self.tr(" · {0}/s · {1} left").format(
                    human_size(int(speed)), human_duration(left)
                )
            fraction = received / size
            if (fraction, words) != (state.fraction, state.words):
                state.fraction, state.words = fraction, words
                self.changed.emit(name)
        if not running:
            self.timer.stop()
