"""Logging to a file in the data folder, so tracebacks never reach the user's screen.

The log rotates (a few files of a few MB) so it cannot fill the disk.  ``HEARTH_LOG_LEVEL``
raises or lowers the level.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path
from typing import Any

from app.files import private_file, private_folder

LOG_FILE = "hearth.log"
MAX_BYTES = 2_000_000


class SharedRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """The log that every Hearth process of a data folder writes (the window, ``hearth
    serve``, ``hearth chat``).  On Windows a file another process holds open cannot be
    renamed, so a rollover may fail: the log then goes on in the same file, every line
    kept, and the next try waits until it has grown by another quarter of its size (not
    one failed rename per line)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.retry_at = 0  # the size before which no rollover is tried again

    def shouldRollover(self, record: logging.LogRecord) -> int:  # noqa: N802 - logging's name
        if self.retry_at and self._size() < self.retry_at:
            return 0
        return super().shouldRollover(record)

    def doRollover(self) -> None:  # noqa: N802 - logging's name
        try:
            super().doRollover()
        except OSError:
            if self.stream is None:
                self.stream = self._open()
            self.retry_at = self._size() + self.maxBytes // 4
        else:
            self.retry_at = 0

    def _open(self) -> Any:
        private_file(Path(self.baseFilename))  # the log names files and models: 0600
        return super()._open()

    def _size(self) -> int:
        try:
            return os.path.getsize(self.baseFilename)
        except OSError:
            return 0


def configure_logging(logs_dir: Path | None, *, also_stderr: bool = False) -> Path | None:
    """Send Hearth's log to ``logs_dir/hearth.log``; return that path (None: not possible)."""
    # A log that cannot be written (a full disk) must not print tracebacks on the user's
    # terminal: the log is for later, the sentence on screen is what counts.
    logging.raiseExceptions = False
    level = os.environ.get("HEARTH_LOG_LEVEL", "INFO").upper()
    root = logging.getLogger()
    root.setLevel(level)
    formatter = logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s")
    path: Path | None = None
    if logs_dir is not None:
        try:
            private_folder(logs_dir)
            path = logs_dir / LOG_FILE
            handler: logging.Handler = SharedRotatingFileHandler(
                path, maxBytes=MAX_BYTES, backupCount=3, encoding="utf-8"
            )
            handler.setFormatter(formatter)
            handler.set_name("hearth-file")
            for replaced in [h for h in root.handlers if h.get_name() == "hearth-file"]:
                root.removeHandler(replaced)
                replaced.close()  # configured again (another data folder): its file is shut
            root.addHandler(handler)
        except OSError:
            path = None
    if also_stderr:
        stream = logging.StreamHandler()
        stream.setFormatter(formatter)
        root.addHandler(stream)
    return path


def logging_path() -> Path | None:
    """The file Hearth's log goes to (None before ``configure_logging`` or when it failed)."""
    for handler in logging.getLogger().handlers:
        if handler.get_name() == "hearth-file" and isinstance(handler, logging.FileHandler):
            return Path(handler.baseFilename)
    return None
