"""llama.cpp runtimes: found, probed in their own processes, chosen, and skipped with a
reason when they cannot run here.  Runtimes that fail on purpose are made from the
installed CPU build: its libraries with a wrong kind or version, or a library replaced by
garbage."""

import contextlib
import importlib.util
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from app.engine.host import EngineHost
from app.engine.seat import Seat
from backends import runtimes
from tests.conftest import run_hearth
from wire import cpu_features
from wire.model_spec import ModelSpec

# The installed (built-in) CPU build's libraries, found without importing llama_cpp.
_SPEC = importlib.util.find_spec("llama_cpp")
assert _SPEC is not None and _SPEC.origin is not None
LIB_DIR = Path(_SPEC.origin).parent / "lib"

pytestmark = pytest.mark.slow


# An instruction set no CPU has: a build that needs it must never be probed or chosen.
NO_CPU_HAS = "hearth_test_isa"
# Why a build needing it is refused: Windows names only AVX, AVX2 and AVX-512F, so there
# it cannot tell (and refuses all the same).
# Apple silicon names no x86 set at all, so there it cannot tell of any.
WHY_REFUSED = (
    "cannot tell whether this CPU has HEARTHTESTISA"
    if sys.platform == "win32"
    else "cannot tell whether this CPU has AVX2, HEARTH_TEST_ISA"
    if cpu_features.cpu_features() is None
    else "this CPU lacks HEARTHTESTISA, which this build needs"
)


def manifest(folder: Path, name: str, kind: str, version: str, features: list[str]) -> None:
    data: dict[str, object] = {"name": name, "kind": kind, "llama_cpp_python": version}
    if features:
        data["cpu_features"] = features
    (folder / "runtime.json").write_text(json.dumps(data))


def make_runtime(
    root: Path, name: str, kind: str, version: str = "0.3.36", features: list[str] | None = None
) -> Path:
    folder = root / name
    shutil.copytree(LIB_DIR, folder)
    manifest(folder, name, kind, version, features or [])
    return folder


# A shared library's file name here: libNAME.so.N on Linux, libNAME.dylib, NAME.dll.
LIBRARY = {"win32": "{}.dll", "darwin": "lib{}*.dylib"}.get(sys.platform, "lib{}.so*")


@pytest.fixture(scope="module")
def runtimes_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runtimes")
    broken = make_runtime(root, "cuda", "cuda")
    for library in broken.glob(LIBRARY.format("llama")):
        library.write_bytes(b"not a shared library")
    make_runtime(root, "vulkan", "vulkan")  # loads, but finds no GPU here
    make_runtime(root, "cpu-old", "cpu", version="0.0.1")
    make_runtime(root, "cpu-copy", "cpu")
    # Like an AVX-512 build on a CPU without AVX-512; garbage libraries, as it is never loaded.
    future = make_runtime(root, "cpu-future", "cpu", features=["avx2", NO_CPU_HAS])
    for library in future.glob(LIBRARY.format("ggml-cpu")):
        library.write_bytes(b"would stop with an illegal instruction")
    return root


def sysinfo(runtimes_dir: Path) -> dict[str, dict[str, object]]:
    result = run_hearth("sysinfo", "--json", env={"HEARTH_RUNTIMES_DIR": str(runtimes_dir)})
    assert result.returncode == 0, result.stderr
    return {r["name"]: r for r in json.loads(result.stdout)["runtimes"]}


def test_sysinfo_lists_every_runtime_with_why_it_can_or_cannot_run(runtimes_dir: Path) -> None:
    found = sysinfo(runtimes_dir)
    assert list(found) == ["cuda", "vulkan", "cpu-future", "cpu-copy", "cpu-old", "cpu"], (
        "preferred first: GPU kinds, then the CPU build that needs the most instruction sets"
    )
    assert not found["cuda"]["usable"]
    assert "could not be loaded" in str(found["cuda"]["reason"])
    assert not found["vulkan"]["usable"]
    assert "no vulkan GPU" in str(found["vulkan"]["reason"])
    assert not found["cpu-old"]["usable"]
    assert "built for llama-cpp-python 0.0.1" in str(found["cpu-old"]["reason"])
    assert not found["cpu-future"]["usable"]
    assert found["cpu-future"]["reason"] == WHY_REFUSED, "not probed: the CPU cannot run it"
    assert found["cpu-copy"]["usable"] and found["cpu-copy"]["selected"]
    assert found["cpu"]["usable"] and not found["cpu"]["selected"]
    assert all(set(r) >= {"name", "kind", "usable", "reason", "selected"} for r in found.values())


