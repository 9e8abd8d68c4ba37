"""One file downloaded whole and verified, or not at all: the same for a runtime pack and
for the PyTorch engine's wheels.

Why one function of its own rather than the hub's download queue: a part is a file named
by a manifest (its size and SHA-256 known before the first byte), fetched while a person
waits, from a list of places (a mirror first, the original after; a URL, a ``file://`` URL
or a folder on this computer).  What the people who install engines complain of elsewhere
is what this module answers (docs/RUNTIMES.md, "Packs"):

* a download that never ends: a source that does not connect within ``CONNECT_S``, sends
  no byte for ``SILENCE_S`` or answers 403, 404 or 5xx is given up and the next one tried;
  when none is left the sentence names the last reason;
* a download that starts again from nothing: the bytes go to ``<target>.part``, which a
  later call (this process or another, after a kill) goes on from with an HTTP Range;
* a damaged file installed: the bytes are hashed as they arrive and the part becomes the
  target only when its size and SHA-256 are the manifest's; a mismatch deletes it;
* a full disk: the free space is checked before the first byte (what is left to fetch
  plus a margin) and a disk that fills up meanwhile keeps the part for later.

Redirects are followed only to https (a release's files are served from another host).
Memory stays flat: one chunk at a time.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urljoin, urlsplit
from urllib.request import url2pathname

import httpx

from wire.phrases import Phrase

CONNECT_S = 10.0  # a source that does not connect within this is given up
SILENCE_S = 30.0  # nor one that sends no byte for this long
CHUNK = 1 << 20
DISK_MARGIN = 64 * 2**20  # free space kept beyond what is left to fetch
SPEED_WINDOW_S = 5.0  # the speed is the rate over this last stretch
PROGRESS_EVERY_S = 0.25
MAX_REDIRECTS = 5
# A source that cut the connection after sending something is asked again from where it
# stopped (an HTTP Range) this many times before the next source is tried.
RESUMES_PER_SOURCE = 3
_REDIRECTS = (301, 302, 303, 307, 308)


@dataclass(frozen=True)
class Transfer:
    """What progress shows: bytes so far of the whole, the speed, and the time left."""

    done: int
    total: int
    bytes_per_s: float
    seconds_left: float | None


class FetchError(Exception):
    """Nothing usable came; ``args[0]`` is a sentence (a ``Phrase``) a person can act on."""


class FetchCancelled(FetchError):
    """Stopped by the caller; the part is kept and the next call goes on from it."""


class _SourceFailed(Exception):
    """This source is given up (``args[0]`` says why); the next one is tried."""


def amount(size: float) -> str:
    """A size as a person reads it: 740 MB, 1.25 GB."""
    return f"{size / 1e9:.2f} GB" if size >= 1e9 else f"{max(size, 0) / 1e6:.0f} MB"


@contextlib.contextmanager
def exclusive(lock_file: Path, busy: str) -> Iterator[None]:
    """One holder of ``lock_file`` across Hearth's processes; a second is refused at once
    with ``busy`` (a FetchError) rather than waiting behind a download of minutes."""
    from filelock import FileLock, Timeout

    lock = FileLock(str(lock_file), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise FetchError(busy) from None
    try:
        yield
    finally:
        # The file stays: deleting it after the release would let a second Hearth lock
        # the old file while a third creates and locks a new one.
        lock.release()


def sha256_of(path: Path, length: int | None = None) -> hashlib._Hash:
    """The SHA-256 of ``path``'s first ``length`` bytes (all of it for None), read a chunk
    at a time."""
    digest = hashlib.sha256()
    left = float("inf") if length is None else length
    with path.open("rb") as handle:
        while left > 0 and (block := handle.read(int(min(CHUNK, left)))):
            digest.update(block)
            left -= len(block)
    return digest


def fetch(
    sources: Sequence[str],
    target: Path,
    *,
    sha256: str,
    size: int,
    on_progress: Callable[[Transfer], None] | None = None,
    cancel: threading.Event | None = None,
) -> Path:
    """``target`` with exactly ``size`` bytes of SHA-256 ``sha256``, from the first of
    ``sources`` that gives them (``https://``, ``http://``, ``file://`` or a path on this
    computer).  FetchError with one sentence when none does; FetchCancelled when
    ``cancel`` is set (the part is kept, and the next call goes on from it)."""
    target = Path(target)
    if not sources:
        raise FetchError(Phrase("There is nowhere to download {0} from.", target.name))
    target.parent.mkdir(parents=True, exist_ok=True)
    if _already_there(target, size, sha256):
        return target
    part_path = target.with_suffix(target.suffix + ".part")
    busy = Phrase("Another download of {0} is under way.", target.name)
    with exclusive(part_path.with_name(part_path.name + ".lock"), busy):
        part = _Part(part_path, size)
        _check_space(target, size - part.done)
        meter = _Meter(size, part.done, on_progress)
        whole = False
        try:
            last = _fetch_into(
                part, list(sources), sha256.lower(), meter, cancel or threading.Event()
            )
            if last is None:
                part.close()
                os.replace(part_path, target)
                whole = True
                return target
        finally:
            part.close()
            meter.close(whole)
    raise FetchError(Phrase("{0} could not be downloaded: {1}", target.name, last))


def read_small(source: str, limit: int) -> bytes:
    """A small file (a manifest) read whole from ``source`` (a web address, ``file://`` or a
    path), with the same deadlines and redirects as ``fetch``; FetchError when it cannot be
    read or holds more than ``limit`` bytes."""
    where = _where(source)
    too_large = Phrase(
        "{0} holds more than {1}, which is not a list of packs.", where, amount(limit)
    )
    path = local_path(source)
    if path is not None:
        try:
            with path.open("rb") as handle:
                data = handle.read(limit + 1)
        except OSError as exc:
            raise FetchError(Phrase("{0} could not be read ({1}).", path, exc.strerror)) from exc
        if len(data) > limit:
            raise FetchError(too_large)
        return data
    body = bytearray()
    try:
        with httpx.Client(timeout=_timeout()) as client, _answer(client, source, 0) as response:
            if response.status_code != 200:
                raise FetchError(
                    Phrase(
                        "{0} answered {1} {2}.", where, response.status_code, response.reason_phrase
                    )
                )
            for chunk in response.iter_raw():
                body += chunk
                if len(body) > limit:
                    raise FetchError(too_large)
    except _SourceFailed as exc:
        raise FetchError(exc.args[0]) from None
    except httpx.HTTPError as exc:
        raise FetchError(_network_failure(exc, where)) from None
    return bytes(body)


def _already_there(target: Path, size: int, sha256: str) -> bool:
    try:
        if target.stat().st_size != size:
            return False
    except OSError:
        return False
    return sha256_of(target).hexdigest() == sha256.lower()


def _check_space(target: Path, left: int) -> None:
    try:
        free = shutil.disk_usage(target.parent).free
    except OSError:
        return  # cannot tell: writing will say so if the disk is full
    if free < left + DISK_MARGIN:
        raise FetchError(
            Phrase(
                "There is not enough free disk space for {0}: it needs {1} in {2}, where {3} "
                "are free.",
                target.name,
                amount(left + DISK_MARGIN),
                target.parent,
                amount(free),
            )
        )


def _fetch_into(
    part: _Part, sources: list[str], sha256: str, meter: _Meter, cancel: threading.Event
) -> str | None:
    """Fill ``part`` from ``sources``; None once it is whole and verified, else the last
    source's reason."""
    last = ""
    for source in sources:
        resumes = 0
        while True:
            _stop_if_cancelled(cancel)
            before = part.done
            try:
                if part.done < part.size:
                    _from_source(source, part, meter, cancel)
                if part.done < part.size:  # ended early without an error: a cut
                    raise _SourceFailed(
                        Phrase("{0} stopped sending before the end.", _where(source))
                    )
            except _SourceFailed as failure:
                _stop_if_cancelled(cancel)
                last = failure.args[0]
                if part.done > before and resumes < RESUMES_PER_SOURCE:
                    resumes += 1
                    continue  # it sent something: ask it again from there
                break
            if part.digest.hexdigest() == sha256:
                return None
            part.discard()
            last = Phrase(
                "the file from {0} is damaged (its SHA-256 does not match), so it was deleted.",
                _where(source),
            )
            break
    return last


