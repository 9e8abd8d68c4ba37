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
from typing import Protocol

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QWidget

from app.core import Core
from app.engine.seat import Seat
from app.packs import engine_list
from ui.chat.chat_screen import ChatScreen
from ui.settings.dialog import SettingsDialog
from ui.system.system_screen import SystemScreen


class Window(Protocol):
    """What Settings needs of the window (``ui.main_window.MainWindow``)."""

    core: Core
    seat: Seat
    chat: ChatScreen
    system_screen: SystemScreen

    def show_api_server(self) -> None: ...
    def apply_appearance(self) -> None: ...


def open_settings(
    window: Window, parent: QWidget, after: list[Callable[[], object]], page: str = ""
) -> SettingsDialog:
    """Settings over ``parent`` (the window), on ``page`` when named; ``after`` runs once
    it is accepted (the theme, the API's address, the update check)."""
    dialog = SettingsDialog(
        window.core.settings,
        parent,
        window.chat.tools_ui.open_servers_dialog,
        window.show_api_server,
        engines=lambda: engines_panel(window),
    )
    for action in after:
        dialog.accepted.connect(action)
    if page:
        dialog.show_page(page)
    dialog.open()
    return dialog


def engines_panel(window: Window) -> QWidget:
    from ui.engines.engines_panel import EnginesPanel

    core = window.core
    panel = EnginesPanel(core, core.paths.logs_dir, lambda name: free_engine(window, name))
    panel.changed.connect(lambda _name: engines_changed(window))
    return panel


def engines_changed(window: Window) -> None:
    """An engine was installed, removed or rolled back: the picker offers what can run
    now, and the System check looks again."""
    bar = window.chat.model_bar
    bar.set_library(bar.library)
    window.system_screen.run()


def free_engine(window: Window, name: str) -> tuple[str, list[int]]:
    """Unload the models that use ``name`` before it is removed: "" and the process ids of
    their workers (the removal waits for them to end, off this thread), else why not yet
    (the chat's model is writing a reply; a program using Hearth's server holds it)."""
    host, seat = window.core.engines, window.seat
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
            window.chat.model_bar.engine_stopped()
        elif not host.unload(model.spec):
            return QCoreApplication.translate(
                "Settings",
                "{0} uses it and is answering a program that uses Hearth's server: unload "
                "it in Loaded models once it has finished, then remove it.",
            ).format(model.label), []
        ending.append(model.pid)
    return "", ending
