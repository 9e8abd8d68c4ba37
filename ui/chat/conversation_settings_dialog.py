"""Instructions and reply settings for one conversation.

The system prompt is chosen from presets or written freely; the sampling values start
from what applies now (Hearth's settings, then the model's recommendations) and only the
values the user changes are kept with the conversation, so later changes to the
defaults still reach it.  Editors come from the one settings declaration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.chat.presets import (
    CONVERSATION_KEYS,
    PRESET_KEY,
    Preset,
    PresetStore,
)
from app.chat.session import ChatSession
from app.core import Core
from app.settings import BY_KEY
from ui.dialog_parts import add_problem_and_buttons
from ui.settings.editors import (
    editor_for,
    set_value,
    setting_label,
    value_of,
)
from ui.wheel_guard import guard_fields


def preset_name(preset: Preset) -> str:
    return QCoreApplication.translate("Presets", preset.name) if preset.builtin else preset.name


class ConversationSettingsDialog(QDialog):
    def __init__(
        self,
        presets: PresetStore,
        system_prompt: str,
        own: dict[str, Any],
        defaults: dict[str, Any],
        recommended: dict[str, Any],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Instructions for this conversation"))
        self.setObjectName("conversationSettings")
        self.presets = presets
        self.defaults = defaults  # what applies without this conversation's own choices
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.preset_box = QComboBox()
        self.preset_box.setAccessibleName(self.tr("Preset"))
        self._fill_presets(str(own.get(PRESET_KEY, "")))
        self.preset_box.activated.connect(self._preset_chosen)
        save = QPushButton(self.tr("Save as preset…"))
        save.clicked.connect(self.save_preset)
        top.addWidget(QLabel(self.tr("Preset:")))
        top.addWidget(self.preset_box, 1)
        top.addWidget(save)
        layout.addLayout(top)
        said = QLabel(self.tr("Instructions for the model in this conversation:"))
        said.setToolTip(self.tr("Also called the system prompt."))
        layout.addWidget(said)
        self.system_prompt = QPlainTextEdit(system_prompt)
        self.system_prompt.setObjectName("systemPrompt")
        self.system_prompt.setAccessibleName(self.tr("Instructions"))
        self.system_prompt.setPlaceholderText(self.tr("For example: Answer in French."))
        layout.addWidget(self.system_prompt)
        form = QFormLayout()
        self.editors: dict[str, QWidget] = {}
        for key in CONVERSATION_KEYS:
            setting = BY_KEY[key]
            editor = editor_for(setting, own.get(key, defaults[key]))
            self.editors[key] = editor
            form.addRow(setting_label(setting), editor)
        layout.addLayout(form)
        if recommended:
            advice = ", ".join(
                f"{setting_label(BY_KEY[k])} {v}" for k, v in sorted(recommended.items())
            )
            note = QLabel(self.tr("The model's authors recommend: {0}").format(advice))
            note.setWordWrap(True)
            note.setObjectName("recommendedNote")
            layout.addWidget(note)
        self.problem = add_problem_and_buttons(self, layout.addWidget, self.restore_defaults)
        guard_fields(self)  # a wheel turn over a field never changes it unchosen

    def _fill_presets(self, current: str) -> None:
        self.preset_box.clear()
        self.preset_box.addItem(self.tr("(none)"), "")
        for preset in self.presets.presets():
            self.preset_box.addItem(preset_name(preset), preset.name)
        self.preset_box.setCurrentIndex(max(self.preset_box.findData(current), 0))

    def _preset_chosen(self, index: int) -> None:
        self.apply_preset(str(self.preset_box.itemData(index) or ""))

    def apply_preset(self, name: str) -> None:
        preset = self.presets.get(name)
        self.preset_box.setCurrentIndex(max(self.preset_box.findData(name), 0))
        if preset is None:
            return
        self.system_prompt.setPlainText(preset.system_prompt)
        for key, editor in self.editors.items():
            set_value(editor, preset.sampling.get(key, self.defaults[key]))

    def restore_defaults(self) -> None:
        self.preset_box.setCurrentIndex(0)
        for key, editor in self.editors.items():
            set_value(editor, self.defaults[key])

    def save_preset(self, name: str = "") -> bool:
        if not name:
            name, ok = QInputDialog.getText(self, self.tr("Save as preset"), self.tr("Name:"))
            if not ok or not name.strip():
                return False
        preset = Preset(name.strip(), self.system_prompt.toPlainText(), self.own_values())
        try:
            self.presets.save(preset)
        except (ValueError, OSError) as exc:
            self.problem.setText(self.tr("The preset was not saved: {0}").format(exc))
            self.problem.show()
            return False
        self.problem.hide()
        self._fill_presets(preset.name)
        return True

    def own_values(self) -> dict[str, Any]:
        """Only what differs from the defaults is kept with the conversation."""
        values = {key: value_of(editor) for key, editor in self.editors.items()}
        return {k: v for k, v in values.items() if v != self.defaults[k]}

    def result_settings(self) -> dict[str, Any]:
        own = self.own_values()
        preset = str(self.preset_box.currentData() or "")
        if preset:
            own[PRESET_KEY] = preset
        return own


def open_for(
    session: ChatSession,
    core: Core,
    parent: QWidget,
    report: Callable[[BaseException, str], None],
    changed: Callable[[], None],
) -> ConversationSettingsDialog:
    """The dialog for ``session``'s conversation (or the next new one), opened; what it
    keeps is saved with the conversation when accepted, and ``changed`` is called."""
    from app.chat.presets import effective_values, with_instructions

    dialog = ConversationSettingsDialog(
        PresetStore(core.paths.data_dir / "presets.json"),
        session.system_prompt,
        session.own_settings,
        effective_values(core.settings, session.advice, {}),
        session.advice,
        parent,
    )

    def accepted() -> None:
        try:
            session.set_instructions(
                dialog.system_prompt.toPlainText(),
                with_instructions(session.own_settings, dialog.result_settings()),
            )
        except Exception as exc:  # noqa: BLE001 - a full disk: reported, the dialog closes
            doing = QCoreApplication.translate(
                "ConversationSettingsDialog", "saving the conversation settings"
            )
            report(exc, doing)
        changed()

    dialog.accepted.connect(accepted)
    dialog.open()
    return dialog
