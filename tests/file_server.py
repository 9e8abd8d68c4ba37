"""A file server on 127.0.0.1 for the tests of downloads (``app.packs.fetch``) and runtime
packs: files by path with HTTP Range, and faults on demand per path (a status code, a cut
after some bytes, a stall after some bytes until the test lets it go, silence, a redirect,
Range ignored, a steady rate as on a slow line).  Every request is kept with its Range header."""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

from tests.hostile.loopback import Hostile, stopping


@dataclass
class Fault:
    status: int | None = None  # answer this instead of the file
    cut_after: int | None = None  # close the connection after this many body bytes, once
    stall_after: int | None = None  # after this many body bytes, wait until ``go`` is set
    silent: bool = False  # accept the request and never answer it
    redirect: str = ""  # answer 302 to this address
    ignore_range: bool = False
    bytes_per_s: int = 0  # send no faster than this (0: as fast as it goes)
    go: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class Request:
    path: str
    range: str


class FileServer:
    """``files`` served at ``url(path)``; ``faults[path]`` changes how a path answers."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.faults: dict[str, Fault] = {}
        self.requests: list[Request] = []
        self._hostile = Hostile(self._answer)

    def url(self, path: str) -> str:
        return f"{self._hostile.url()}/{path.lstrip('/')}"

    def fault(self, path: str, **kwargs: object) -> Fault:
        fault = Fault(**kwargs)  # type: ignore[arg-type]
        self.faults[path.lstrip("/")] = fault
        return fault

    def paths(self) -> list[str]:
        return [request.path for request in self.requests]

    def close(self) -> None:
        for fault in self.faults.values():
            fault.go.set()
        self._hostile.close()

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        path = handler.path.lstrip("/")
        self.requests.append(Request(path, handler.headers.get("Range", "")))
        fault = self.faults.get(path, Fault())
        if fault.silent:
            while not stopping(handler) and not fault.go.wait(0.1):
                pass
            return
        if fault.redirect:
            handler.send_response(302)
            handler.send_header("Location", fault.redirect)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        data = self.files.get(path)
        if fault.status is not None or data is None:
            handler.send_error(fault.status or 404)
            return
        start = _range_start(handler.headers.get("Range", ""))
        if start is None or fault.ignore_range:
            handler.send_response(200)
            start = 0
        elif start >= len(data):
            handler.send_error(416)
            return
        else:
            handler.send_response(206)
            handler.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        body = data[start:]
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        self._send(handler, body, fault)

    def _send(self, handler: BaseHTTPRequestHandler, body: bytes, fault: Fault) -> None:
        if fault.cut_after is not None:
            cut, fault.cut_after = fault.cut_after, None  # once
            handler.wfile.write(body[:cut])
            handler.wfile.flush()
            handler.close_connection = True
            with contextlib.suppress(OSError):
                handler.connection.shutdown(2)
            return
        if fault.stall_after is not None:
            handler.wfile.write(body[: fault.stall_after])
            handler.wfile.flush()
            while not stopping(handler) and not fault.go.wait(0.1):
                pass
            body = body[fault.stall_after :]
        if fault.bytes_per_s:
            _send_slowly(handler, body, fault.bytes_per_s)
            return
        handler.wfile.write(body)


def _send_slowly(handler: BaseHTTPRequestHandler, body: bytes, bytes_per_s: int) -> None:
    import time

    chunk = max(1, bytes_per_s // 20)
    for start in range(0, len(body), chunk):
        if stopping(handler):
            return
        handler.wfile.write(body[start : start + chunk])
        handler.wfile.flush()
        time.sleep(chunk / bytes_per_s)


def _range_start(header: str) -> int | None:
    if not header.startswith("bytes=") or not header.endswith("-"):
        return None
    try:
        return int(header[len("bytes=") : -1])
    except ValueError:
        return None
