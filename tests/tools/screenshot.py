"""Save a picture of the real Hearth window with a short conversation in it.

Run under a real X server (``make screenshot`` uses xvfb-run), so people can look at what
users see.  Usage: screenshot.py OUTPUT.png
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer

from app.core import open_core
from ui.gui import dispose_window, make_application
from ui.main_window import MainWindow


def wait(signal: object, timeout_ms: int = 120_000) -> None:
    loop = QEventLoop()
    signal.connect(loop.quit)  # type: ignore[attr-defined]
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()


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
        for prompt in ("Name three primary colors.", "What is 2+2?"):
            window.send(prompt)
            wait(window.reply_finished)
        window.sampling_overrides = {"ignore_eos": True, "max_tokens": 2000}
        window.send("Tell me a long story about a lighthouse.")
        QTimer.singleShot(1500, window.stop)
        wait(window.reply_finished)
        for _ in range(5):
            app.processEvents()
        window.grab().save(str(output))
        print(f"saved {output}")
        dispose_window(window)
    return 0


if __name__ == "__main__":
    sys.exit(main())
