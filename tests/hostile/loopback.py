"""A loopback HTTP server whose every GET is answered by a function of the test's: a
hostile feed or hub (slow, huge, redirecting) for the tests of bounded network reads."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Answer = Callable[[BaseHTTPRequestHandler], None]


class Hostile:
    """A loopback server whose every GET is answered by ``answer``; counts the requests."""

    def __init__(self, answer: Answer) -> None:
        self.requests: list[str] = []
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                hostile.requests.append(self.path)
                with contextlib.suppress(OSError):  # Hearth hung up: what a bounded reader does
                    answer(self)

            def handle(self) -> None:
                with contextlib.suppress(OSError):  # the client went first: nothing to say
                    super().handle()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.stopping = threading.Event()  # the slow answers end with the test
        _stop_of[id(self.server)] = self.stopping
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}"

    def close(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


_stop_of: dict[int, threading.Event] = {}  # each server's end, by its id


def stopping(handler: BaseHTTPRequestHandler) -> bool:
    """Whether the test that started ``handler``'s server has ended (slow answers stop)."""
    return _stop_of[id(handler.server)].is_set()
