"""One file fetched as several ranges at once, written in place, resumable piece by piece.

A hub's CDN caps each connection, so a model of 5–40 GB comes several times faster over
a few connections than over one.  Each connection takes the next piece that has bytes
left (``pieces.Pieces``), asks for the rest of it with ``Range`` and writes what arrives
at its place in the part file.  Every few hundred milliseconds the record of what is on
disk is saved beside the part, so a pause, a kill or a reboot resumes every piece.

Each piece is watched:

* no bytes for ``STALL_S`` (a read timeout), a dropped connection, a short answer: that
  piece is asked again from where it got to, after a pause that grows; a piece that
  makes no progress after ``TRIES`` asks fails the download in words;
* ``429``/``503``: the server is busy; this file uses one connection fewer (down to one)
  and asks again after the time the server names;
* a server that ignores ``Range`` (``200`` to a range): one stream from the start;
* another length, another ``Content-Range`` or another ETag than the file's: the hub's
  copy changed, and the file starts again cleanly (``FileChanged``), never joined from
  two versions.

The SHA-256 is computed while the file arrives, by a thread that follows the bytes on
disk without a gap from the start (``PrefixHasher``): a finished file is not read again,
only a resumed file's first part is.  Memory stays flat: a chunk at a time per connection.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import httpx

from app.errors import HearthError
from app.hub import pieces as piece_record
from app.hub.download_item import CANCELLED, PAUSED, Download, DownloadCancelled, DownloadPaused
from app.hub.link import Link, RateWindow
from app.hub.pieces import Pieces, piece_size_for
from wire.phrases import Phrase

log = logging.getLogger(__name__)

STALL_S = 30.0  # no byte for this long: the piece is asked again
TRIES = 8  # asks of one piece in a row without a byte, before the download fails
BUSY_TRIES = 30  # busy answers in a row at one connection, before it fails
BACKOFF_S = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0)
SAVE_EVERY_S = 0.5
HASH_CHUNK = 4 * 1024 * 1024
_CONTENT_RANGE = re.compile(r"^\s*bytes\s+(\d+)-(\d+)/(\d+)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class FileAddress:
    """Where a file is read (its hub's URL; redirects to a CDN are followed), the headers
    it needs (a token), and the sentence for a refusal (401, 403, 404) in the hub's
    words."""

    url: str
    headers: dict[str, str]
    refusal: Callable[[int], HearthError]


class Controller(Protocol):
    """What a transfer asks of the download queue: pause or cancel, and progress."""

    def control(self, download_id: str) -> str: ...

    def changed(self, item: Download) -> None: ...


class FileChanged(HearthError):
    """The hub's copy is not the one the pieces so far came from: start again."""


class _RangeIgnored(Exception):
    """The server answered a range with the whole file."""


class _Busy(Exception):
    def __init__(self, wait_s: float) -> None:
        super().__init__(wait_s)
        self.wait_s = wait_s


class _Retry(Exception):
    """A piece to ask again (a drop, a stall, a short answer)."""


class PrefixHasher:
    """SHA-256 (and git's blob SHA-1 when the hub gives only that) of the part file's
    bytes from the start, read as soon as they are on disk without a gap."""

    def __init__(self, part: Path, size: int, git: bool) -> None:
        self.part, self.size = part, size
        self.sha256 = hashlib.sha256()
        self.git = hashlib.sha1(b"blob %d\0" % size) if git else None
        self.hashed = 0
        self._frontier = 0
        self._ended = False
        self._cond = threading.Condition()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="hash", daemon=True)
        self._thread.start()

    def advance(self, frontier: int) -> None:
        with self._cond:
            if frontier > self._frontier:
                self._frontier = frontier
                self._cond.notify()

    def _run(self) -> None:
        try:
            # Unbuffered: a buffer would keep bytes read ahead of the frontier, which are
            # holes or old bytes until their piece arrives.
            with self.part.open("rb", buffering=0) as handle:
                while True:
                    with self._cond:
                        while self._frontier <= self.hashed and not self._ended:
                            self._cond.wait()
                        if self._frontier <= self.hashed:
                            return
                        end = self._frontier
                    handle.seek(self.hashed)
                    while self.hashed < end:
                        block = handle.read(min(HASH_CHUNK, end - self.hashed))
                        if not block:
                            raise OSError(f"{self.part} is shorter than what was written")
                        self.sha256.update(block)
                        if self.git is not None:
                            self.git.update(block)
                        self.hashed += len(block)
        except BaseException as exc:  # noqa: BLE001 - reported by digests()
            self.error = exc

    def digests(self) -> tuple[str, str]:
        """(sha256, git sha1) of the whole file, once every byte is hashed."""
        self.stop()
        if self.error is not None:
            raise self.error
        if self.hashed != self.size:
            raise OSError(f"only {self.hashed} of {self.size} bytes were hashed")
        git = self.git.hexdigest() if self.git is not None else ""
        return self.sha256.hexdigest(), git

    def stop(self) -> None:
        with self._cond:
            self._ended = True
            self._cond.notify()
        self._thread.join()