def chat(
    runtimes_dir: Path, *flags: str, fail_on: str = ""
) -> tuple[list[dict[str, object]], str, int]:
    env = {"HEARTH_RUNTIMES_DIR": str(runtimes_dir)}
    if fail_on:
        env["HEARTH_FAIL_LOAD_ON_RUNTIME"] = fail_on
    result = run_hearth(
        "chat",
        "--json",
        "--max-tokens",
        "8",
        "--temperature",
        "0",
        *flags,
        "Hi",
        env=env,
    )
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return events, result.stderr, result.returncode


def test_a_gpu_runtime_counts_only_the_gpus_of_its_own_kind() -> None:
    """A copy of a Metal build labelled "vulkan" (or a CUDA build labelled "metal") sees a
    GPU it could not use: it is not usable, and says so."""
    metal = {"name": "MTL0", "description": "Apple M2", "type": "gpu"}
    vulkan = {"name": "Vulkan0", "description": "AMD Radeon RX 7800 XT", "type": "gpu"}

    def usable(kind: str, *devices: dict[str, str]) -> tuple[bool, str]:
        runtime = runtimes.Runtime(name=kind, kind=kind)
        ok, why = runtimes.judge(runtime, {"devices": list(devices)}, "")
        return ok, str(why)

    assert usable("vulkan", metal) == (
        False,
        "no vulkan GPU was found (is the GPU's driver installed?)",
    )
    assert usable("vulkan", metal, vulkan) == (True, "GPU: AMD Radeon RX 7800 XT")
    assert usable("metal", metal)[0] and not usable("cuda", metal, vulkan)[0]


def test_a_forced_runtime_runs_the_reply_and_the_stats_name_it(runtimes_dir: Path) -> None:
    events, stderr, code = chat(runtimes_dir, "--runtime", "cpu-copy")
    assert code == 0, stderr
    stats = next(e for e in events if e["type"] == "stats")
    assert stats["runtime"] == "cpu-copy"


def test_a_gpu_runtime_that_cannot_run_is_skipped_with_a_notice(runtimes_dir: Path) -> None:
    """Forcing the GPU path: the broken CUDA and the GPU-less Vulkan runtime are skipped,
    the reply still comes, and the user is told why."""
    events, stderr, code = chat(runtimes_dir, "--runtime", "", "--gpu-layers", "-1")
    assert code == 0, stderr
    stats = next(e for e in events if e["type"] == "stats")
    assert stats["runtime"] == "cpu-copy"
    notices = " ".join(str(e.get("message")) for e in events if e["type"] == "notice")
    assert "cuda runtime was skipped" in notices and "could not be loaded" in notices
    assert "vulkan runtime was skipped" in notices
    assert "cpu-future" not in notices, "a build for other CPUs is no news to the user"


def test_a_forced_runtime_that_cannot_run_is_refused_in_words(runtimes_dir: Path) -> None:
    _events, stderr, code = chat(runtimes_dir, "--runtime", "vulkan")
    assert code != 0
    assert "The llama.cpp runtime could not be used" in stderr
    assert "no vulkan GPU was found" in stderr
    _events, stderr, code = chat(runtimes_dir, "--runtime", "nonesuch")
    assert code != 0 and "no runtime called 'nonesuch'" in stderr


@pytest.mark.parametrize("how", ["fail", "crash"])
def test_a_runtime_that_fails_to_load_the_model_hands_over_to_the_next(
    runtimes_dir: Path, how: str
) -> None:
    """What a GPU out of memory or a driver crash does: the reply still comes, from the
    next runtime in a new worker, and the user is told which runtime failed."""
    target = "cpu-copy" if how == "fail" else "cpu-copy:crash"
    events, stderr, code = chat(runtimes_dir, fail_on=target)
    assert code == 0, stderr
    failed = [e for e in events if e.get("kind") == "runtime_failed"]
    assert len(failed) == 1 and failed[0]["runtime"] == "cpu-copy"
    assert "cpu-copy runtime could not load the model" in str(failed[0]["message"])
    stats = next(e for e in events if e["type"] == "stats")
    assert stats["runtime"] == "cpu"
    assert events[-1]["type"] == "done"


