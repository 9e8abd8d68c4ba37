"""Settings as the window opens it: the dialog with the window's own parts (Tool servers…,
the API server panel, the Engines page) and what follows from them, kept out of the
window's shell (``ui/main_window.py``).

The Engines page changes what the window can do: once the PyTorch engine is installed or
removed, the model picker offers Hugging Face checkpoints or stops offering them
(``Core.can_run``), and the System check says what is installed now.  Before an engine is
removed, the models that use it are unloaded (the chat's too, unless it is writing), and
the removal waits for their workers to end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QWidget

from app.core import Core
from app.engine.seat import Seat
from app.packs import engine_list
from ui.chat.model_bar import ModelBar
from ui.settings.dialog import SettingsDialog
from ui.system.system_screen import SystemScreen


@dataclass(frozen=True)
class SettingsParts:
    """What Settings acts on beside its dialog, given by the window (never the window
    itself): the engines and the chat's seat and model picker (an engine removed unloads
    the models that use it), the System check (it looks again after a change), and the
    dialogs its buttons open."""

    core: Core
    seat: Seat
    model_bar: ModelBar
    system_screen: SystemScreen
    open_tool_servers: Callable[[], object]
    open_api_server: Callable[[], object]


def open_settings(
    parts: SettingsParts, parent: QWidget, after: list[Callable[[], object]], page: str = ""
) -> SettingsDialog:
    """Settings over ``parent`` (the window), on ``page`` when named; ``after`` runs once
    it is accepted (the theme, the API's address, the update check)."""
    dialog = SettingsDialog(
        parts.core.settings,
        parent,
        parts.open_tool_servers,
        parts.open_api_server,
        engines=lambda: engines_panel(parts),
    )
    for action in after:
        dialog.accepted.connect(action)
    if page:
        dialog.show_page(page)
    dialog.open()
    return dialog


def engines_panel(parts: SettingsParts) -> QWidget:
    from ui.engines.engines_panel import EnginesPanel

    core = parts.core
    panel = EnginesPanel(core, core.paths.logs_dir, lambda name: free_engine(parts, name))
    panel.changed.connect(lambda _name: engines_changed(parts))
    return panel


def engines_changed(parts: SettingsParts) -> None:
    """An engine was installed, removed or rolled back: the picker offers what can run
    now, and the System check looks again."""
    parts.model_bar.set_library(parts.model_bar.library)
    parts.system_screen.run()


def free_engine(parts: SettingsParts, name: str) -> tuple[str, list[int]]:
    """Unload the models that use ``name`` before it is removed: "" and the process ids of
    their workers (the removal waits for them to end, off this thread), else why not yet
    (the chat's model is writing a reply; a program using Hearth's server holds it)."""
    host, seat = parts.core.engines, parts.seat
    ending: list[int] = []
    for model in host.loaded():
        if not engine_list.uses(name, model.spec, model.runtime):
            continue
        chosen = seat.current
        if chosen is not None and chosen.spec == model.spec:
            if seat.busy:
                return QCoreApplication.translate(
                    "Settings",
                    "The chat's model uses it and is writing a reply: wait for the reply to "
                    "finish (or press Stop), then remove it.",
                ), []
            seat.unload()
            parts.model_bar.engine_stopped()
        elif not host.unload(model.spec):
            return QCoreApplication.translate(
                "Settings",
                "{0} uses it and is answering a program that uses Hearth's server: unload "
                "it in Loaded models once it has finished, then remove it.",
            ).format(model.label), []
        ending.append(model.pid)
    return "", ending