class RangedFetch:
    """The transfer of one file; ``run`` returns its digests or raises (a pause, a
    cancel, a refusal, ``FileChanged``, a disk error)."""

    def __init__(self, item: Download, address: FileAddress, link: Link, queue: Controller):
        self.item, self.address, self.link, self.queue = item, address, link, queue
        self.part = item.part
        piece = piece_size_for(item.size, link.connections)
        found = piece_record.load(self.part, item.size, piece)
        self.pieces = found or Pieces.fresh(item.size, piece)
        if found is None:
            piece_record.forget(self.part)
        self.part.touch()
        self.allowed = link.connections  # this file's own share, lowered when busy
        self.rate = RateWindow()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._failure: BaseException | None = None
        self._active = 0
        self.hasher = PrefixHasher(self.part, item.size, not item.sha256 and bool(item.git_sha1))

    # -- the caller's thread -----------------------------------------------------------
    def run(self) -> tuple[str, str]:
        try:
            self._transfer()
        except BaseException:
            self.hasher.stop()
            if not self.pieces.received:  # nothing to resume from: nothing left behind
                piece_record.forget(self.part)
            raise
        piece_record.forget(self.part, keep_part=True)
        return self.hasher.digests()

    def _transfer(self) -> None:
        with httpx.Client(
            follow_redirects=True,
            timeout=httpx.Timeout(STALL_S),
            limits=httpx.Limits(max_connections=self.link.connections),
        ) as client:
            while True:
                self._run_connections(client)
                if self._failure is None:
                    if self._stop.is_set() or self.pieces.complete:
                        break
                    continue  # every connection gave way to a busy server at once: go on
                if not isinstance(self._failure, _RangeIgnored):
                    break
                # One stream from the start: what came in pieces cannot be trusted in order.
                log.info("%s: the server ignores Range; one connection", self.item.path)
                with self._lock:
                    self.pieces = Pieces.fresh(self.item.size, self.item.size, single=True)
                    self.part.write_bytes(b"")
                    self.allowed = 1
                    self._failure = None
                    self._stop.clear()
                self.hasher.stop()
                self.hasher = PrefixHasher(self.part, self.item.size, self.hasher.git is not None)
        self._save()
        if self._failure is not None:
            raise self._failure
        control = self.queue.control(self.item.id)
        if control == CANCELLED:
            raise DownloadCancelled
        if control == PAUSED or not self.pieces.complete:
            raise DownloadPaused

    def _run_connections(self, client: httpx.Client) -> None:
        with self._lock:
            pieces_left = sum(1 for i in range(len(self.pieces.done)) if self.pieces.left(i))
            count = max(1, min(self.allowed, pieces_left))
        threads = [
            threading.Thread(
                target=self._connection, args=(client,), name=f"range-{n}", daemon=True
            )
            for n in range(count)
        ]
        for thread in threads:
            thread.start()
        try:
            while any(thread.is_alive() for thread in threads):
                deadline = time.monotonic() + SAVE_EVERY_S
                for thread in threads:
                    thread.join(max(0.0, deadline - time.monotonic()))
                if self.queue.control(self.item.id) in (PAUSED, CANCELLED):
                    self._stop.set()
                self._save()
                self.item.speed = self.rate.rate()
                self.queue.changed(self.item)
        except BaseException:  # the record could not be saved (a full disk): all stop
            self._stop.set()
            raise
        finally:
            for thread in threads:
                thread.join()

    def _save(self) -> None:
        """The record of what is on disk (each connection writes unbuffered: what the
        record counts is already the system's), and the hasher told how far to go."""
        with self._lock:
            snapshot = self.pieces.copy()
        piece_record.save(self.part, snapshot)
        self.hasher.advance(snapshot.frontier)

    # -- each connection's thread ------------------------------------------------------
    def _connection(self, client: httpx.Client) -> None:
        with self._lock:
            self._active += 1
        try:
            while not self._stop.is_set():
                with self._lock:
                    if self._active > self.allowed:
                        return  # the server asked for fewer connections
                    index = self.pieces.take()
                if index is None:
                    return
                try:
                    if not self.link.acquire(self._stop):
                        return
                    try:
                        self._piece(client, index)
                    finally:
                        self.link.release()
                finally:
                    with self._lock:
                        self.pieces.give_back(index)
        except BaseException as exc:  # noqa: BLE001 - the first failure ends the file
            with self._lock:
                if self._failure is None:
                    self._failure = exc
            self._stop.set()
        finally:
            with self._lock:
                self._active -= 1

    def _piece(self, client: httpx.Client, index: int) -> None:
        """Fetch what ``index`` lacks, asking again after drops and busy answers."""
        fruitless = busy = 0
        while not self._stop.is_set() and self.pieces.left(index):
            before = self.pieces.done[index]
            try:
                self._ask(client, index)
                continue
            except _Busy as answer:
                busy += 1
                with self._lock:
                    fewer = max(1, min(self.allowed, self._active) - 1)
                    if fewer < self.allowed:
                        log.info("%s: server busy; %d connections", self.item.path, fewer)
                    self.allowed = fewer
                if busy >= BUSY_TRIES:
                    raise HearthError(
                        Phrase(
                            "The hub kept answering that it is busy while {0} downloaded; "
                            "what arrived is kept. Resume it later.",
                            self.item.path,
                        )
                    ) from None
                self._stop.wait(answer.wait_s)
                with self._lock:
                    if self._active > self.allowed:
                        return  # this connection is the one to close
                continue
            except (_Retry, httpx.TransportError) as exc:
                reason = exc
            busy = 0
            fruitless = 0 if self.pieces.done[index] > before else fruitless + 1
            if fruitless >= TRIES:
                raise HearthError(
                    Phrase(
                        "The connection to the hub kept dropping while {0} downloaded ({1}); "
                        "what arrived is kept. Resume it when the network is steady.",
                        self.item.path,
                        reason,
                    )
                ) from None
            log.info("%s piece %d asked again: %s", self.item.path, index, reason)
            self._stop.wait(BACKOFF_S[min(fruitless, len(BACKOFF_S) - 1)])

    def _ask(self, client: httpx.Client, index: int) -> None:
        start = self.pieces.start(index) + self.pieces.done[index]
        end = self.pieces.end(index) - 1
        headers = {**self.address.headers, "Accept-Encoding": "identity"}
        whole = self.pieces.single and start == 0
        if not whole:
            headers["Range"] = f"bytes={start}-{end}"
        with client.stream("GET", self.address.url, headers=headers) as answer:
            self._check(answer, start, end, whole)
            with self.part.open("r+b", buffering=0) as out:
                out.seek(start)
                for chunk in answer.iter_raw():
                    if self._stop.is_set():
                        return
                    left = self.pieces.left(index)
                    block = chunk[:left]
                    self.link.throttle(len(block))
                    view = memoryview(block)
                    while view:
                        written = out.write(view) or 0
                        view = view[written:]
                    with self._lock:
                        self.pieces.done[index] += len(block)
                        self.item.received = self.pieces.received
                    self.rate.add(len(block))
                    if left <= len(chunk):
                        return
        if self.pieces.left(index):
            raise _Retry("the answer ended early")

    def _check(self, answer: httpx.Response, start: int, end: int, whole: bool) -> None:
        status = answer.status_code
        if status in (429, 503):
            raise _Busy(_retry_after(answer))
        if status in (401, 403, 404, 410):
            raise self.address.refusal(status)
        if status >= 500:
            raise _Retry(f"HTTP {status}")
        if status == 416:  # the range is past the file's end: it is shorter now
            raise self._changed(Phrase("it has fewer bytes than {0}", self.item.size))
        if status >= 300:
            raise HearthError(Phrase("The hub answered {0} for {1}.", status, self.item.path))
        if status == 200 and not whole:
            raise _RangeIgnored
        if status == 206:
            # More than asked is fine (the rest is not read); other bytes are not.
            match = _CONTENT_RANGE.match(answer.headers.get("content-range", ""))
            if (
                match is None
                or int(match[1]) != start
                or int(match[2]) < end
                or int(match[3]) != self.item.size
            ):
                raise self._changed(
                    Phrase(
                        "it answered bytes {0} for bytes {1}-{2} of {3}",
                        answer.headers.get("content-range", "?"),
                        start,
                        end,
                        self.item.size,
                    )
                )
        elif int(answer.headers.get("content-length", self.item.size)) != self.item.size:
            raise self._changed(Phrase("it sent a file of another size"))
        etag = _etag(answer)
        with self._lock:
            if not self.pieces.etag:
                self.pieces.etag = etag
            elif etag and etag != self.pieces.etag:
                raise self._changed(Phrase("its ETag changed"))

    def _changed(self, why: str) -> FileChanged:
        return FileChanged(
            Phrase("The hub's copy of {0} changed while it downloaded ({1}).", self.item.path, why)
        )


def _etag(answer: httpx.Response) -> str:
    """The file's version as the server names it (Hugging Face's own header first: the
    CDN's ETag is the same for every piece too)."""
    value = answer.headers.get("x-linked-etag") or answer.headers.get("etag") or ""
    return value.removeprefix("W/").strip('"')


def _retry_after(answer: httpx.Response) -> float:
    try:
        return min(30.0, max(0.5, float(answer.headers.get("retry-after", "1"))))
    except ValueError:
        return 1.0
