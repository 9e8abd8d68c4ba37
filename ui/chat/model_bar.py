"""The model picker above the chat: which models can chat, which one is chosen, its loading.

Listing models reads files and asks servers, so it runs on a background thread; loading
runs in the worker and reports through an ``EventRelay``.  The bar also remembers what
each model's authors recommend for sampling (read once per model, off the main thread).
Its status line and progress bar are shown under the transcript by the Chat screen.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QWidget,
)

from app.chat.presets import recommended_sampling
from app.core import Core
from app.engine.seat import Seat
from app.engines import engine_for
from app.machine.fit import CPU, FITS_GPU, NO_FIT, PARTIAL
from app.models.library import ModelEntry, model_at
from ui.background import run_in_background
from ui.chat.model_picker import ModelPicker, size_words
from ui.elided_label import ElidedLabel
from ui.event_relay import LOAD_END, EventRelay
from ui.i18n import translated
from wire import protocol
from wire.model_spec import ModelSpec
from wire.phrases import from_wire

log = logging.getLogger(__name__)

# What the engines say while they load a model or read a long prompt, for translation.
STAGES = (
    QT_TRANSLATE_NOOP("ModelBar", "Starting the engine"),
    QT_TRANSLATE_NOOP("ModelBar", "Reading the model file"),
    QT_TRANSLATE_NOOP("ModelBar", "Preparing the chat template"),
    QT_TRANSLATE_NOOP("ModelBar", "Reading the tokenizer"),
    QT_TRANSLATE_NOOP("ModelBar", "Loading the weights"),
    QT_TRANSLATE_NOOP("ModelBar", "Connecting to the server"),
    QT_TRANSLATE_NOOP("ModelBar", "Reading the prompt"),
    QT_TRANSLATE_NOOP("ModelBar", "Waiting for a free slot"),
    QT_TRANSLATE_NOOP("ModelBar", "Ready"),
)

# How a model will run here, as the picker says it (from the fit estimate).
PICKER_VERDICTS = {
    FITS_GPU: QT_TRANSLATE_NOOP("ModelBar", "on the GPU"),
    PARTIAL: QT_TRANSLATE_NOOP("ModelBar", "partly on the GPU"),
    CPU: QT_TRANSLATE_NOOP("ModelBar", "on the CPU"),
    NO_FIT: QT_TRANSLATE_NOOP("ModelBar", "too large here"),
}

LEFT_LOOKS = 40  # half-seconds to wait for the model chosen before to end
Report = Callable[[BaseException, str], None]
ShowError = Callable[[str], None]


class ModelBar(QWidget):
    listed = Signal(list)  # every model found (the library), for the Models screen
    models_ready = Signal()  # the first list arrived (a default model was chosen, if any)
    model_chosen = Signal(object)  # a ModelEntry
    model_loaded = Signal(dict)  # the worker's "loaded" event
    settings_requested = Signal()  # Instructions…
    said = Signal(str)  # news for the status bar ("Unloaded …")

    def __init__(
        self,
        core: Core,
        seat: Seat,
        show_error: ShowError,
        report: Report,
        defer: Callable[[Callable[[], None]], None],
        load_on_start: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.core, self.seat = core, seat
        self.show_error, self.report, self.defer = show_error, report, defer
        self.models: list[ModelEntry] = []  # what the picker offers (chat-capable)
        self.library: list[ModelEntry] = []  # everything found, for the Models screen
        self.fits: dict[str, Any] = {}  # Estimate (or why none) by model path
        self.remote: list[ModelEntry] = []  # models of the server endpoints
        self.model: ModelEntry | None = None
        self.loaded_context: int | None = None  # the context of the loaded model
        self.closed = False  # late background results are dropped after the window closed
        self._advice: dict[str, dict[str, Any]] = {}  # model path -> its recommended sampling
        # The load under way: its relay, or while its spec is made off the main thread a
        # ticket; a load that another choice replaced finds it changed and says nothing.
        self._loader: object | None = None
        self._ready_text = ""  # the status line once the model is loaded
        self._load_on_start = load_on_start
        self._opening: Path | None = None  # a model file being read (Open model file…)
        self._left: tuple[ModelSpec, str] | None = None  # the model chosen before, to say
        self._build()

    def _build(self) -> None:
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.picker = ModelPicker()
        self.picker.setAccessibleName(self.tr("Model"))
        self.picker.activated.connect(self._picker_activated)
        self.open_button = QPushButton(self.tr("Open model file…"))
        self.open_button.clicked.connect(self.open_model_file)
        self.settings_button = QPushButton(self.tr("Model settings…"))
        self.settings_button.setToolTip(
            self.tr("Engine, GPU layers, threads and context for this model")
        )
        self.settings_button.clicked.connect(self.open_model_settings)
        self.instructions_button = QPushButton(self.tr("Instructions…"))
        self.instructions_button.setObjectName("conversationSettingsButton")
        self.instructions_button.setToolTip(
            self.tr("System prompt, preset and reply settings of this conversation")
        )
        self.instructions_button.clicked.connect(self.settings_requested)
        # No "Model:" label: the box shows a model's name, and its room is the name's.
        layout.addWidget(self.picker, 1)
        for button in (self.open_button, self.settings_button, self.instructions_button):
            layout.addWidget(button)
        # Shown under the transcript by the Chat screen:
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.setAccessibleName(self.tr("Model loading progress"))
        self.progress.hide()
        self.status = ElidedLabel(self.tr("Finding models…"))
        self.status.setObjectName("modelStatus")

    def set_busy(self, busy: bool) -> None:
        """While a reply streams the model cannot change."""
        for widget in (self.picker, self.open_button, self.settings_button):
            widget.setEnabled(not busy)

    # -- the list of models -------------------------------------------------------------
    def refresh(self) -> None:
        core = self.core
        run_in_background(
            self,
            lambda: (core.models(), core.remote_models()),
            self._listed,
            lambda exc: self.report(exc, self.tr("listing models")),
        )

    def _listed(self, found: tuple[list[ModelEntry], list[ModelEntry]]) -> None:
        if self.closed:
            return  # the list arrived after the window closed: nothing to show or load
        models, self.remote = found
        # The Models screen shows the library and hands it back (set_library), which fills
        # the picker: one place for that.
        self.listed.emit(models)
        try:
            default = self.core.default_model(models)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.report(exc, self.tr("choosing a model"))
            self.status.setText(self.tr("No model"))
            self.models_ready.emit()
            return

        # Starting the engine's process takes the main thread tens of milliseconds: never
        # before the window has been painted once.
        def choose_default() -> None:
            self.select(default, load=self._load_on_start)

        self.defer(choose_default)
        self.models_ready.emit()

    def set_library(self, models: list[ModelEntry]) -> None:
        """The library changed (found, downloaded, deleted): the picker follows."""
        self.library = models
        self.models = self.core.chat_models(models) + self.remote
        if self.model is not None and all(m.path != self.model.path for m in self.models):
            self.models.append(self.model)  # a model opened from a file stays offered
        self._fill()

    def set_fits(self, fits: dict[str, Any]) -> None:
        """How each library model will run here (``Estimate`` by path, or why unknown)."""
        self.fits = dict(fits)
        self._fill()

    def item_label(self, entry: ModelEntry, loaded_path: str | None) -> str:
        """What the picker says of a model: name, size, quantization, how it runs here,
        its engine, and whether it is loaded; the starter is called the demo it is."""
        parts = [entry.name]
        if entry.size_bytes:
            parts.append(size_words(entry.size_bytes))
        quant = entry.quantization
        if quant and quant not in entry.name:
            parts.append(quant)
        fit = self.fits.get(str(entry.path))
        verdict = getattr(fit, "verdict", "")
        if verdict:
            parts.append(self.tr(str(PICKER_VERDICTS.get(verdict, verdict))))
        parts.append(QCoreApplication.translate("Engines", engine_for(entry.format).label))
        if entry.reads_images:
            parts.append(self.tr("reads images"))
        if entry.source == "starter":
            parts.append(self.tr("demo model"))
        label = " · ".join(parts)
        if loaded_path == str(entry.path):
            label += "  ● " + self.tr("loaded")
        return label

    def _fill(self) -> None:
        self.picker.blockSignals(True)
        self.picker.clear()
        model = self.picker.model()
        loaded = self.seat.loaded_model
        loaded_path = loaded.path if loaded is not None else None
        for index, entry in enumerate(self.models):
            self.picker.addItem(self.item_label(entry, loaded_path), str(entry.path))
            self.picker.set_short(index, entry.name, self._state(entry, loaded_path))
            tip = translated(entry.problem) or f"{entry.path}\n{entry.size_bytes / 1e6:,.0f} MB"
            self.picker.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
            if entry.problem and isinstance(model, QStandardItemModel):
                item = model.item(index)
                if item is not None:
                    item.setEnabled(False)
        if self.model is not None:
            self.picker.setCurrentIndex(self.picker.findData(str(self.model.path)))
        self.picker.blockSignals(False)

    def _state(self, entry: ModelEntry, loaded_path: str | None) -> str:
        """What the closed picker says beside a model's name."""
        if loaded_path == str(entry.path):
            return "● " + self.tr("loaded")
        if self._loader is not None and self.model is not None and entry.path == self.model.path:
            return self.tr("loading…")
        return ""

    def _picker_activated(self, index: int) -> None:
        if 0 <= index < len(self.models):
            self.select(self.models[index])

    def open_model_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Open a GGUF model"),
            str(self.core.models_dir),
            "GGUF models (*.gguf);;All files (*)",
        )
        if path:
            self.add_model_file(Path(path))

    def add_model_file(self, path: Path) -> None:
        """Open a model file: its header, and the projector beside it (the library's one
        rule, ``model_at``), read in the background; then it is chosen, unless another
        model was chosen meanwhile."""
        self._opening = path

        def read(entry: ModelEntry) -> None:
            if self.closed or self._opening != path:
                return
            if entry.problem:
                self.show_error(
                    self.tr(
                        "This file cannot be used as a model: {0} Choose another file or model."
                    ).format(translated(entry.problem))
                )
                return
            self.select(entry)

        run_in_background(
            self,
            lambda: model_at(path),
            read,
            lambda exc: self.report(exc, self.tr("reading the model file")),
        )

    # -- choosing and loading -----------------------------------------------------------
    def select(self, entry: ModelEntry, load: bool = True) -> bool:
        self._opening = None  # a file still being read is no longer what was chosen
        if not entry.usable:
            self.show_error(
                self.tr("{0} cannot be used: {1}").format(entry.name, translated(entry.problem))
            )
            return False
        before = self.seat.loaded_model
        if before is not None and self.model is not None and before.path != str(entry.path):
            self._left = (before, self.model.name)  # its lease goes with the next load
        if all(m.path != entry.path for m in self.models):
            self.models.append(entry)
        self.model = entry
        self.seat.label = entry.name  # how lists of loaded models name it
        self.advice()  # start reading the model's advice now, off the main thread
        self._fill()
        try:
            self.core.remember_model(entry)
        except (OSError, ValueError) as exc:
            self.report(exc, self.tr("saving the model choice"))
        self._ready_text = entry.name
        self.status.setText(entry.name)
        self.model_chosen.emit(entry)
        if load:
            self.load()
        return True

    def load(self) -> None:
        if self.model is None or self.closed:
            return
        entry, core, ticket = self.model, self.core, object()
        self._loader = ticket
        self.progress.setValue(0)
        self.progress.show()
        self._fill()  # the picker says it is loading
        # Making the spec reads the model's header and, before the system check has
        # answered, probes memory and GPUs: never on the window's thread.
        run_in_background(
            self,
            lambda: core.load_spec(entry),  # may refuse: a model that cannot load here
            lambda spec: self._spec_made(ticket, spec),
            lambda exc: self._load_refused(ticket, exc),
        )

    def _spec_made(self, ticket: object, spec: ModelSpec) -> None:
        if ticket is not self._loader or self.closed:
            return  # another model was chosen meanwhile, or the window closed
        relay = EventRelay(self, lambda event: self._load_event(relay, event), LOAD_END)
        self._loader = relay
        self.seat.load(spec, relay.callback)
        if self._left is not None:
            self._watch_left(*self._left)
            self._left = None

    def _load_refused(self, ticket: object, exc: BaseException) -> None:
        if ticket is not self._loader or self.closed:
            return
        self._loader = None
        self.progress.hide()
        self._ready_text = self.tr("Not loaded")
        self.status.setText(self._ready_text)
        self._fill()
        self.report(exc, self.tr("loading the model"))

    def _watch_left(self, spec: ModelSpec, name: str) -> None:
        """The model chosen before lost its lease: say "Unloaded …" once the engine host
        has ended it (at once in the window alone; a model the API still uses stays, and
        nothing is said).  A few looks at the host's list, a second apart."""
        looks = [0]
        timer = QTimer(self)
        timer.setInterval(500)

        def look() -> None:
            looks[0] += 1
            if self.closed or looks[0] > LEFT_LOOKS:
                timer.stop()
                timer.deleteLater()
            elif all(model.spec != spec for model in self.core.engines.loaded()):
                timer.stop()
                timer.deleteLater()
                self.said.emit(self.tr("Unloaded {0}").format(name))

        timer.timeout.connect(look)
        timer.start()

    def _load_event(self, relay: EventRelay, event: dict[str, Any]) -> None:
        if relay is not self._loader:
            return  # a load that another model choice replaced
        kind = event["type"]
        if kind == protocol.PROGRESS:
            self.show_progress(float(event.get("fraction", 0.0)), str(event.get("stage", "")))
        elif kind == protocol.ERROR:
            self._loader = None
            self.progress.hide()
            self._ready_text = self.tr("Not loaded")
            self.status.setText(self._ready_text)
            name = self.model.name if self.model else self.tr("The model")
            self.show_error(
                self.tr("{0} could not be loaded. {1}").format(name, translated(from_wire(event)))
            )
        elif kind == protocol.LOADED:
            self._loader = None
            self.loaded(event)

    def show_progress(self, fraction: float, stage: str) -> None:
        """Loading the model, or reading a long prompt before the first word."""
        self.progress.show()
        self.progress.setValue(int(fraction * 100))
        self.status.setText(self.tr(stage) if stage in STAGES else stage)

    def progress_done(self) -> None:
        """A reply ended: whatever progress it showed is over."""
        if self._loader is None:
            self.progress.hide()
            self.status.setText(self._ready_text or self.status.full_text())

    def loaded(self, event: dict[str, Any]) -> None:
        """The worker loaded the model (on its own, or on the way to a reply)."""
        notes = event.get("notes") or []
        if notes:
            self.show_error(" ".join(str(n) for n in notes))
        self.progress.hide()
        name = self.model.name if self.model else ""
        context = event.get("n_ctx")
        if isinstance(context, int):
            self.loaded_context = context
        self._ready_text = (
            self.tr("{0} · {1} tokens context").format(name, context) if context else name
        )
        self.status.setText(self._ready_text)
        self._fill()  # the picker marks the loaded model
        self.model_loaded.emit(event)

    def engine_stopped(self) -> None:
        """The worker died: nothing is loaded any more."""
        self._ready_text = self.tr("Not loaded")
        self.status.setText(self._ready_text)
        self._fill()

    def advice(self) -> dict[str, Any]:
        """The chosen model's recommended sampling: read once per model on a background
        thread (a GGUF's metadata takes tens of milliseconds to parse); {} until then."""
        if self.model is None:
            return {}
        key = str(self.model.path)
        if key not in self._advice:
            self._advice[key] = {}
            entry = self.model
            run_in_background(
                self,
                lambda: recommended_sampling(entry),
                lambda advice: self._advice.__setitem__(key, advice),
                lambda exc: log.warning("no recommended settings for %s: %s", key, exc),
            )
        return self._advice[key]

    def open_model_settings(self) -> None:
        if self.model is None:
            self.show_error(self.tr("Choose a model first."))
            return
        from ui.models.model_settings_dialog import ModelSettingsDialog

        dialog = ModelSettingsDialog(self.core, self.model, self)
        dialog.accepted.connect(self.load)
        dialog.open()
