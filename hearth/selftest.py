"""``hearth --self-test``: prove that this installation can chat, end to end.

It starts the real window (offscreen unless a platform was chosen), lets it find and load
the default model in a real worker, sends a short prompt, waits for the streamed reply,
and checks that the reply was shown in the transcript and saved in the database.  It uses
a temporary data folder unless one was given, so it never touches the user's history.
Installers run it after installing.  Exit code 0 means every step passed.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

from app.chat import store as st
from app.core import Core

PROMPT = "What is 2+2? Answer in one short sentence."
TIMEOUT_S = 180.0


class SelfTestFailure(Exception):
    pass


def run_self_test(core: Core) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEventLoop, QTimer, SignalInstance

    from ui.gui import dispose_window, make_application
    from ui.main_window import MainWindow

    started = time.perf_counter()
    make_application()
    window = MainWindow(core)
    window.show()
    result: dict[str, Any] = {}

    def wait_for(signal: SignalInstance, what: str, done: Callable[[], bool]) -> None:
        if done():
            return
        loop = QEventLoop()
        signal.connect(loop.quit)
        QTimer.singleShot(int(TIMEOUT_S * 1000), loop.quit)
        loop.exec()
        if not done():
            raise SelfTestFailure(f"timed out waiting for {what}")

    def step(message: str) -> None:
        print(f"self-test: {message}", flush=True)

    try:
        wait_for(window.models_ready, "the model list", lambda: bool(window.chat.model_bar.models))
        if window.chat.model_bar.model is None:
            raise SelfTestFailure(window.error_banner.message or "no usable model found")
        step(f"model {window.chat.model_bar.model.name} ({window.chat.model_bar.model.path})")
        if not window.chat.send(PROMPT):
            raise SelfTestFailure(window.error_banner.message or "the message could not be sent")
        window.reply_finished.connect(result.update)
        wait_for(window.reply_finished, "the reply", lambda: bool(result))
        if result.get("type") != "done":
            raise SelfTestFailure(f"the reply failed: {result.get('message', result)}")
        shown = window.chat.transcript.streamed_text
        if not shown.strip():
            raise SelfTestFailure("the reply streamed no text into the window")
        if "\ufffd" in shown:
            raise SelfTestFailure("the reply contains replacement characters")
        saved = window.store.message(int(result["message_id"]))
        if saved.content != shown:
            raise SelfTestFailure("the saved reply differs from the reply shown")
        if saved.status not in (st.COMPLETE, st.LENGTH):
            raise SelfTestFailure(f"the saved reply has status {saved.status!r}")
        if not window.store.integrity_ok():
            raise SelfTestFailure("the chat database failed its integrity check")
        speed = saved.stats.get("tokens_per_s")
        runtime = saved.stats.get("runtime")
        if not runtime:
            raise SelfTestFailure("the reply's stats do not name the llama.cpp runtime")
        preview = shown.strip()[:80]
        step(
            f"reply shown and saved ({len(shown)} characters, {speed} tok/s, llama.cpp "
            f"runtime {runtime}): {preview!r}"
        )
        leaked = sorted(m for m in ("torch", "transformers", "llama_cpp") if m in sys.modules)
        if leaked:
            raise SelfTestFailure(f"the window process imported {', '.join(leaked)}")
        code = window.chat.transcript.renderer.block("```python\nx = 1\n```\n")
        if "<span" not in code:
            raise SelfTestFailure("code is not highlighted (Pygments' lexers are missing)")
        from PySide6.QtCore import QTranslator

        from ui.i18n import translation_file

        if not QTranslator().load(translation_file("zh_CN")):
            raise SelfTestFailure("the Chinese translation is missing")
        step("Markdown, code highlighting and the Chinese translation are there")
    except SelfTestFailure as exc:
        print(f"self-test FAILED: {exc}", file=sys.stderr, flush=True)
        dispose_window(window)
        return 1
    dispose_window(window)
    step(f"passed in {time.perf_counter() - started:.1f} s")
    return 0
