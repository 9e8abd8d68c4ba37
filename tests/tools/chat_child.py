"""A Hearth window in its own process that starts a long reply and waits to be killed.

Used by the crash test: the parent kills this process with SIGKILL mid-reply and then
checks what the database kept.  Usage: chat_child.py DATA_DIR
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from app.core import open_core
from ui.gui import make_application
from ui.main_window import MainWindow


def main() -> int:
    app = make_application()
    window = MainWindow(open_core(sys.argv[1]))
    window.chat.sampling_overrides = {"ignore_eos": True, "max_tokens": 100_000}
    window.show()

    def go() -> None:
        window.chat.send("Tell me an endless story about a lighthouse keeper.")
        print(f"SENT worker={window.seat.worker_pid}", flush=True)

    window.model_loaded.connect(go)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