def _from_source(source: str, part: _Part, meter: _Meter, cancel: threading.Event) -> None:
    local = local_path(source)
    if local is None:
        _from_http(source, part, meter, cancel)
    else:
        _from_file(local, part, meter, cancel)


def local_path(source: str) -> Path | None:
    """The file or folder ``source`` names on this computer (a path or a ``file://``
    address); None for a web address."""
    parts = urlsplit(source)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        return None
    return Path(url2pathname(parts.path)) if scheme == "file" else Path(source)


def _timeout() -> httpx.Timeout:
    return httpx.Timeout(connect=CONNECT_S, read=SILENCE_S, write=SILENCE_S, pool=CONNECT_S)


def _where(source: str) -> str:
    """A source as a sentence names it: its host, or its path."""
    parts = urlsplit(source)
    if parts.scheme.lower() in ("http", "https"):
        return parts.netloc or source
    return url2pathname(parts.path) if parts.scheme.lower() == "file" else source


def _from_file(path: Path, part: _Part, meter: _Meter, cancel: threading.Event) -> None:
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise _SourceFailed(Phrase("{0} could not be read ({1}).", path, exc.strerror)) from exc
    with handle:
        found = os.fstat(handle.fileno()).st_size
        if found != part.size:
            raise _SourceFailed(
                Phrase("{0} has {1} bytes, not the {2} expected.", path, found, part.size)
            )
        handle.seek(part.done)
        try:
            while part.done < part.size and (chunk := handle.read(CHUNK)):
                _take(chunk, part, meter, cancel, path.name)
        except OSError as exc:
            raise _SourceFailed(Phrase("{0} could not be read ({1}).", path, exc.strerror)) from exc


