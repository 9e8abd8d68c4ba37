"""Save a picture of the real Hearth window with a short conversation in it.

Run under a real X server (``make screenshot`` uses xvfb-run), so people can look at what
users see.  Usage: screenshot.py OUTPUT.png
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from app.core import open_core
from ui.gui import dispose_window, make_application
from ui.main_window import MainWindow


def wait(signal: object, timeout_ms: int = 120_000) -> None:
    loop = QEventLoop()
    signal.connect(loop.quit)  # type: ignore[attr-defined]
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()


def shoot_models_screen(window: MainWindow, output: Path) -> None:
    """The Models screen against a local fake hub: results, choices, a download, the library."""
    import os

    from tests.fakehub import FakeHub
    from tests.gguf_files import build_gguf

    hub = FakeHub().start()
    scratch = Path(tempfile.mkdtemp(prefix="hearth-shot-hub-"))
    tiny = build_gguf(scratch / "t.gguf", file_type=15).read_bytes()
    quants = {"Q4_K_M": 40, "Q5_K_M": 48, "Q8_0": 70, "Q2_K": 25, "IQ4_XS": 38}
    for repo, downloads in (
        ("bartowski/Qwen2.5-1.5B-Instruct-GGUF", 182_000),
        ("unsloth/DeepSeek-R1-Distill-Qwen-1.5B-GGUF", 96_500),
        ("lmstudio-community/gemma-3-1b-it-GGUF", 41_200),
    ):
        name = repo.split("/")[1].removesuffix("-GGUF")
        files = {f"{name}-{q}.gguf": tiny + os.urandom(mb * 100_000) for q, mb in quants.items()}
        hub.add(repo, files, tags=["gguf"], downloads=downloads, likes=downloads // 300)
    hub.fault(
        "bartowski/Qwen2.5-1.5B-Instruct-GGUF",
        "Qwen2.5-1.5B-Instruct-Q8_0.gguf",
        bytes_per_s=1_500_000,
    )
    window.core.settings.set("hub.huggingface_endpoint", hub.url)
    screen = window.models_screen
    window.tabs.setCurrentIndex(1)
    screen.query.setText("GGUF")
    screen.search()
    wait(screen.search_finished)
    screen.results_table.selectRow(0)
    wait(screen.repo_opened)
    screen.download(screen.offers[0])
    screen.offers_table.selectRow(3)
    screen.download(screen.offers[3])
    loop_until = QEventLoop()
    QTimer.singleShot(2500, loop_until.quit)
    loop_until.exec()
    screen.library_panel.refresh()
    wait(screen.library_changed)
    screen.downloads_panel.model.refresh()
    window.grab().save(str(output))
    hub.stop()


REASONING_REPLY = """<think>
The user wants a prime check and a comparison. Trial division up to the square root is
enough for small numbers; Miller-Rabin is the usual answer for large ones. A table will
make the trade-off clear.
</think>

Here is a simple prime check in **Python**:

```python
def is_prime(n: int) -> bool:
    # LONG_COMMENT
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True
```

| Method | Time | Good for |
|---|---|---|
| Trial division | O(√n) | small numbers |
| Miller-Rabin | O(k log³ n) | very large numbers |

