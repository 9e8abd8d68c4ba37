"""An API server in the test's own process, on one model (as ``hearth serve --model``)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.engine.host import EngineHost
from app.serve.api_server import ApiServer, build_app
from app.serve.config import ServerConfig
from app.serve.pictures import RequestPictures
from app.serve.served_models import SingleModel
from tests.conftest import HEARTH, REPO, free_port
from wire.model_spec import ModelSpec


@contextmanager
def serving_one(
    host: EngineHost,
    spec: ModelSpec,
    name: str,
    facts: dict[str, Any] | None = None,
    pictures: RequestPictures | None = None,
) -> Iterator[str]:
    """The server's base URL (without ``/v1``) while it serves ``spec`` as ``name``
    (keeping its requests' pictures in ``pictures``, as ``hearth serve`` does)."""
    config = ServerConfig(port=free_port(), model_name=name, pictures=pictures)
    one = SingleModel(host, spec, name, facts or {}, dict)
    server = ApiServer(build_app(one, config), config)
    server.start()
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.stop()


# A 1 × 1 PNG in base64: a real picture for requests whose model may not read it.
PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)


@contextmanager
def hearth_serve(data_dir: Path, env: dict[str, str] | None = None) -> Iterator[tuple[int, Path]]:
    """``hearth serve`` on the starter model, as a person starts it; yields (its port, the
    worker log), and ends it after.  ``env``: the whole environment it runs in (a server
    shared by a module's tests has a profile of its own, ``isolated_environment``)."""
    port = free_port()
    server = subprocess.Popen(
        [*HEARTH, "serve", "--port", str(port), "--ctx", "2048"],
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert server.stderr is not None
    try:
        line = server.stderr.readline()
        assert "Serving" in line, line
        yield port, data_dir / "logs" / "worker.log"
    finally:
        server.terminate()
        server.wait(15)
        server.stderr.close()