def _from_http(url: str, part: _Part, meter: _Meter, cancel: threading.Event) -> None:
    host = _where(url)
    with httpx.Client(timeout=_timeout(), follow_redirects=False) as client:
        try:
            with _answer(client, url, part.done) as response:
                _check_answer(response, part, host)
                with _cancel_wakes(response, cancel):
                    for chunk in response.iter_raw():  # as it comes: a cut loses nothing
                        _take(chunk, part, meter, cancel, host)
        except httpx.HTTPError as exc:
            _stop_if_cancelled(cancel)
            raise _SourceFailed(_network_failure(exc, host)) from exc


def _network_failure(exc: httpx.HTTPError, where: str) -> Phrase:
    if isinstance(exc, httpx.ConnectTimeout):
        return Phrase("{0} did not answer within {1} s.", where, round(CONNECT_S))
    if isinstance(exc, httpx.TimeoutException):
        return Phrase("{0} sent nothing for {1} s.", where, round(SILENCE_S))
    return Phrase("{0} could not be reached or stopped answering ({1}).", where, exc)


@contextlib.contextmanager
def _answer(client: httpx.Client, url: str, start: int) -> Iterator[httpx.Response]:
    """The answer to a GET of ``url`` from byte ``start``, after redirects to https only."""
    headers = {"User-Agent": "Hearth", "Accept-Encoding": "identity"}
    if start:
        headers["Range"] = f"bytes={start}-"
    for _ in range(MAX_REDIRECTS + 1):
        response = client.send(client.build_request("GET", url, headers=headers), stream=True)
        if response.status_code not in _REDIRECTS:
            try:
                yield response
            finally:
                response.close()
            return
        response.close()
        onward = urljoin(url, response.headers.get("location", ""))
        if urlsplit(onward).scheme != "https":
            raise _SourceFailed(
                Phrase("{0} sent the download on to {1}, which is not https.", _where(url), onward)
            )
        url = onward
    raise _SourceFailed(Phrase("{0} redirected the download too many times.", _where(url)))


def _check_answer(response: httpx.Response, part: _Part, host: str) -> None:
    """Go on from the part, start it again (a server that ignores Range), or give up."""
    status = response.status_code
    if status == 206:
        first = response.headers.get("content-range", "").removeprefix("bytes ").split("-")[0]
        if first.strip() != str(part.done):
            part.discard()
            raise _SourceFailed(Phrase("{0} answered another part of the file.", host))
        return
    if status == 200:
        if part.done:
            part.discard()  # the whole file from the start
        return
    if status == 416:  # the file there is shorter than the part: not the whole file
        part.discard()
        raise _SourceFailed(
            Phrase("the file at {0} is shorter than the {1} bytes expected.", host, part.size)
        )
    raise _SourceFailed(Phrase("{0} answered {1} {2}.", host, status, response.reason_phrase))


