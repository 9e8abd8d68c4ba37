"""Per-model overrides of Hearth's automatic choices, with the estimate for this machine.

Built from the engine catalogue (``app.engines``): the engines that can run this model's
format, and each one's options with their ranges.  Every option starts at "Automatic",
which leaves the choice to Hearth.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core import Core
from app.engines import EngineOption, engines_for
from app.errors import HearthError, describe_error
from app.machine.system_check import runtime_reason
from app.models.library import ModelEntry
from app.models.overrides import ModelChoice
from ui.dialog_parts import add_problem_and_buttons
from ui.i18n import translated
from ui.models.projector_choice import projector_choice
from ui.wheel_guard import guard_fields
from wire.phrases import message_of

Editor = QSpinBox | QComboBox | QCheckBox


def _engine_text(text: str) -> str:
    """A label or description of the catalogue, translated (see ui/declared_strings.py)."""
    return QCoreApplication.translate("Engines", text)


class ModelSettingsDialog(QDialog):
    def __init__(self, core: Core, entry: ModelEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings for {0}").format(entry.name))
        self.core, self.entry = core, entry
        choice = core.overrides.get(str(entry.path))
        layout = QVBoxLayout(self)
        form = QFormLayout()
        engines = engines_for(entry.format)
        self.engine = QComboBox()
        self.engine.addItem(self.tr("Automatic"), None)
        for engine in engines:
            self.engine.addItem(_engine_text(engine.label), engine.name)
        self.engine.setCurrentIndex(max(self.engine.findData(choice.engine), 0))
        self.engine.setAccessibleName(self.tr("Engine"))
        form.addRow(self.tr("Engine"), self.engine)
        self.editors: dict[str, Editor] = {}
        for engine in engines:
            for option in engine.options:
                if option.key not in self.editors:
                    editor = self._editor(option, getattr(choice, option.key))
                    editor.setToolTip(_engine_text(option.description))
                    editor.setAccessibleName(_engine_text(option.label))
                    self.editors[option.key] = editor
                    label = "" if isinstance(editor, QCheckBox) else _engine_text(option.label)
                    form.addRow(label, editor)
        self.projector: QComboBox | None = None
        if entry.format == "gguf":
            self.projector = projector_choice(entry, choice.projector, self)
            form.addRow(self.tr("Image projector"), self.projector)
        layout.addLayout(form)
        self.estimate_label = QLabel(self._estimate_text())
        self.estimate_label.setWordWrap(True)
        layout.addWidget(self.estimate_label)
        self.problem = add_problem_and_buttons(self, layout.addWidget)
        guard_fields(self)  # a wheel turn over a field never changes it unchosen

    def _editor(self, option: EngineOption, value: Any) -> Editor:
        automatic = self.tr("Automatic")
        if option.kind is bool:
            box = QCheckBox(_engine_text(option.label))
            box.setChecked(bool(value))
            return box
        if option.kind is int:
            spin = QSpinBox()
            low = (option.minimum if option.minimum is not None else 0) - 1
            spin.setRange(low, option.maximum if option.maximum is not None else 2**31 - 1)
            spin.setSpecialValueText(automatic)  # shown at the minimum: "let Hearth decide"
            spin.setValue(low if value is None else int(value))
            return spin
        combo = QComboBox()
        combo.addItem(automatic, None)
        if option.key == "runtime":
            self._runtime_items(combo, option)
        else:
            for item in option.choices:
                combo.addItem(_engine_text(option.words_for(item)) or self.tr("none"), item)
        combo.setCurrentIndex(max(combo.findData(value), 0))
        return combo

    def _runtime_items(self, combo: QComboBox, option: EngineOption) -> None:
        """The llama.cpp runtimes this computer has, usable ones offered; the others listed
        but not choosable, with the reason (a Metal build on Linux, Vulkan without a GPU)."""
        found = {
            str(r.get("name")): r
            for r in (self.core.facts.engines.runtimes if self.core.facts else [])
        }
        names = [*found, *(c for c in option.choices if c and c not in found)]
        model = combo.model()
        for name in names:
            runtime = found.get(name)
            if runtime is not None and runtime.get("usable"):
                combo.addItem(name, name)
                continue
            reason = (
                translated(runtime_reason(runtime))
                if runtime is not None
                else self.tr("not on this computer")
                if self.core.facts is not None
                else self.tr("not checked yet")
            )
            combo.addItem(self.tr("{0} — unavailable: {1}").format(name, reason), name)
            item = model.item(combo.count() - 1) if isinstance(model, QStandardItemModel) else None
            if item is not None and self.core.facts is not None:
                item.setEnabled(False)
            combo.setItemData(combo.count() - 1, reason, Qt.ItemDataRole.ToolTipRole)

    @staticmethod
    def _value(editor: Editor) -> Any:
        if isinstance(editor, QCheckBox):
            return True if editor.isChecked() else None
        if isinstance(editor, QSpinBox):
            return None if editor.value() == editor.minimum() else editor.value()
        return editor.currentData()

    def _estimate_text(self) -> str:
        facts = self.core.facts
        if facts is None:
            return self.tr("The estimate appears once the system check has run.")
        from app.machine.fit_service import estimate_entry

        spec = self.core.model_spec(self.entry)
        try:
            result = estimate_entry(self.entry, facts, spec.n_ctx, spec.parallel)
        except HearthError as exc:
            return translated(exc.message)
        text = self.tr(
            "On this machine at {0} tokens: {1}, about {2:.1f} GB. Hearth would use {3} GPU "
            "layers and {4} threads."
        ).format(
            spec.n_ctx,
            result.verdict_text,
            result.total_bytes / 1e9,
            self.tr("all") if spec.gpu_layers == -1 else spec.gpu_layers,
            spec.threads,
        )
        if spec.parallel > 1:
            text += " " + self.tr(
                "It writes {0} replies at once, each with a context of {1} tokens of its "
                "own: the memory for the context is counted {0} times."
            ).format(spec.parallel, spec.n_ctx)
        return text

    def choice(self) -> ModelChoice:
        values = {key: self._value(editor) for key, editor in self.editors.items()}
        return ModelChoice(
            engine=self.engine.currentData(),
            trusted_code=self.core.overrides.get(str(self.entry.path)).trusted_code,
            projector=self.projector.currentData() if self.projector is not None else None,
            **values,
        )

    def accept(self) -> None:
        try:
            self.core.overrides.set(str(self.entry.path), self.choice())
        except ValueError as exc:  # a value out of its range: said beside the fields
            self.problem.setText(self.tr("Not saved: {0}.").format(translated(message_of(exc))))
            self.problem.show()
            return
        except OSError as exc:  # the disk: logged with its stack, then said
            said = describe_error(exc, self.tr("saving the model's settings"))
            self.problem.setText(translated(said))
            self.problem.show()
            return
        super().accept()
