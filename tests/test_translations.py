"""Hearth in Simplified Chinese: complete, compiled, and actually shown."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTableView,
    QTableWidget,
    QTabWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.core import Core
from tests.conftest import REPO
from tests.gui_helpers import scripted_window, send_and_wait
from ui.i18n import install_translations, resolve_language

# Names and words that stay as they are in every language.
KEEP = {
    "Hearth",
    "models",
    "GPT4All",
    "GGUF",
    "Hugging",
    "Face",
    "ModelScope",
    "llama",
    "cpp",
    "Transformers",
    "API",
    "MCP",
    "host",  # hearth serve's --host and --port
    "port",
    # Programs, libraries and the names a person types (the API server panel).
    "OpenAI",
    "Anthropic",
    "Ollama",
    "curl",
    "Claude",
    "Desktop",
    "Cursor",
    "LM",
    "Studio",
    "mcpServers",
    "mcp",
    "pip",
    "install",
    "openai",
    "ollama",
    "Open",
    "WebUI",
    "Python",
    "HEARTH_API_KEY",
    "GPU",
    "CPU",
    "Top",
    "Min",
    "Enter",
    "Shift",
    "Ctrl",
    "Esc",
    "token",
    "tokens",
    "JSON",
    "Markdown",
    "md",
    "json",
    "gguf",
    "pickle",
    "bin",
    "http",
    "https",
    "hf",
    "mirror",
    "com",
    "huggingface",
    "co",
    "www",
    "modelscope",
    "cn",
    "vLLM",
    "trtllm",
    "serve",
    "server",
    "DeepSeek",
    "QwQ",
    "English",
    "KV",
    "GB",
    "MB",
    "README",
    "PyTorch",
    "HF_ENDPOINT",
    "MODELSCOPE_ENDPOINT",
    "gpu",
    "box",
    "SmolLM2",
    "Instruct",
    "Scripted",
    "starter",
    "script",
    "txt",
    "Q4_1",
    "tok",
    "python",
    "NVIDIA",
    "NVML",
    "NUMA",
    # The engines and what they run on (Settings › Engines).
    "PyPI",
    "torch",
    "CUDA",
    "ROCm",
    "MPS",
    "AMD",
    "Apple",
    "Vulkan",
    "SHA",
}
# Addresses and host or file names (a mirror's, download.pytorch.org) are data.
ADDRESS = re.compile(r"(?:https?://)?[\w-]+(?:\.[\w-]+)+(?:/[\w./~%-]*)?", re.ASCII)


@pytest.fixture
def chinese() -> Iterator[None]:
    from ui.gui import make_application

    make_application()
    assert install_translations("zh_CN") == "zh_CN"
    yield
    install_translations("en")


def catalogue_words() -> set[str]:
    """The catalogue's names, licences and repositories are data, shown as they are."""
    from app.hub.catalog import load_catalog

    words: set[str] = set()
    for entry in load_catalog():
        for text in (entry.title, entry.license, entry.repo_hf, entry.repo_modelscope, entry.file):
            words |= set(re.findall(r"[A-Za-z][A-Za-z0-9_]{2,}", text))
    return words


def machine_words(facts: object) -> set[str]:
    """What the System report shows as it was found (the CPU's name, paths, runtime and
    feature names, true/false): data, not text to translate.  The sentences (reasons,
    notes) are left out: those must be translated."""
    import json

    found = facts.to_json()  # type: ignore[attr-defined]
    found.pop("notes", None)
    for runtime in found.get("runtimes", []) + found.get("engines", {}).get("runtimes", []):
        runtime.pop("reason", None)
        runtime.pop("reason_wire", None)
    return set(re.findall(r"[A-Za-z][A-Za-z0-9_]{2,}", json.dumps(found))) | {"True", "False"}


def untranslated_words(text: str) -> list[str]:
    text = ADDRESS.sub(" ", re.sub(r"<[^>]+>|\{\d[^}]*\}", " ", text))
    words = re.findall(r"[A-Za-z][A-Za-z0-9_]{2,}", text)
    keep = {k.lower() for k in KEEP | catalogue_words()}
    # Words with digits or underscores are data (CPU features, versions, file names).
    return [w for w in words if w.lower() not in keep and not re.search(r"[0-9_]", w)]


def visible_texts(root: QWidget) -> list[str]:
    """Every string a user can see or hear (screen readers) in ``root`` and its children."""
    texts: list[str] = [root.windowTitle()]
    for widget in [root, *root.findChildren(QWidget)]:
        texts += [widget.toolTip(), widget.accessibleName()]
        if isinstance(widget, QAbstractButton | QLabel):
            texts.append(widget.text())
        if isinstance(widget, QLineEdit | QPlainTextEdit):
            texts.append(widget.placeholderText())
        if isinstance(widget, QComboBox):
            texts += [widget.itemText(i) for i in range(widget.count())]
        if isinstance(widget, QTabWidget):
            texts += [widget.tabText(i) for i in range(widget.count())]
        if isinstance(widget, QTableView) and widget.model() is not None:
            model = widget.model()
            texts += [
                str(
                    model.headerData(
                        c, __import__("PySide6.QtCore").QtCore.Qt.Orientation.Horizontal
                    )
                    or ""
                )
                for c in range(model.columnCount())
            ]
        if isinstance(widget, QTableWidget):  # the cells too (the library's Fits column…)
            texts += [
                item.text()
                for r in range(widget.rowCount())
                for c in range(widget.columnCount())
                if (item := widget.item(r, c)) is not None
            ]
        if (
            isinstance(widget, QPlainTextEdit)
            and widget.isReadOnly()
            and widget.objectName() != "codeExample"  # code to paste is never translated
        ):  # the System report
            texts.append(widget.toPlainText())
        if isinstance(widget, QMenu):
            texts += [a.text() for a in widget.actions()]
    return [t for t in texts if t]