def test_a_forced_runtime_that_fails_to_load_is_not_replaced(runtimes_dir: Path) -> None:
    """Forced means forced: the failure is the answer, nothing runs elsewhere."""
    _events, stderr, code = chat(runtimes_dir, "--runtime", "cpu-copy")
    assert code == 0, stderr  # it works when nothing fails
    _events, stderr, code = chat(runtimes_dir, "--runtime", "cpu-copy", fail_on="cpu-copy")
    assert code != 0
    assert "cpu-copy runtime could not load the model" in stderr


def test_a_build_for_other_cpus_is_refused_when_forced(runtimes_dir: Path) -> None:
    _events, stderr, code = chat(runtimes_dir, "--runtime", "cpu-future")
    assert code != 0
    assert f"the cpu-future runtime cannot run here: {WHY_REFUSED}" in stderr


def test_among_cpu_builds_the_one_this_cpu_can_run_with_most_instructions_is_chosen(
    tmp_path: Path,
) -> None:
    """The installer's case: an AVX-512 build beside the portable one is used where the CPU
    has every set it needs (here: sets this CPU reports), and the chat runs on it."""
    from wire.cpu_features import cpu_features

    have = sorted(cpu_features() or [])
    if len(have) < 2:
        pytest.skip("this platform does not report its CPU's instruction sets")
    make_runtime(tmp_path, "cpu-basic", "cpu", features=have[:1])
    make_runtime(tmp_path, "cpu-wide", "cpu", features=have[:2])
    make_runtime(tmp_path, "cpu-beyond", "cpu", features=[*have[:2], NO_CPU_HAS])
    events, stderr, code = chat(tmp_path)
    assert code == 0, stderr
    stats = next(e for e in events if e["type"] == "stats")
    assert stats["runtime"] == "cpu-wide"
    found = sysinfo(tmp_path)
    assert [name for name, r in found.items() if r["selected"]] == ["cpu-wide"]


@pytest.mark.posix_only("SIGILL is POSIX's")
def test_a_build_for_another_processor_is_explained_not_blamed_on_the_model(
    runtimes_dir: Path,
) -> None:
    """An illegal instruction (a build for another CPU, or AMX in some virtual machines)
    is named as such, with what to do, rather than "the model file may be damaged"."""
    _events, stderr, code = chat(runtimes_dir, "--runtime", "cpu-copy", fail_on="cpu-copy:sigill")
    assert code != 0
    assert "an illegal instruction" in stderr and "Choose another llama.cpp runtime" in stderr
    assert "damaged" not in stderr


def replies(
    runtimes_dir: Path,
    fault: str,
    spec: ModelSpec,
    log_dir: Path,
    count: int,
    client_each: bool = False,
) -> list[list[dict[str, Any]]]:
    """The events of ``count`` replies in a row from one seat (as the window sends
    messages), or each from a seat of its own on the same engine host (``client_each``: as
    the window and the API's models), with ``HEARTH_FAIL_LOAD_ON_RUNTIME=fault``."""
    env = {"HEARTH_RUNTIMES_DIR": str(runtimes_dir), "HEARTH_FAIL_LOAD_ON_RUNTIME": fault}
    question = [{"role": "user", "content": "Hi"}]
    params = {"max_tokens": 4, "temperature": 0}
    command = [sys.executable, "-m", "hearth", "--worker"]
    with pytest.MonkeyPatch.context() as patch, contextlib.ExitStack() as clients:
        for name, value in env.items():
            patch.setenv(name, value)
        host = EngineHost(log_dir, worker_command=command)
        clients.callback(host.close)
        client = None
        events = []
        for _ in range(count):
            if client is None or client_each:
                client = Seat(host)
            events.append(list(client.chat(spec, question, params).events(timeout=300)))
        return events


