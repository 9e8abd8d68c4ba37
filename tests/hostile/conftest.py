"""Fixtures shared by the hostile-input tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core import Core
from app.library_offer import LibraryOffer, library_app
from app.serve.api_server import ApiServer
from app.serve.config import ServerConfig
from backends.llama_cpp_engine import LlamaCppEngine
from tests.conftest import free_port
from tests.hostile.loopback import Answer, Hostile


@pytest.fixture(scope="module")
def engine(starter: Path) -> Iterator[Any]:
    """The real llama.cpp engine, in this process, with the starter model loaded."""
    loaded = LlamaCppEngine()
    loaded.load({"path": str(starter), "n_ctx": 512, "threads": 2}, lambda *_: None)
    yield loaded
    loaded.close()


@pytest.fixture
def library_server(core: Core) -> Iterator[tuple[int, LibraryOffer]]:
    """The API server of ``core``'s library in this process (as the window's switch runs
    it): its port and its offer."""
    config = ServerConfig(port=free_port())
    app, offer = library_app(core, config, None)
    server = ApiServer(app, config)
    server.start()
    try:
        yield config.port, offer
    finally:
        server.stop()
        core.engines.close()


@pytest.fixture
def serve() -> Iterator[Callable[[Answer], Hostile]]:
    """Start loopback servers that answer as the test says; closed after it."""
    made: list[Hostile] = []

    def start(answer: Answer) -> Hostile:
        made.append(Hostile(answer))
        return made[-1]

    yield start
    for server in made:
        server.close()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """llama-cpp-python opens /dev/null twice at import and never closes it; in this test
    process (the only one that imports it outside the worker) close them, so the run ends
    without ResourceWarnings at exit."""
    import sys

    utils = sys.modules.get("llama_cpp._utils")
    for name in ("outnull_file", "errnull_file"):
        handle = getattr(utils, name, None)
        if handle is not None:
            handle.close()
