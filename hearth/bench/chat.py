"""The chat window under load, for ``hearth bench``.

* A 20,000-token Markdown reply (paragraphs, lists, tables, code) streamed at 2,000
  tokens/s by the scripted engine, through the real worker and window: the main
  thread's CPU time per 1,000 tokens (the median over the updates of the first and of
  the last 4,000 tokens; their ratio shows whether the cost grows with the length), and
  the longest stall.
* Opening a conversation of 2,000 messages, and switching between two conversations:
  wall time from the click to the painted window.
* Stopping a streaming reply with Esc in the message box and with the Stop button,
  alternating: wall time from the key or the click to the reply's end.  Esc must be as
  quick as the button (it once went through the window's shortcuts and lagged under load).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHARS_PER_TOKEN = 4  # the scripted engine sends one "token" of 4 characters per delta
TOKENS_PER_S = 2_000  # a fast engine (a large GPU on a small model)

SECTION = """## Part {n}

The keeper climbed the stairs again, counting **each step** and the *gulls* below.
She wrote the weather in the log, as every night, with `ink` that smelled of salt.

- the lamp was trimmed
- the lens was polished
- the glass was dry

| Hour | Wind | Sea |
|------|------|-----|
| 20:00 | NW 5 | rough |
| 23:00 | NW 7 | very rough |

```python
def lamp_ok(hours: int) -> bool:
    return hours < 12 and {n} % 2 == 0
```

> The storm came in at midnight, and the light held.

"""


def long_reply(tokens: int) -> str:
    text, n = "", 1
    while len(text) < tokens * CHARS_PER_TOKEN:
        text += SECTION.format(n=n)
        n += 1
    return text[: tokens * CHARS_PER_TOKEN]


@dataclass
class ChatFigures:
    first_ms_per_1k: float
    last_ms_per_1k: float
    longest_stall_ms: float
    open_2000_ms: float
    switch_ms: float
    esc_stop_ms: float = 0.0
    button_stop_ms: float = 0.0

    @property
    def esc_extra_ms(self) -> float:
        """How much later Esc stops a reply than the Stop button (a difference, not a
        ratio: both are tens of milliseconds, where a ratio is mostly noise)."""
        return self.esc_stop_ms - self.button_stop_ms

    @property
    def growth(self) -> float:
        return self.last_ms_per_1k / self.first_ms_per_1k if self.first_ms_per_1k else 0.0


def _wait(condition: Any, timeout_s: float) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    deadline = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline:
        loop = QEventLoop()
        QTimer.singleShot(10, loop.quit)
        loop.exec()


def _painted_after(action: Any) -> float:
    """Milliseconds from ``action()`` to the window's next completed paint."""
    from PySide6.QtCore import QCoreApplication

    started = time.perf_counter()
    action()
    QCoreApplication.processEvents()  # layout and paint of what changed
    return (time.perf_counter() - started) * 1000


