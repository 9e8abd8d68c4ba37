"""Reading documents safely: checks before parsing, and a parser process on a leash.

``Extractor.extract`` first looks at the file from outside (it exists, is a regular
file, is not too large, has a format Hearth reads), then hands it to the extraction
process (``app.docs.extract_child``) and waits for the answer with a time limit and a
watch on the process's memory.  A parser that hangs, crashes or grows past the limit is
killed and the file is ``Skipped`` with the reason; the next file gets a fresh process.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import queue
import stat
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from app.docs.extract_child import MEMORY_LIMIT_ENV
from app.docs.formats import Section, kind_of
from app.files import private_file, private_folder
from app.processes import TreeMemory, kill_tree
from wire.child_process import EXTRACTION, creation_flags
from wire.child_process import command as child_command
from wire.platforms import is_link_loop

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 256 * 1024 * 1024
MEMORY_LIMIT_BYTES = 2 * 1024 * 1024 * 1024
BASE_TIMEOUT_S = 60.0
TIMEOUT_PER_MB_S = 2.0
_POLL_S = 0.1


class Stopped(Exception):
    """The indexing was asked to stop while a file was being read (the reader was ended)."""


class Skipped(Exception):
    """A file that is not indexed, with the reason in words (``str(exc)``)."""

    def __init__(self, reason: str, vanished: bool = False, failed: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.vanished = vanished
        self.failed = failed  # the file is damaged or its reader failed (not left out on purpose)


@dataclass
class Extracted:
    path: Path
    kind: str
    size: int
    mtime_ns: int
    sha256: str
    sections: list[Section] = field(default_factory=list)
    note: str = ""  # e.g. only the beginning of a very long file was read

    @property
    def text(self) -> str:
        return "\n\n".join(section.text for section in self.sections)


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def precheck(path: Path, max_bytes: int = MAX_FILE_BYTES) -> tuple[str, os.stat_result]:
    """The reader for ``path`` and its stat, or ``Skipped`` before any parsing."""
    kind = kind_of(path)
    if kind is None:
        raise Skipped(
            f"Hearth does not read {path.suffix} files"
            if path.suffix
            else "Hearth does not read files without an extension"
        )
    try:
        info = path.stat()
    except FileNotFoundError:
        raise Skipped("it no longer exists", vanished=True) from None
    except OSError as exc:
        if is_link_loop(exc):
            raise Skipped("it is a symbolic link that loops") from None
        raise Skipped(f"it could not be opened ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise Skipped("it is not a regular file")
    if info.st_size > max_bytes:
        raise Skipped(
            f"it is {info.st_size / 1e9:,.1f} GB; Hearth reads documents up to "
            f"{max_bytes / 1e6:,.0f} MB"
            if info.st_size >= 1e9
            else f"it is {info.st_size / 1e6:,.0f} MB; Hearth reads documents up to "
            f"{max_bytes / 1e6:,.0f} MB"
        )
    if not os.access(path, os.R_OK):
        raise Skipped("Hearth may not read it (permission denied)")
    if info.st_size == 0:
        raise Skipped("it is empty")
    return kind, info


class Extractor:
    """One extraction process, reused file after file and replaced when it is killed.

    Not thread-safe: one indexer (one thread) owns one extractor."""

    def __init__(
        self,
        max_bytes: int = MAX_FILE_BYTES,
        memory_limit: int = MEMORY_LIMIT_BYTES,
        timeout_s: float | None = None,
        log_file: Path | None = None,
        command: list[str] | None = None,
    ) -> None:
        self.command = command or child_command(EXTRACTION)
        # Asked between polls while a file is read: a stop ends the reader at once.
        self.should_stop: Callable[[], bool] | None = None
        self.max_bytes = max_bytes
        self.memory_limit = memory_limit
        self.timeout_s = timeout_s
        self.log_file = log_file
        self._process: subprocess.Popen[bytes] | None = None
        self._answers: queue.Queue[bytes | None] = queue.Queue()

    def extract(self, path: Path) -> Extracted:
        kind, info = precheck(path, self.max_bytes)
        try:
            digest = file_hash(path)
        except FileNotFoundError:
            raise Skipped("it vanished while it was being read", vanished=True) from None
        except OSError as exc:
            raise Skipped(f"it could not be read ({exc.strerror or exc})", failed=True) from None
        answer = self._ask({"path": str(path), "kind": kind}, self._timeout_for(info.st_size))
        if not answer.get("ok"):
            raise Skipped(
                str(answer.get("reason", "it could not be read")),
                vanished=bool(answer.get("vanished")),
                failed=bool(answer.get("failed")),
            )
        sections = [
            Section(str(s["text"]), s.get("page"), str(s.get("heading") or ""))
            for s in answer.get("sections", [])
        ]
        if not sections:
            raise Skipped("it holds no text")
        note = str(answer.get("note") or "")
        return Extracted(path, kind, info.st_size, info.st_mtime_ns, digest, sections, note)

    def _timeout_for(self, size: int) -> float:
        if self.timeout_s is not None:
            return self.timeout_s
        return BASE_TIMEOUT_S + TIMEOUT_PER_MB_S * size / 1e6

    def _ask(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        process = self._ensure_process()
        assert process.stdin is not None
        try:
            process.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
            process.stdin.flush()
        except OSError:
            self._kill()
            raise Skipped("the document reader stopped unexpectedly", failed=True) from None
        deadline = time.monotonic() + timeout_s
        watched = TreeMemory(process.pid)
        while True:
            try:
                line = self._answers.get(timeout=_POLL_S)
            except queue.Empty:
                line = b""
            if line is None:
                self._kill()
                raise Skipped("the document reader crashed on it", failed=True)
            if line:
                try:
                    answer: dict[str, Any] = json.loads(line)
                except ValueError:
                    self._kill()
                    raise Skipped(
                        "the document reader gave an unreadable answer", failed=True
                    ) from None
                return answer
            if self.should_stop is not None and self.should_stop():
                self._kill()
                raise Stopped()
            if time.monotonic() > deadline:
                self._kill()
                raise Skipped(f"reading it took longer than {timeout_s:.0f} s", failed=True)
            # With its children: in a Windows venv the process is a launcher (0: it ended,
            # and the reader thread says so next turn).
            if watched.rss() > self.memory_limit:
                self._kill()
                raise Skipped(
                    f"reading it needed more than {self.memory_limit / 1e9:.1f} GB of memory",
                    failed=True,
                )

    def _ensure_process(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        env = dict(os.environ)
        env[MEMORY_LIMIT_ENV] = str(self.memory_limit)
        env["PYTHONIOENCODING"] = "utf-8"
        stderr: IO[bytes] | int = subprocess.DEVNULL
        if self.log_file is not None:
            private_folder(self.log_file.parent)
            stderr = private_file(self.log_file).open("ab")
        creation = creation_flags()
        try:
            self._process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=env,
                creationflags=creation,
            )
        finally:
            if not isinstance(stderr, int):
                stderr.close()
        self._answers = queue.Queue()
        threading.Thread(
            target=_read_lines,
            args=(self._process.stdout, self._answers),
            daemon=True,
            name="hearth-extract-reader",
        ).start()
        return self._process

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            kill_tree(process)
            process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            log.warning("the extraction process did not end", exc_info=True)
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            kill_tree(process)
            process.wait()
        if process.stdout is not None:
            process.stdout.close()

    def __enter__(self) -> Extractor:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _read_lines(stream: IO[bytes] | None, answers: queue.Queue[bytes | None]) -> None:
    assert stream is not None
    try:
        for line in stream:
            answers.put(line)
    except (OSError, ValueError):
        pass
    answers.put(None)
