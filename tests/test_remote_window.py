"""Server endpoints and the local API switch in the real window."""

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from app.chat import store as st
from app.core import Core
from tests.conftest import free_port, link_or_copy
from tests.gui_helpers import open_window, wait_until
from ui.models.endpoint_dialog import EndpointDialog
from ui.server.loaded_models import LoadedModelsDialog

pytestmark = pytest.mark.slow


def test_chat_with_a_model_on_a_server(qtbot: QtBot, core: Core, peer: str) -> None:
    window = open_window(qtbot, core)
    dialog = EndpointDialog(core, window)
    qtbot.addWidget(dialog)
    dialog.name.setText("peer")
    dialog.url.setText(peer)
    dialog.accept()
    window.chat.model_bar.refresh()
    bar = window.chat.model_bar
    wait_until(qtbot, lambda: any(m.name == "smollm2 @ peer" for m in bar.models), 300_000)
    entry = next(m for m in bar.models if m.name == "smollm2 @ peer")
    with qtbot.waitSignal(window.model_loaded, timeout=300_000):
        window.chat.model_bar.select(entry)
    core.settings.set("sampling.temperature", 0.0)
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        window.chat.send("What is 2+2?")
    assert finished.args[0]["status"] in (st.COMPLETE, st.LENGTH)
    assert "4" in window.chat.transcript.streamed_text
    assert "tok/s" in window.chat.transcript.toPlainText()


class _Thinker(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = b'{"data": [{"id": "r1"}]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        chunks = [
            {"reasoning_content": "Two plus two..."},
            {"content": "It is "},
            {"content": "<think>hm</think>4."},
        ]
        body = (
            b"".join(
                b"data: " + json.dumps({"choices": [{"delta": c}]}).encode() + b"\n\n"
                for c in chunks
            )
            + b"data: [DONE]\n\n"
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def thinker() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Thinker)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_reasoning_is_shown_apart_from_the_answer(qtbot: QtBot, core: Core, thinker: str) -> None:
    core.endpoints.add("thinker", thinker)
    window = open_window(qtbot, core)
    bar = window.chat.model_bar
    wait_until(qtbot, lambda: any(m.name == "r1 @ thinker" for m in bar.models), 300_000)
    window.chat.model_bar.select(
        next(m for m in window.chat.model_bar.models if m.name == "r1 @ thinker"), load=False
    )
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        window.chat.send("What is 2+2?")
    assert finished.args[0]["status"] == st.COMPLETE
    assert window.chat.transcript.reasoning_text == "Two plus two...hm"
    assert window.chat.transcript.streamed_text == "It is 4."
    saved = window.store.message(finished.args[0]["message_id"])
    assert saved.content == "It is 4."  # the answer, without the thinking


def test_the_api_switch_serves_the_library_beside_the_chat(
    qtbot: QtBot, core: Core, starter: Path
) -> None:
    """The window's model answers the API on the window's own worker while the window
    chats; another model of the library is loaded beside it, is listed in Loaded models
    with its memory, and Unload there ends it."""
    core.models_dir.mkdir(parents=True, exist_ok=True)
    link_or_copy(starter, core.models_dir / "second.Q4_1.gguf")
    window = open_window(qtbot, core)
    window_pid = window.seat.worker_pid
    port = free_port()
    window.set_api_server(True, port=port)
    assert window.api.running and window.serve_action.isChecked()
    client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused")
    chosen = window.chat.model_bar.model
    assert chosen is not None
    answers: list[str] = []
    thread = threading.Thread(
        target=lambda: answers.append(
            client.chat.completions.create(
                model=chosen.name,
                messages=[{"role": "user", "content": "Say hi."}],
                max_tokens=8,
            )
            .choices[0]
            .message.content
            or ""
        )
    )
    thread.start()
    with qtbot.waitSignal(window.reply_finished, timeout=300_000):  # a chat here at the same time
        window.chat.sampling_overrides = {"max_tokens": 8}
        window.chat.send("Hello")
    wait_until(qtbot, lambda: not thread.is_alive(), 300_000)
    assert answers and answers[0].strip()
    assert window.chat.transcript.streamed_text.strip()
    assert window.seat.worker_pid == window_pid, "one worker for the chat and the API"
    second = client.chat.completions.create(
        model="second.Q4_1", messages=[{"role": "user", "content": "Hi"}], max_tokens=2
    )
    assert second.model == "second.Q4_1"
    window.show_loaded_models()
    dialog = window.findChild(LoadedModelsDialog)
    assert dialog is not None
    table = dialog.table
    rows = {table.item(r, 0).text(): r for r in range(table.rowCount())}  # type: ignore[union-attr]
    assert set(rows) == {chosen.name, "second.Q4_1"}
    assert table.item(rows[chosen.name], 1).text() == "Chat and API"  # type: ignore[union-attr]
    assert "GB" in table.item(rows["second.Q4_1"], 2).text()  # type: ignore[union-attr]
    unload = table.cellWidget(rows["second.Q4_1"], 4)
    assert isinstance(unload, QPushButton)
    qtbot.mouseClick(unload, Qt.MouseButton.LeftButton)
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == [chosen.name]  # type: ignore[union-attr]
    assert window.seat.worker_pid == window_pid, "the chat's model stays"
    dialog.close()
    client.chat.completions.create(
        model="second.Q4_1", messages=[{"role": "user", "content": "Hi"}], max_tokens=2
    )
    window.set_api_server(False)
    assert window.api.server is None and not window.serve_action.isChecked()
    # What only the API kept loaded ends with it; the chat's model stays.
    wait_until(qtbot, lambda: [m.pid for m in core.engines.loaded()] == [window_pid], 60_000)
