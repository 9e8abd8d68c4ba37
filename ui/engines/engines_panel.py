"""Settings › Engines: every engine and runtime Hearth can use (the PyTorch engine first,
then the llama.cpp runtimes and the packs that can be added), and installing, removing
and rolling them back without ever blocking the window.

The list and the actions are ``app.packs.engine_list``'s, the same as ``hearth engines``;
this page only draws them.  Listing asks the engines in a child process (seconds), so it
runs in the background when the page is first shown and again after each action.  An
action runs as an ``EngineJob``: an install shows a progress bar with the command's words
(bytes, speed, time left; unpacking; the check), a Cancel that keeps the download for next
time, and at the end one sentence.  While it runs every other action is disabled and the
page says why; the job goes on if Settings is closed, and a page opened again joins it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.errors import describe_error
from app.packs import engine_list
from app.packs.engine_list import (
    DELETE_DOWNLOAD,
    INSTALL,
    REINSTALL,
    REMOVE,
    ROLL_BACK,
    EngineEntry,
    Listing,
    Machine,
)
from app.packs.fetch import amount
from app.packs.pytorch_engine import InstallProgress
from ui.background import run_in_background
from ui.engines.engine_job import DONE, FAILED, EngineJob, Work, running
from ui.engines.engine_row import EngineRowView, engine_title
from ui.engines.variant_dialog import VariantDialog
from ui.i18n import translated
from ui.theme import problem_style
from ui.visual import SPACE
from wire.engine_overlay import PYTORCH

BAR_STEPS = 1000  # the bar's range while downloading: bytes are too many for an int


class EnginesPanel(QWidget):
    changed = Signal(str)  # an engine or runtime was installed, removed or rolled back
    listed = Signal()  # the rows were read (again)

    def __init__(
        self,
        machine: Machine,
        logs_dir: Path,
        free: Callable[[str], tuple[str, list[int]]] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``free(name)`` unloads the models that use an engine before it is removed and
        returns "" and their workers' process ids (the removal waits for them to end), or
        the sentence that says why it cannot yet."""
        super().__init__(parent)
        self.setObjectName("enginesPanel")
        self.setAccessibleName(self.tr("Engines and runtimes"))
        self.machine, self.logs_dir, self.free = machine, logs_dir, free
        self.listing: Listing | None = None
        self.entries: list[EngineEntry] = []
        self.rows: dict[str, EngineRowView] = {}
        self.job: EngineJob | None = None
        self.variant_dialog: VariantDialog | None = None
        self.confirm: QMessageBox | None = None
        self._listing = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, SPACE["m"])
        intro = QLabel(
            self.tr(
                "Hugging Face checkpoints run on the PyTorch engine, GGUF models on llama.cpp. "
                "What does not come with Hearth is added here, checked on this computer "
                "before it is used, and can be removed again."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.status = QLabel("")
        self.status.setObjectName("enginesStatus")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        layout.addWidget(self._progress_box())
        self.result = QLabel("")
        self.result.setObjectName("engineResult")
        self.result.setWordWrap(True)
        self.result.hide()
        layout.addWidget(self.result)
        self.busy_note = QLabel("")
        self.busy_note.setObjectName("engineBusy")
        self.busy_note.setWordWrap(True)
        self.busy_note.hide()
        layout.addWidget(self.busy_note)
        self.rows_layout = QVBoxLayout()
        self.rows_layout.setSpacing(SPACE["s"])
        layout.addLayout(self.rows_layout)
        for label in (self.status, self.result, self.busy_note, self.job_title, self.detail):
            label.setTextFormat(Qt.TextFormat.PlainText)  # a list's or a server's words
        under_way = running()
        if under_way is not None:  # started from Settings opened before: show it here
            self._follow(under_way)

    def _progress_box(self) -> QFrame:
        self.progress_box = QFrame()
        self.progress_box.setObjectName("installProgress")
        self.progress_box.setFrameShape(QFrame.Shape.StyledPanel)
        box = QVBoxLayout(self.progress_box)
        box.setContentsMargins(SPACE["m"], SPACE["s"], SPACE["m"], SPACE["s"])
        self.job_title = QLabel("")
        self.job_title.setWordWrap(True)
        box.addWidget(self.job_title)
        self.bar = QProgressBar()
        self.bar.setObjectName("installBar")
        self.bar.setTextVisible(False)
        self.bar.setAccessibleName(self.tr("Install progress"))
        box.addWidget(self.bar)
        self.detail = QLabel("")
        self.detail.setObjectName("installDetail")
        self.detail.setWordWrap(True)
        box.addWidget(self.detail)
        row = QHBoxLayout()
        self.cancel_button = QPushButton(self.tr("Cancel install"))
        self.cancel_button.setObjectName("cancelInstall")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_note = QLabel(
            self.tr("What was downloaded is kept: the next install goes on from there.")
        )
        self.cancel_note.setWordWrap(True)
        self.cancel_note.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # muted
        row.addWidget(self.cancel_button)
        row.addWidget(self.cancel_note, 1)
        box.addLayout(row)
        self.progress_box.hide()
        return self.progress_box

    # -- the rows --------------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.listing is None and not self._listing:
            self.refresh()

    def refresh(self) -> None:
        """Read the rows again, in the background."""
        self._listing = True
        if self.listing is None:
            self.status.setText(self.tr("Looking for engines and runtimes…"))
        run_in_background(self, lambda: engine_list.gather(self.machine), self._show, self._failed)

    def _failed(self, exc: BaseException) -> None:
        self._listing = False
        doing = self.tr("listing the engines")
        self.status.setText(translated(describe_error(exc, doing, str(self.logs_dir))))

    def _show(self, listing: Listing) -> None:
        self._listing = False
        self.listing = listing
        self.entries = engine_list.page_entries(listing)
        self.status.setText("")
        self.status.setVisible(False)
        for row in self.rows.values():
            self.rows_layout.removeWidget(row)
            row.deleteLater()
        self.rows = {}
        for entry in self.entries:
            view = EngineRowView(entry)
            view.requested.connect(self.request)
            self.rows[entry.name] = view
            self.rows_layout.addWidget(view)
        self._apply_busy()
        self.listed.emit()

    # -- the actions -----------------------------------------------------------------------
    def request(self, name: str, action: str) -> None:
        """A row's button: Install (the PyTorch engine asks which variant), Remove (asks
        first), Roll back, Delete download."""
        if self.job is not None:
            return  # the buttons are disabled; a late click changes nothing
        if action in (INSTALL, REINSTALL):
            if name == PYTORCH:
                self.ask_variant()
            else:
                self.install(name)
        elif action == REMOVE:
            self.ask_remove(name)
        elif action == ROLL_BACK:
            self.roll_back(name)
        elif action == DELETE_DOWNLOAD:
            self.remove(name)  # only what a stopped install left: nothing to ask

    def ask_variant(self) -> None:
        if self.listing is None:
            return
        try:
            choices = engine_list.variant_choices(self.listing.gpus)
        except Exception as exc:  # noqa: BLE001 - the lock file unreadable: said, not raised
            self._said(FAILED, translated(describe_error(exc, self.tr("reading the lock file"))))
            return
        current = next((e.variant for e in self.entries if e.name == PYTORCH), "")
        self.variant_dialog = dialog = VariantDialog(choices, current, self)
        dialog.accepted.connect(lambda: self.install(PYTORCH, dialog.chosen()))
        dialog.open()

    def install(self, name: str, variant: str | None = None) -> None:
        machine = self.machine

        def work(
            on_progress: Callable[[InstallProgress], None],
            on_stage: Callable[[str], None],
            cancel: threading.Event,
        ) -> str:
            return engine_list.install(
                machine,
                name,
                variant=variant or None,
                on_progress=on_progress,
                on_stage=on_stage,
                cancel=cancel,
            )

        title = engine_title(name)
        if variant:  # "the PyTorch engine (cpu)"
            title = self.tr("{0} ({1})").format(title, variant)
        doing = self.tr("installing {0}").format(title)
        self._start(EngineJob(name, INSTALL, doing, self.logs_dir, title), work)

    def ask_remove(self, name: str) -> None:
        entry = next((e for e in self.entries if e.name == name), None)
        size = amount(entry.size) if entry is not None and entry.size else ""
        question = self.tr("Remove {0}?").format(engine_title(name))
        if size:
            question += " " + self.tr("It frees {0} of disk.").format(size)
        question += " " + self.tr("Models that use it are unloaded first.")
        if name == PYTORCH:
            question += " " + self.tr(
                "Hugging Face checkpoints cannot be used until it is installed again."
            )
        self.confirm = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Remove"),
            question,
            QMessageBox.StandardButton.Cancel,
            self,
        )
        remove = self.confirm.addButton(self.tr("Remove"), QMessageBox.ButtonRole.DestructiveRole)
        self.confirm.setDefaultButton(QMessageBox.StandardButton.Cancel)
        remove.clicked.connect(lambda: self.remove(name))
        self.confirm.open()

    def remove(self, name: str) -> None:
        """Unload what uses it, then remove it (asked already)."""
        why, workers = self.free(name) if self.free is not None else ("", [])
        if why:
            self._said(FAILED, why)
            return
        machine, title = self.machine, engine_title(name)
        doing = self.tr("removing {0}").format(title)

        def remove_once_unloaded(*_: object) -> str:
            engine_list.wait_ended(workers)
            return engine_list.remove(machine, name)

        self._start(EngineJob(name, REMOVE, doing, self.logs_dir, title), remove_once_unloaded)

    def roll_back(self, name: str) -> None:
        machine, title = self.machine, engine_title(name)
        doing = self.tr("going back to the version of {0} installed before").format(title)
        self._start(
            EngineJob(name, ROLL_BACK, doing, self.logs_dir, title),
            lambda _p, _s, _c: engine_list.roll_back(machine, name),
        )

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.cancel_button.setEnabled(False)
            self.detail.setText(self.tr("Cancelling…"))

    # -- one job at a time -----------------------------------------------------------------
    def _start(self, job: EngineJob, work: Work) -> None:
        if running() is not None:
            return
        self._follow(job)
        job.start(work)

    def _follow(self, job: EngineJob) -> None:
        """Show ``job``'s progress here until it ends (one started on another page too)."""
        self.job = job
        job.progress.connect(self._progress)
        job.stage.connect(self._stage)
        job.finished.connect(self._finished)
        self.result.hide()
        words = {
            INSTALL: self.tr("Installing {0}…"),
            REMOVE: self.tr("Removing {0}…"),
            ROLL_BACK: self.tr("Going back to the version of {0} installed before…"),
        }
        self.job_title.setText(words[job.action].format(job.label))
        self.bar.setRange(0, 0)  # busy until the first progress
        self.detail.setText("")
        installing = job.action == INSTALL
        self.cancel_button.setVisible(installing)
        self.cancel_button.setEnabled(not job.cancel_event.is_set())
        self.cancel_note.setVisible(installing)
        self.progress_box.show()
        if job.last_stage:
            self._stage(job.last_stage)
        if job.last is not None:
            self._progress(job.last)
        self._apply_busy()

    def _progress(self, progress: InstallProgress) -> None:
        if self.job is not None and self.job.cancel_event.is_set():
            return  # "Cancelling…" stays until it has stopped
        if progress.stage == "download" and progress.total:
            self.bar.setRange(0, BAR_STEPS)
            self.bar.setValue(round(BAR_STEPS * min(progress.done / progress.total, 1.0)))
        elif progress.stage == "unpack" and progress.total:
            self.bar.setRange(0, progress.total)
            self.bar.setValue(progress.done + 1)
        else:
            self.bar.setRange(0, 0)  # the check: no fraction to show
        self.detail.setText(translated(engine_list.progress_line(progress)))

    def _stage(self, stage: str) -> None:
        if self.job is not None and not self.job.cancel_event.is_set():
            self.bar.setRange(0, 0)
            self.detail.setText(translated(stage))

    def _finished(self, outcome: str, sentence: str) -> None:
        name = self.job.name if self.job is not None else ""
        self.job = None
        self.progress_box.hide()
        self._said(outcome, sentence)
        self._apply_busy()
        if outcome == DONE:
            self.changed.emit(name)
        self.refresh()

    def _said(self, outcome: str, sentence: str) -> None:
        """The sentence an action ends with, under the progress's place."""
        self.result.setText(sentence)
        self.result.setStyleSheet(problem_style() if outcome == FAILED else "")
        self.result.show()

    def _apply_busy(self) -> None:
        why = ""
        if self.job is not None:
            why = self.tr(
                "One install, removal or rollback runs at a time: the other actions wait "
                "until this one has finished or been cancelled."
            )
        self.busy_note.setText(why)
        self.busy_note.setVisible(bool(why))
        for row in self.rows.values():
            row.set_busy(why)