@contextlib.contextmanager
def _cancel_wakes(response: httpx.Response, cancel: threading.Event) -> Iterator[None]:
    """Cancel ends a read that waits on a silent server at once, not after ``SILENCE_S``:
    a watcher shuts the connection's socket, which wakes the blocked read."""
    stream = response.extensions.get("network_stream")
    sock: socket.socket | None = stream.get_extra_info("socket") if stream is not None else None
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.1):
            if cancel.is_set() and sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                return

    watcher = threading.Thread(target=watch, name="fetch-cancel", daemon=True)
    if sock is not None:
        watcher.start()
    try:
        yield
    finally:
        done.set()
        if watcher.is_alive():
            watcher.join()


def _stop_if_cancelled(cancel: threading.Event) -> None:
    if cancel.is_set():
        raise FetchCancelled(Phrase("The download was cancelled; it goes on from here next time."))


def _take(chunk: bytes, part: _Part, meter: _Meter, cancel: threading.Event, where: str) -> None:
    _stop_if_cancelled(cancel)
    if part.done + len(chunk) > part.size:
        part.discard()
        raise _SourceFailed(Phrase("{0} sent more than the file's {1} bytes.", where, part.size))
    part.write(chunk)
    meter.add(part.done)


class _Part:
    """``<target>.part``: the bytes so far, hashed as they are written.  A part left by an
    earlier call (or another process) is hashed once and gone on from; one longer than the
    file is not the file's and starts again."""

    def __init__(self, path: Path, size: int) -> None:
        self.path, self.size = path, size
        self._file: BinaryIO | None = None
        try:
            found = path.stat().st_size
        except OSError:
            found = 0
        if found > size:
            path.unlink()
            found = 0
        self.digest = sha256_of(path, found) if found else hashlib.sha256()
        self.done = found

    def write(self, chunk: bytes) -> None:
        try:
            if self._file is None:
                self._file = self.path.open("ab")
            self._file.write(chunk)
            self._file.flush()
        except OSError as exc:
            self.close()
            if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
                raise FetchError(
                    Phrase(
                        "The disk is full: {0} could not be written. What was downloaded is "
                        "kept; free some space and try again.",
                        self.path.parent,
                    )
                ) from exc
            raise FetchError(
                Phrase("{0} could not be written ({1}).", self.path, exc.strerror)
            ) from exc
        self.digest.update(chunk)
        self.done += len(chunk)

    def discard(self) -> None:
        """Nothing of it is kept (damaged, or another file)."""
        self.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self.digest, self.done = hashlib.sha256(), 0

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class _Meter:
    """Progress for ``on_progress``, every ``PROGRESS_EVERY_S`` from a thread of its own, so
    that a stall shows as a falling speed rather than as silence: the speed is the rate
    over the last ``SPEED_WINDOW_S`` (a burst does not last, a stall shows at once)."""

    def __init__(self, total: int, done: int, on_progress: Callable[[Transfer], None] | None):
        self.total, self.on_progress = total, on_progress
        self._lock = threading.Lock()
        self._samples: deque[tuple[float, int]] = deque([(time.monotonic(), done)])
        self._done = done
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fetch-progress", daemon=True)
        if on_progress is not None:
            self._thread.start()

    def add(self, done: int) -> None:
        with self._lock:
            self._done = done
            self._samples.append((time.monotonic(), done))
            self._trim(time.monotonic())

    def _trim(self, now: float) -> None:
        while len(self._samples) > 1 and now - self._samples[1][0] >= SPEED_WINDOW_S:
            self._samples.popleft()

    def now(self) -> Transfer:
        with self._lock:
            now = time.monotonic()
            self._trim(now)
            first_time, first_done = self._samples[0]
            done = self._done
        rate = (done - first_done) / (now - first_time) if now > first_time else 0.0
        if done >= self.total:
            return Transfer(done, self.total, rate, 0.0)
        return Transfer(done, self.total, rate, (self.total - done) / rate if rate > 0 else None)

    def _run(self) -> None:
        assert self.on_progress is not None
        while not self._stop.wait(PROGRESS_EVERY_S):
            self.on_progress(self.now())

    def close(self, whole: bool) -> None:
        """No report after this; a last one (the whole file) when it came."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        if whole and self.on_progress is not None:
            self.on_progress(self.now())