def test_every_string_in_the_code_has_a_chinese_translation() -> None:
    result = subprocess.run(
        [sys.executable, "packaging/translations.py", "check"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout


def test_the_compiled_translation_is_built_from_the_current_source(tmp_path: Path) -> None:
    ts = REPO / "resources" / "translations" / "hearth_zh_CN.ts"
    fresh = tmp_path / "fresh.qm"
    tool = Path(shutil.which("pyside6-lrelease", path=str(Path(sys.executable).parent)) or "")
    subprocess.run([str(tool), "-silent", str(ts), "-qm", str(fresh)], check=True)
    assert fresh.read_bytes() == ts.with_suffix(".qm").read_bytes()


def test_the_language_follows_the_system_unless_chosen() -> None:
    assert resolve_language("system", "zh_CN") == "zh_CN"
    assert resolve_language("system", "zh_TW") == "zh_CN"
    assert resolve_language("system", "de_DE") == "en"
    assert resolve_language("en", "zh_CN") == "en"


def test_the_chinese_window_shows_no_untranslated_string(
    qtbot: QtBot, core: Core, chinese: None
) -> None:
    window = scripted_window(qtbot, core, "**好的**，这是回答。\n\n```python\nprint(1)\n```\n")
    send_and_wait(qtbot, window, "你好")
    qtbot.waitUntil(lambda: window.system_screen.tree.topLevelItemCount() > 0, timeout=300_000)
    window.usage_label.show_usage()  # the status bar's memory readout, as during a reply
    assert window.usage_label.text()
    qtbot.waitUntil(lambda: window.models_screen.library_panel.estimates != {}, timeout=300_000)
    from ui.settings.dialog import SettingsDialog

    dialogs: list[QDialog] = [SettingsDialog(core.settings, window)]
    dialogs.append(window.chat.open_conversation_settings())
    from ui.server.dialog import ApiServerDialog

    window.show_api_server()
    panel = window.findChild(ApiServerDialog)
    assert panel is not None
    dialogs.append(panel)
    problems: dict[str, list[str]] = {}
    data = machine_words(window.system_screen.facts)
    for root in [window, *dialogs]:
        for text in visible_texts(root):
            words = [w for w in untranslated_words(text) if w not in data]
            if words:
                problems[text[-60:]] = words
    for menu in window.menuBar().findChildren(QMenu):
        for item in menu.actions():
            if untranslated_words(item.text()):
                problems[item.text()] = untranslated_words(item.text())
    assert problems == {}, problems
    # The System check's sentences come from the core: each is a phrase whose template
    # has a Chinese translation (the values in it, like CPU features, stay as they are).
    from PySide6.QtCore import QCoreApplication

    from wire.phrases import Phrase

    for check in window.system_screen.checks:
        for text in (check.title, check.detail, check.action):
            if text:
                assert isinstance(text, Phrase), text
                template = QCoreApplication.translate("Phrase", text.template)
                assert template != text.template or not untranslated_words(text.template), text
    tree = window.system_screen.tree
    first = tree.topLevelItem(0)
    assert first is not None and not untranslated_words(first.text(0))
    transcript = window.chat.transcript.toPlainText()
    assert "复制" in transcript and "你" in transcript  # the code block's Copy, "You"
    # The actions under a message are icons, named in Chinese on hover.
    from ui.chat.action_icons import action_name

    assert action_name("regenerate") == "重新生成"
    assert 'alt="重新生成"' in window.chat.transcript.toHtml()
    assert window.tabs.tabText(0) == "聊天"
    for dialog in dialogs:
        dialog.reject()


def test_a_chinese_locale_suggests_modelscope_and_a_mirror(
    qtbot: QtBot, core: Core, chinese: None
) -> None:
    core.settings.set("appearance.language", "zh_CN")
    window = scripted_window(qtbot, core, "好")
    screen = window.models_screen
    assert screen.source.currentData() == "modelscope"
    assert screen.region_hint.isVisibleTo(screen) and screen.mirror_button.isVisibleTo(screen)
    screen.mirror_button.click()
    assert core.settings.get("hub.huggingface_endpoint") == "https://hf-mirror.com"
    assert not screen.mirror_button.isVisibleTo(screen)


def test_errors_from_the_core_and_the_engine_are_shown_in_chinese(
    qtbot: QtBot, core: Core, chinese: None, tmp_path: Path
) -> None:
    window = scripted_window(qtbot, core, "好")
    not_a_model = tmp_path / "notes.gguf"
    not_a_model.write_text("just some text", encoding="utf-8")
    window.chat.model_bar.add_model_file(not_a_model)  # read in the background
    qtbot.waitUntil(lambda: "notes.gguf" in window.error_banner.message, timeout=60_000)
    shown = window.error_banner.message
    assert "不是 GGUF 模型文件" in shown and not untranslated_words(shown.replace("notes.gguf", ""))
    # An error raised in the worker process crosses the protocol as a template and values.
    from app.models.library import ModelEntry

    missing = ModelEntry("gone", tmp_path / "gone.gguf", "gguf", 1, "file")
    window.chat.model_bar.select(missing, load=False)
    window.chat.model_bar.load()
    qtbot.waitUntil(lambda: "gone.gguf" in window.error_banner.message, timeout=300_000)
    message = window.error_banner.message
    assert "无法加载" in message and "不存在" in message, message  # both parts translated
