"""The API server's settings (``ServerConfig``): where it listens, its key and allowed
origins, and the checks that refuse an unsafe or impossible set-up in words before any
model loads."""

from __future__ import annotations

import errno
import socket
from dataclasses import dataclass, field

from app.errors import HearthError
from app.serve.pictures import RequestPictures
from app.serve.pipeline import Grounder
from wire import images, platforms
from wire.phrases import Phrase

MAX_BODY_BYTES = 4 * 1024 * 1024
TOO_LARGE = "The request is too large (at most 4 MB)."
# The routes that take pictures: a body may carry a request's pictures in base64 besides
# the conversation (``wire.images``: 40 MB of picture files at most).
PICTURE_ROUTES = frozenset(
    {"/v1/chat/completions", "/v1/responses", "/v1/messages", "/api/chat", "/api/generate"}
)
MAX_PICTURE_BODY_BYTES = MAX_BODY_BYTES + images.MAX_REQUEST_IMAGE_BYTES * 4 // 3


def body_limit(path: str) -> int:
    """The most bytes a request's body to ``path`` may have."""
    return MAX_PICTURE_BODY_BYTES if path.rstrip("/") in PICTURE_ROUTES else MAX_BODY_BYTES


def too_large(path: str) -> str:
    if body_limit(path) == MAX_BODY_BYTES:
        return TOO_LARGE
    return (
        f"The request is too large (at most {MAX_PICTURE_BODY_BYTES // 1_000_000} MB, "
        f"pictures of up to {images.MAX_REQUEST_IMAGE_BYTES // 1_000_000} MB in all)."
    )


BODY_TIMEOUT_S = 60.0  # a request's whole body, from its headers
SLOW_BODY = "The request's body did not arrive in time (60 s); send it again."
BUSY = "The server is answering as many requests as it can; try again in a moment."
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")
DEFAULT_MODEL_NAME = "hearth"


class PortTaken(HearthError):
    """Another program listens on the port already."""


def free_port(host: str, near: int) -> int:
    """A port nobody listens on at ``host``: the first free one after ``near`` (an address
    people can remember), else one the system picks."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    for port in [*range(near + 1, min(near + 50, 65536)), 0]:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            try:
                probe.bind((host.strip("[]"), port))
            except OSError:
                continue
            return int(probe.getsockname()[1])
    raise HearthError(Phrase("No free port was found on {0}.", host))


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    api_key: str = ""
    allowed_origins: tuple[str, ...] = ()
    model_name: str = DEFAULT_MODEL_NAME  # the default model's, for the server's messages
    extra_hosts: tuple[str, ...] = field(default_factory=tuple)
    # Document collections for the ``hearth.collections`` request option: given the
    # question, the collections, the passages wanted and the room in the model's context,
    # the context to put before the question and its sources
    # (``app.docs.library.api_grounder``).
    ground: Grounder | None = None
    # Where the requests' pictures are kept, to reach the worker by reference
    # (``pictures.RequestPictures``); None: they go by value.
    pictures: RequestPictures | None = None

    def check(self) -> None:
        if self.host not in LOOPBACK_NAMES and not self.api_key:
            raise HearthError(
                Phrase(
                    "Serving on {0} makes the model reachable from other computers; Hearth "
                    "requires an API key for that (--api-key-file, $HEARTH_SERVE_API_KEY or "
                    "--api-key).",
                    self.host,
                )
            )
        if not 1 <= self.port <= 65535:
            raise HearthError(Phrase("The port must be between 1 and 65535, not {0}.", self.port))

    def check_port(self) -> None:
        """Refuse a port that is taken before the model loads, in words."""
        family = socket.AF_INET6 if ":" in self.host.strip("[]") else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            if platforms.reuse_address_is_safe():  # as uvicorn binds
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((self.host.strip("[]"), self.port))
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise PortTaken(
                        Phrase(
                            "Port {0} is already in use on {1} (another Hearth or another "
                            "server?). Choose another with --port.",
                            self.port,
                            self.host,
                        )
                    ) from exc
                raise HearthError(
                    Phrase("Hearth cannot listen on {0}:{1} ({2}).", self.host, self.port, exc)
                ) from exc

    def allowed_hosts(self) -> set[str]:
        names = {*LOOPBACK_NAMES, self.host, *self.extra_hosts}
        return {f"{name}:{self.port}" for name in names} | names