def _stop_latencies(window: Any, rounds: int = 3) -> tuple[float, float]:
    """Median milliseconds from Esc in the message box, and from a click on Stop, to the
    end of a streaming reply (alternating, so both meet the same machine)."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    ended: list[float] = []
    statuses: list[str] = []

    def finished(event: dict[str, Any]) -> None:
        ended.append(time.perf_counter())
        statuses.append(str(event.get("status", "")))

    window.reply_finished.connect(finished)
    esc: list[float] = []
    button: list[float] = []
    for round_ in range(2 * rounds):
        window.chat.new_chat()
        count = len(ended)
        if not window.chat.send("Tell the story once more."):
            raise RuntimeError("the chat did not send the message")
        _wait(
            lambda n=count: len(window.chat.transcript.streamed_text) >= 400 or len(ended) > n,
            60,
        )
        if len(ended) > count:
            raise RuntimeError("the reply ended before it could be stopped")
        started = time.perf_counter()
        if round_ % 2 == 0:
            QTest.keyClick(window.chat.composer, Qt.Key.Key_Escape)
        else:
            QTest.mouseClick(window.chat.stop_button, Qt.MouseButton.LeftButton)
        _wait(lambda n=count: len(ended) > n, 60)
        if len(ended) == count or statuses[-1] != "stopped":
            way = "Esc" if round_ % 2 == 0 else "the Stop button"
            raise RuntimeError(f"{way} did not stop the reply")
        (esc if round_ % 2 == 0 else button).append((ended[-1] - started) * 1000)
    return statistics.median(esc), statistics.median(button)


def measure_chat(scratch: Path, tokens: int = 20_000) -> ChatFigures:
    from app.core import open_core
    from app.models.library import ModelEntry
    from hearth.bench.stalls import StallMonitor
    from ui.gui import dispose_window, make_application
    from ui.main_window import MainWindow

    core = open_core(scratch)
    script = scratch / "long-reply.txt"
    script.write_text(long_reply(tokens), encoding="utf-8")
    make_application()
    window = MainWindow(core, load_on_start=False)
    window.resize(1100, 800)
    window.show()
    _wait(lambda: window.chat.model_bar.model is not None, 60)
    entry = ModelEntry("Scripted", script, "synthetic", script.stat().st_size, "file")
    window.chat.model_bar.models.append(entry)
    loaded: list[bool] = []
    window.model_loaded.connect(lambda _e: loaded.append(True))
    window.chat.model_bar.select(entry)
    _wait(lambda: bool(loaded), 60)
    try:
        # Main-thread CPU between text updates, attributed to the tokens they brought.
        samples: list[tuple[int, int, float]] = []  # (characters so far, in this update, CPU s)
        state = {"cpu": time.thread_time(), "chars": 0}

        def on_text(text: str) -> None:
            now = time.thread_time()
            state["chars"] += len(text)
            samples.append((int(state["chars"]), len(text), now - state["cpu"]))
            state["cpu"] = now

        finished: list[bool] = []
        window.reply_finished.connect(lambda _e: finished.append(True))
        stalls = StallMonitor()
        stalls.start()
        state["cpu"] = time.thread_time()
        window.chat.sampling_overrides = {"tokens_per_s": TOKENS_PER_S}
        shown = window.chat.reply_text  # the screen's handler of answer text, then the sample

        def timed(session: Any, reply: Any, text: str) -> None:
            shown(session, reply, text)
            on_text(text)

        window.chat.reply_text = timed  # type: ignore[method-assign]
        assert window.chat.send("Tell the whole story.")
        _wait(lambda: bool(finished), 600)
        stalls.stop()
        # The typical cost of an update, per 1,000 tokens, over the first and the last
        # 4,000 tokens (medians: a garbage collection or a save does not decide it).
        window_chars = min(4_000, tokens // 4) * CHARS_PER_TOKEN
        total = tokens * CHARS_PER_TOKEN

        def per_1k(rows: list[tuple[int, int, float]]) -> float:
            costs = [cpu / (size / CHARS_PER_TOKEN) * 1e6 for _, size, cpu in rows if size]
            return statistics.median(costs) if costs else 0.0

        first_ms = per_1k([row for row in samples if row[0] <= window_chars])
        last_ms = per_1k([row for row in samples if row[0] > total - window_chars])

        # 2,000 messages, then switching between two conversations.
        store = window.store
        big = store.create_conversation(title="Two thousand messages")
        body = SECTION.format(n=1)
        for index in range(1_000):
            store.add_message(big.id, "user", f"Question {index}: what happened next?")
            store.add_message(big.id, "assistant", body, model="Scripted")
        others = []
        for name in ("Left", "Right"):
            other = store.create_conversation(title=name)
            for index in range(100):
                store.add_message(other.id, "user", f"{name} question {index}")
                store.add_message(other.id, "assistant", body, model="Scripted")
            others.append(other.id)
        window.chat.refresh_conversations()
        open_ms = _painted_after(lambda: window.chat.open_conversation(big.id))
        switches = []
        for round_ in range(6):
            target = others[round_ % 2]
            switches.append(_painted_after(lambda t=target: window.chat.open_conversation(t)))
        esc_ms, button_ms = _stop_latencies(window)
        return ChatFigures(
            first_ms,
            last_ms,
            stalls.longest_ms,
            open_ms,
            statistics.median(switches[1:]),
            esc_ms,
            button_ms,
        )
    finally:
        dispose_window(window)
