"""How much of the model's context window the conversation uses, and what happens when full."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from ui.theme import warning_style


class ContextMeter(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("contextMeter")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setMaximumWidth(120)
        self.bar.setMaximumHeight(8)
        self.bar.setAccessibleName(self.tr("Context used"))
        self.label = QLabel()
        self.label.setObjectName("contextLabel")
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        self.setToolTip(
            self.tr(
                "How much of the model's context window this conversation fills. When it is "
                "full, the oldest messages are left out of what the model sees (the system "
                "prompt and your newest message are always kept), and Hearth says so. The "
                "conversation itself is never shortened."
            )
        )
        self.used = 0
        self.capacity = 0

    def show_usage(self, used: int, window: int, exact: bool) -> None:
        self.used, self.capacity = used, window
        share = min(used / window, 1.0) if window else 0.0
        self.bar.setValue(round(share * 1000))
        approx = "" if exact else "≈"
        self.label.setText(
            self.tr("Context: {0}{1} / {2} tokens").format(approx, f"{used:,}", f"{window:,}")
        )
        self.bar.setAccessibleDescription(self.label.text())
        self.label.setStyleSheet(warning_style() if share >= 0.9 else "")