> Tip: to test many numbers at once, use a *sieve of Eratosthenes*.
""".replace(  # a line longer than the column: its block scrolls on its own
    "LONG_COMMENT",
    "Trial division: a factor larger than the square root pairs with a smaller one"
    " already tried, so stop there.",
)


def shoot_chat(window: MainWindow, light: Path, dark: Path) -> None:
    """A reasoning reply with a code block and a table (scripted, so it is the same every
    time), in the light theme and in the dark one."""
    from PySide6.QtCore import QUrl

    from app.models.library import ModelEntry
    from ui.chat.action_icons import ACTION

    script = window.core.paths.data_dir / "reasoning-demo.txt"
    script.write_text(REASONING_REPLY, encoding="utf-8")
    entry = ModelEntry("Reasoning demo (scripted)", script, "synthetic", 1, "file")
    window.chat.model_bar.models.append(entry)
    window.chat.model_bar.select(entry)
    wait(window.model_loaded)
    window.chat.new_chat()
    window.chat.sampling_overrides = {"tokens_per_s": 150}
    window.chat.send("Write a prime check in Python and compare the usual methods.")
    wait(window.reply_finished)
    assert window.chat.conversation_id is not None
    reply = window.store.messages(window.chat.conversation_id)[-1]
    window.chat.transcript.anchorClicked.emit(QUrl(f"{ACTION}think/{reply.id}"))
    for theme, output in (("light", light), ("dark", dark)):
        window.core.settings.set("appearance.theme", theme)
        window.apply_appearance()
        for _ in range(5):
            QApplication.processEvents()
        window.grab().save(str(output))
        print(f"saved {output}")


def in_three_looks(shoot: Callable[[Path, str, str], None]) -> int:
    """Run ``shoot(folder, theme, suffix)`` in the light theme, the dark one (``-dark``)
    and Chinese (``-zh``), the folder from the command line (screenshots/ by default)."""
    from ui.i18n import install_translations

    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    make_application()
    shoot(folder, "light", "")
    shoot(folder, "dark", "-dark")
    install_translations("zh_CN")
    shoot(folder, "light", "-zh")
    install_translations("en")
    return 0


def settle(condition: object, timeout_s: float = 60.0) -> None:
    """Let the window work until ``condition()`` holds (or the time is up)."""
    import time

    deadline = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline:  # type: ignore[operator]
        QApplication.processEvents()
        time.sleep(0.02)
    for _ in range(5):
        QApplication.processEvents()


def shoot_welcome(window: MainWindow, output: Path) -> None:
    """The first start: the welcome with the models recommended for this machine, in the
    light theme and the dark one."""
    settle(lambda: bool(window.welcome.cards))
    window.grab().save(str(output))
    print(f"saved {output}")
    window.core.settings.set("appearance.theme", "dark")
    window.apply_appearance()
    settle(lambda: True)
    dark = output.with_name(output.stem + "-dark.png")
    window.grab().save(str(dark))
    print(f"saved {dark}")
    window.core.settings.set("appearance.theme", "light")
    window.apply_appearance()


SOURCED_REPLY = "The river Wombat is **412 kilometres** long and flows into the Bay of Marmots [1]."


def shoot_documents(
    window: MainWindow, screen_png: Path, chat_png: Path, preview_png: Path
) -> None:
    """The Documents screen after indexing a folder (one file left out, with its reason),
    a chat answering from the collection with its sources, and the preview of a source."""
    from PySide6.QtCore import QUrl

    from app.models.library import ModelEntry
    from tests import documents as make
    from ui.chat.documents_html import SOURCE
    from ui.chat.source_preview import SourcePreview

    folder = window.core.paths.data_dir / "Field notes"
    folder.mkdir(parents=True, exist_ok=True)
    make.pdf(
        folder / "atlas.pdf",
        [
            "Chapter one describes the coast of Freedonia and its harbours.",
            "The river Wombat is 412 kilometres long and flows into the Bay of Marmots.",
            "Otters live along the lower course of the river Wombat, near Freedonia.",
        ],
    )
    (folder / "ferries.md").write_text(
        "# Ferries\n\nThe ferry to Tarn leaves at 7:40 every weekday.\n", encoding="utf-8"
    )
    make.docx(folder / "budget.docx", [("Spending", "The lighthouse repair cost 9,300 florins.")])
    (folder / "scan.pdf").write_bytes(b"%PDF-1.4\n%%EOF")
    screen = window.documents_screen
    window.tabs.setCurrentWidget(screen)
    screen.new_collection("Field notes", str(folder))
    settle(lambda: window.indexing.running is None and screen.files.rowCount() == 4)
    window.grab().save(str(screen_png))
    print(f"saved {screen_png}")

    script = window.core.paths.data_dir / "sourced-demo.txt"
    script.write_text(SOURCED_REPLY, encoding="utf-8")
    entry = ModelEntry("Sourced demo (scripted)", script, "synthetic", 1, "file")
    window.chat.model_bar.models.append(entry)
    window.chat.model_bar.select(entry)
    wait(window.model_loaded)
    window.tabs.setCurrentWidget(window.chat)
    window.chat.new_chat()
    window.chat.documents_bar.set_collections(["Field notes"])
    window.chat.message_documents.remember_collections()
    window.chat.send("How long is the river Wombat?")
    wait(window.reply_finished)
    settle(lambda: True)
    window.grab().save(str(chat_png))
    print(f"saved {chat_png}")
    question = window.chat.session.messages()[-2]
    window.chat.transcript.anchorClicked.emit(QUrl(f"{SOURCE}{question.id}/1"))
    settle(lambda: window.chat.findChild(SourcePreview) is not None)
    preview = window.chat.findChild(SourcePreview)
    assert preview is not None
    settle(lambda: True)
    preview.grab().save(str(preview_png))
    print(f"saved {preview_png}")
    preview.reject()


def main() -> int:
    output = Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots/main-window.png")
    output.parent.mkdir(parents=True, exist_ok=True)
    app = make_application()
    with tempfile.TemporaryDirectory(prefix="hearth-shot-") as data:
        core = open_core(data)
        core.settings.set("sampling.temperature", 0.0)
        window = MainWindow(core)
        window.resize(1100, 720)
        window.show()
        wait(window.model_loaded)
        shoot_welcome(window, output.with_name("first-start.png"))
        for prompt in ("Name three primary colors.", "What is 2+2?"):
            window.chat.send(prompt)
            wait(window.reply_finished)
        window.chat.sampling_overrides = {"ignore_eos": True, "max_tokens": 2000}
        window.chat.send("Tell me a long story about a lighthouse.")
        QTimer.singleShot(1500, window.chat.stop)
        wait(window.reply_finished)
        for _ in range(5):
            app.processEvents()
        window.grab().save(str(output))
        print(f"saved {output}")
        shoot_chat(window, output.with_name("chat-light.png"), output.with_name("chat-dark.png"))
        window.core.settings.set("appearance.theme", "light")
        window.apply_appearance()
        shoot_documents(
            window,
            output.with_name("documents.png"),
            output.with_name("chat-sources.png"),
            output.with_name("source-preview.png"),
        )
        models_shot = output.with_name("models.png")
        shoot_models_screen(window, models_shot)
        print(f"saved {models_shot}")
        conversation = window.chat.conversation_id
        dispose_window(window)
        shoot_chinese(core, conversation, output.with_name("chat-zh.png"))
    return 0


def shoot_chinese(core: object, conversation: int | None, output: Path) -> None:
    """The same conversation in a window started in Simplified Chinese."""
    from ui.i18n import install_translations

    install_translations("zh_CN")
    core.settings.set("hub.huggingface_endpoint", "")  # type: ignore[attr-defined]
    window = MainWindow(core)  # type: ignore[arg-type]
    window.resize(1100, 720)
    window.show()
    wait(window.model_loaded)
    settle(lambda: bool(window.welcome.cards))
    welcome = output.with_name("first-start-zh.png")
    window.grab().save(str(welcome))
    print(f"saved {welcome}")
    if conversation is not None:
        window.chat.open_conversation(conversation)
    for _ in range(5):
        QApplication.processEvents()
    window.grab().save(str(output))
    print(f"saved {output}")
    window.tabs.setCurrentWidget(window.system_screen)
    settle(lambda: window.system_screen.tree.topLevelItemCount() > 0)
    system = output.with_name("system-zh.png")
    window.grab().save(str(system))
    print(f"saved {system}")
    dispose_window(window)
    install_translations("en")


if __name__ == "__main__":
    sys.exit(main())
