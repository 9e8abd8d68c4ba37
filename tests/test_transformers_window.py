"""The transformers engine in the real window: same chat, same Stop, same stats."""

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from app.chat import store as st
from app.core import Core
from app.models.library import describe_checkpoint
from tests.gui_helpers import open_window, wait_until

pytestmark = pytest.mark.slow


def test_chat_with_a_checkpoint_in_the_window(
    qtbot: QtBot, core: Core, hf_checkpoint: Path
) -> None:
    window = open_window(qtbot, core)
    entry = describe_checkpoint(hf_checkpoint, "added")
    core.settings.set("sampling.temperature", 0.0)
    with qtbot.waitSignal(window.model_loaded, timeout=300_000):
        window.chat.chat_with(entry)
    assert "slow" in window.error_banner.message  # CPU fallback warning
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        assert window.chat.send("What is 2+2?")
    assert finished.args[0]["status"] in (st.COMPLETE, st.LENGTH)
    reply = window.chat.transcript.streamed_text
    assert "4" in reply or "four" in reply.lower()
    assert "tok/s" in window.chat.transcript.toPlainText()
    window.chat.sampling_overrides = {"ignore_eos": True, "max_tokens": 300}
    window.chat.send("Tell me a long story.")
    wait_until(qtbot, lambda: len(window.chat.transcript.streamed_text) > 20, 300_000)
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as stopped:
        window.chat.stop()
    assert stopped.args[0]["status"] == st.STOPPED


def test_remote_code_asks_once_and_remembers_exactly_that_code(
    qtbot: QtBot, core: Core, hf_checkpoint: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "custom"
    folder.mkdir()
    for item in hf_checkpoint.iterdir():
        if item.name != "config.json":
            (folder / item.name).symlink_to(item)
    config = json.loads((hf_checkpoint / "config.json").read_text())
    config["auto_map"] = {"AutoConfig": "configuration_custom.CustomConfig"}
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "configuration_custom.py").write_text("# custom code\n")
    entry = describe_checkpoint(folder, "added")
    asked: list[str] = []

    def answer(box: QMessageBox) -> int:
        asked.append(box.text())
        return int(QMessageBox.StandardButton.Yes)

    monkeypatch.setattr(QMessageBox, "exec", answer)  # the user reads and says yes
    window = open_window(qtbot, core)
    window.chat.chat_with(entry)
    with qtbot.waitSignal(window.reply_finished, timeout=300_000) as finished:
        window.chat.send("Hi")
    assert finished.args[0]["kind"] == "needs_remote_code"
    assert asked and "configuration_custom.py" in asked[0]
    assert core.model_spec(entry).trust_remote_code is True
    (folder / "configuration_custom.py").write_text("# changed code\n")
    assert core.model_spec(entry).trust_remote_code is False  # changed code: ask again