def ran_on(events: list[dict[str, Any]]) -> str:
    assert events[-1]["type"] == "done", events[-1]
    return str(next(e for e in events if e["type"] == "stats")["runtime"])


@pytest.mark.posix_only("SIGILL is POSIX's")
def test_an_illegal_instruction_before_the_first_words_sends_the_reply_to_another_runtime(
    runtimes_dir: Path, starter: Path, tmp_path: Path
) -> None:
    """A runtime chosen automatically that loads the model, then stops with an illegal
    instruction while reading the prompt (a kernel only some prompts reach, as ggml's AMX
    ones in some virtual machines): nothing was shown, so the reply comes from the next
    runtime, with a notice, and later replies go there at once."""
    spec = ModelSpec(str(starter), n_ctx=512, threads=2)
    first, second = replies(runtimes_dir, "cpu-copy:sigill-reply", spec, tmp_path, 2)
    assert ran_on(first) == "cpu" and ran_on(second) == "cpu"
    failed = [e for e in first if e.get("kind") == "runtime_failed"]
    assert len(failed) == 1 and "The cpu-copy runtime stopped" in str(failed[0]["message"])
    assert not [e for e in second if e.get("kind") == "runtime_failed"]


@pytest.mark.posix_only("SIGILL is POSIX's")
def test_a_runtime_that_failed_a_model_is_skipped_by_every_client(
    runtimes_dir: Path, starter: Path, tmp_path: Path
) -> None:
    """The API's requests hold leases of their own: once a runtime stopped on a model in
    the window, a request for it from the API does not crash on it again."""
    spec = ModelSpec(str(starter), n_ctx=512, threads=2)
    window, api = replies(runtimes_dir, "cpu-copy:sigill-reply", spec, tmp_path, 2, True)
    assert ran_on(window) == "cpu" and ran_on(api) == "cpu"
    assert [e for e in window if e.get("kind") == "runtime_failed"]
    assert not [e for e in api if e.get("kind") == "runtime_failed"]


@pytest.mark.posix_only("SIGILL is POSIX's")
def test_an_illegal_instruction_in_a_reply_moves_the_next_reply_to_another_runtime(
    runtimes_dir: Path, starter: Path, tmp_path: Path
) -> None:
    """The same once the reply's first words were shown: that reply ends with the reason
    and what happens next (it cannot be sent again), and the next message runs on another
    runtime instead of crashing the same way again."""
    spec = ModelSpec(str(starter), n_ctx=512, threads=2)
    first, second = replies(runtimes_dir, "cpu-copy:sigill-delta", spec, tmp_path, 2)
    assert any(e["type"] == "delta" for e in first), "the first words were shown"
    assert first[-1]["type"] == "error", first[-1]
    message = str(first[-1]["message"])
    assert "illegal instruction" in message and "the cpu-copy build" in message
    assert "Hearth now uses another llama.cpp runtime" in message
    assert ran_on(second) == "cpu"


@pytest.mark.posix_only("SIGILL is POSIX's")
def test_a_forced_runtime_that_meets_an_illegal_instruction_is_not_replaced(
    runtimes_dir: Path, starter: Path, tmp_path: Path
) -> None:
    spec = ModelSpec(str(starter), n_ctx=512, threads=2, runtime="cpu-copy")
    (first,) = replies(runtimes_dir, "cpu-copy:sigill-reply", spec, tmp_path, 1)
    assert first[-1]["type"] == "error"
    assert "Choose another llama.cpp runtime" in str(first[-1]["message"])


def test_another_crash_in_a_reply_is_not_blamed_on_the_runtime(
    runtimes_dir: Path, starter: Path, tmp_path: Path
) -> None:
    """A worker that ends otherwise after the model loaded (out of memory, a bug) says so;
    the request is not sent again elsewhere, and the runtime is not given up."""
    spec = ModelSpec(str(starter), n_ctx=512, threads=2)
    first, second = replies(runtimes_dir, "cpu-copy:crash-reply", spec, tmp_path, 2)
    for events in (first, second):
        assert events[-1]["type"] == "error" and "stopped unexpectedly" in str(
            events[-1]["message"]
        )
        assert not [e for e in events if e.get("kind") == "runtime_failed"]
