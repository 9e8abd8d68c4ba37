"""The API server panel (Chat › API server…) in the real window, with the real server."""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
from collections.abc import Iterator

import httpx
import pytest
from pytestqt.qtbot import QtBot

from app.core import Core
from tests.conftest import free_port
from tests.gui_helpers import open_window
from ui.main_window import MainWindow
from ui.server.dialog import ApiServerDialog

pytestmark = pytest.mark.slow


def serving(window: MainWindow) -> bool:
    """Whether the window's API runs (a call each time: the state changes under the test)."""
    return bool(window.api.running)


@contextlib.contextmanager
def port_in_use() -> Iterator[int]:
    """A port another program listens on, for as long as the block runs."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield int(taken.getsockname()[1])


def open_panel(window: MainWindow) -> ApiServerDialog:
    window.show_api_server()
    dialog = window.findChild(ApiServerDialog)
    assert dialog is not None and dialog.isVisible()
    return dialog


def test_the_panel_starts_the_api_and_its_curl_example_answers(qtbot: QtBot, core: Core) -> None:
    port = free_port()
    core.settings.set("server.port", port)
    core.settings.set("sampling.max_tokens", 8)
    window = open_window(qtbot, core)
    assert f"127.0.0.1:{port}" in window.serve_action.text(), "the menu names the address"
    dialog = open_panel(window)
    assert dialog.status.text().startswith("Stopped") and str(port) in dialog.status.text()
    assert dialog.switch.text() == "Start"
    dialog.switch.click()
    assert serving(window) and window.serve_action.isChecked(), "the menu follows"
    chosen = window.chat.model_bar.model
    assert chosen is not None
    status = dialog.status.text()
    assert f"http://127.0.0.1:{port}/v1" in status and chosen.name in status
    assert dialog.switch.text() == "Stop" and not dialog.port.isEnabled()
    curl = dialog.example_texts["curl"].toPlainText()
    assert f"http://127.0.0.1:{port}/v1/chat/completions" in curl and "Authorization" not in curl
    if shutil.which("curl") is not None:  # the example as a person pastes it
        done = subprocess.run(
            ["sh", "-c", curl.replace(" \\\n", " ")],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        reply = json.loads(done.stdout)
        assert reply["choices"][0]["message"]["content"].strip()
    for key in ("openai", "ollama", "mcp"):
        assert dialog.example_texts[key].toPlainText().strip()
    assert '"mcp"' in dialog.example_texts["mcp"].toPlainText()
    dialog.switch.click()
    assert not serving(window) and not window.serve_action.isChecked()
    assert dialog.status.text().startswith("Stopped") and dialog.port.isEnabled()


def test_a_port_in_use_is_said_with_a_button_that_picks_a_free_one(
    qtbot: QtBot, core: Core
) -> None:
    with port_in_use() as port:
        core.settings.set("server.port", port)
        window = open_window(qtbot, core)
        dialog = open_panel(window)
        said = f"Port {port} is already in use on 127.0.0.1"
        assert said in dialog.problem.text(), "said when the panel opens, before Start"
        dialog.switch.click()
        assert not serving(window) and not dialog.switch.isChecked()
        assert said in dialog.problem.text()
        assert dialog.free_button.isVisible()
        dialog.free_button.click()
        assert dialog.port.value() != port and not dialog.problem.isVisible()
        assert core.settings.get("server.port") == dialog.port.value(), "hearth serve's too"
        dialog.switch.click()
        assert serving(window)
        assert f":{dialog.port.value()}/v1" in dialog.status.text()
        window.set_api_server(False)


def test_serving_from_the_chat_menu_on_a_port_in_use_opens_the_panel_not_a_banner(
    qtbot: QtBot, core: Core
) -> None:
    """Chat › Serve the API is the window's: a port in use is not told "--port" in a
    banner, it opens the panel, which says so and offers a free port."""
    with port_in_use() as port:
        core.settings.set("server.port", port)
        window = open_window(qtbot, core)
        window.serve_action.trigger()
        assert not serving(window) and not window.serve_action.isChecked()
        dialog = window.findChild(ApiServerDialog)
        assert dialog is not None and dialog.isVisible()
        assert f"Port {port} is already in use" in dialog.problem.text()
        assert dialog.free_button.isVisible()
        assert not window.error_banner.message, "no banner with the command line's advice"


def test_a_key_made_in_the_panel_is_required_and_never_written_into_the_examples(
    qtbot: QtBot, core: Core
) -> None:
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QLineEdit

    port = free_port()
    core.settings.set("server.port", port)
    window = open_window(qtbot, core)
    dialog = open_panel(window)
    assert not dialog.key.text() and not dialog.copy_key.isEnabled()
    # Another computer's address without a key: refused in words, nothing listens.
    dialog.host.setText("0.0.0.0")
    dialog.host.editingFinished.emit()
    assert core.settings.get("server.host") == "0.0.0.0"
    dialog.switch.click()
    assert not serving(window) and "requires an API key" in dialog.problem.text()
    dialog.host.setText("127.0.0.1")
    dialog.host.editingFinished.emit()
    dialog.new_key.click()
    key = dialog.key.text()
    assert key.startswith("hearth-") and dialog.key.echoMode() == QLineEdit.EchoMode.Password
    dialog.show_key.click()
    assert dialog.key.echoMode() == QLineEdit.EchoMode.Normal
    dialog.copy_key.click()
    assert QGuiApplication.clipboard().text() == key and dialog.copy_key.text() == "Copied"
    for text in dialog.example_texts.values():
        assert key not in text.toPlainText()
    assert "HEARTH_API_KEY" in dialog.example_texts["curl"].toPlainText()
    dialog.switch.click()
    assert serving(window)
    url = f"http://127.0.0.1:{port}/v1/models"
    assert httpx.get(url, timeout=30).status_code == 401
    asked = httpx.get(url, headers={"Authorization": f"Bearer {key}"}, timeout=30)
    assert asked.status_code == 200 and asked.json()["data"]
    window.set_api_server(False)


def test_the_panel_keeps_its_place_when_the_port_warning_goes(qtbot: QtBot, core: Core) -> None:
    """When the red line about a port in use went, everything under it jumped up 28 px and
    a click aimed at New key landed on the examples' tabs: the row keeps its height."""
    with port_in_use() as port:
        core.settings.set("server.port", port)
        window = open_window(qtbot, core)
        dialog = open_panel(window)
        assert dialog.problem.isVisible()

        def places() -> tuple[int, int]:
            return (
                dialog.new_key.mapTo(dialog, dialog.new_key.rect().topLeft()).y(),
                dialog.examples.mapTo(dialog, dialog.examples.rect().topLeft()).y(),
            )

        layout = dialog.layout()
        assert layout is not None
        qtbot.waitUntil(dialog.new_key.isVisible)
        warned = places()
        dialog.free_button.click()
        assert not dialog.problem.isVisible()
        layout.activate()
        assert places() == warned, "New key and the tabs stay where they were"
        dialog._say_port_taken("127.0.0.1", port)
        layout.activate()
        assert places() == warned
