"""Per-model overrides of Hearth's automatic choices, with the estimate for this machine."""

from __future__ import annotations

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
from app.errors import HearthError
from app.models.library import ModelEntry
from app.models.overrides import ModelChoice
from ui.dialog_parts import add_problem_and_buttons

AUTO = "Automatic"


class ModelSettingsDialog(QDialog):
    def __init__(self, core: Core, entry: ModelEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings for {0}").format(entry.name))
        self.core, self.entry = core, entry
        choice = core.overrides.get(str(entry.path))
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.engine = QComboBox()
        for label, value in (
            (AUTO, None),
            ("llama.cpp", "llama_cpp"),
            ("PyTorch / transformers", "transformers"),
        ):
            self.engine.addItem(label, value)
        self.engine.setCurrentIndex(max(self.engine.findData(choice.engine), 0))
        self.gpu_layers = self._spin(
            -2, 10_000, choice.gpu_layers, -2, "Automatic (as many as fit); -1 = all; 0 = CPU only"
        )
        self.threads = self._spin(0, 512, choice.threads, 0, "Automatic (physical cores)")
        self.context = self._spin(0, 1_048_576, choice.n_ctx, 0, "The setting in Settings")
        self.dtype = QComboBox()
        for value in (AUTO, "bfloat16", "float16", "float32"):
            self.dtype.addItem(value, None if value == AUTO else value)
        self.dtype.setCurrentIndex(max(self.dtype.findData(choice.dtype), 0))
        form.addRow(self.tr("Engine"), self.engine)
        form.addRow(self.tr("GPU layers"), self.gpu_layers)
        form.addRow(self.tr("CPU threads"), self.threads)
        form.addRow(self.tr("Context length"), self.context)
        form.addRow(self.tr("Data type (checkpoints)"), self.dtype)
        self.allow_pickle = QCheckBox(
            self.tr("Allow pickle weights (.bin): they can run code from the file")
        )
        self.allow_pickle.setChecked(bool(choice.allow_pickle))
        self.allow_pickle.setEnabled(entry.format == "transformers")
        form.addRow(self.tr("Safety"), self.allow_pickle)
        layout.addLayout(form)
        self.estimate_label = QLabel(self._estimate_text())
        self.estimate_label.setWordWrap(True)
        layout.addWidget(self.estimate_label)
        self.problem = add_problem_and_buttons(self, layout.addWidget)

    @staticmethod
    def _spin(low: int, high: int, value: int | None, auto: int, auto_text: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(low, high)
        spin.setSpecialValueText(auto_text)  # shown at the minimum, which means "automatic"
        spin.setValue(auto if value is None else value)
        return spin

    def _estimate_text(self) -> str:
        facts = self.core.facts
        if facts is None:
            return "The estimate appears once the system check has run."
        from app.machine.fit_service import estimate_entry

        spec = self.core.model_spec(self.entry)
        try:
            result = estimate_entry(self.entry, facts, spec.n_ctx)
        except HearthError as exc:
            return exc.message
        return (
            f"On this machine at {spec.n_ctx} tokens: {result.verdict_text}, about "
            f"{result.total_bytes / 1e9:.1f} GB. Hearth would use "
            f"{'all' if spec.gpu_layers == -1 else spec.gpu_layers} GPU layers and "
            f"{spec.threads} threads."
        )

    def choice(self) -> ModelChoice:
        def value(spin: QSpinBox, auto: int) -> int | None:
            return None if spin.value() == auto else spin.value()

        return ModelChoice(
            engine=self.engine.currentData(),
            gpu_layers=value(self.gpu_layers, -2),
            threads=value(self.threads, 0),
            n_ctx=value(self.context, 0),
            dtype=self.dtype.currentData(),
            allow_pickle=self.allow_pickle.isChecked() or None,
            trusted_code=self.core.overrides.get(str(self.entry.path)).trusted_code,
        )

    def accept(self) -> None:
        try:
            self.core.overrides.set(str(self.entry.path), self.choice())
        except (ValueError, OSError) as exc:
            self.problem.setText(self.tr("Not saved: {0}.").format(exc))
            self.problem.show()
            return
        super().accept()
