"""The GPU check kit's promise, kept without a GPU: whatever happens (no kit, a build that
would overrun the time, a time limit that stops it) it prints one JSON report saying what
it did and why it stopped, keeps that report on disk, and leaves nothing running."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

# The kit runs on the lent Linux GPU machine (nvidia-smi, cgroups, POSIX process groups).
pytestmark = pytest.mark.linux_only("the GPU check kit is for Linux machines")

REPO = Path(__file__).resolve().parents[1]
KIT_SCRIPT = REPO / "packaging" / "gpu_kit.py"


def kit_with_slow_build(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A kit whose build never ends: ``cmake`` on PATH is a script that only waits."""
    kit = tmp_path / "kit"
    (kit / "llama.cpp").mkdir(parents=True)
    with tarfile.open(kit / "llama.cpp.tar.gz", "w:gz") as archive:
        archive.add(kit / "llama.cpp", arcname="llama.cpp")
    tools = tmp_path / "bin"
    tools.mkdir()
    cmake = tools / "cmake"
    cmake.write_text('#!/bin/sh\necho "$$" > "$CMAKE_PID_FILE"\nexec sleep 600\n')
    cmake.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}",
        "CMAKE_PID_FILE": str(tmp_path / "cmake.pid"),
        "OUT": str(tmp_path / "out"),
    }
    return kit, env


def check(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(KIT_SCRIPT), "run", *args, "--cpu"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
    )


def steps(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {step["step"]: step for step in report["steps"]}


def test_without_a_kit_the_report_says_how_to_make_one(tmp_path: Path) -> None:
    run = check(str(tmp_path / "no-kit"), "--work", str(tmp_path / "work"))
    out, err = run.communicate(timeout=300)
    assert run.returncode == 1, err
    report = json.loads(out)
    assert "make gpu-kit" in steps(report)["kit"]["reason"]
    assert report["machine"]["mode"] == "cpu"
    assert json.loads((tmp_path / "work" / "report.json").read_text()) == report


def test_a_build_that_would_overrun_is_stopped_and_reported(tmp_path: Path) -> None:
    """The build may take only what leaves time for the measurements after it: with a
    short budget it is stopped, the report says so, and the check goes on to the end."""
    kit, env = kit_with_slow_build(tmp_path)
    run = check(str(kit), "--work", str(tmp_path / "work"), "--budget-s", "60", env=env)
    out, err = run.communicate(timeout=600)
    assert run.returncode == 1, err
    report = json.loads(out)
    build = steps(report)["build cpu"]
    assert build["status"] == "failed" and "stopped to leave time" in build["reason"]
    assert "system_check" in report, "the parts after the build still ran"
    assert json.loads((tmp_path / "out" / "gpu-check.json").read_text()) == report
    assert_gone(tmp_path / "cmake.pid")


def test_a_time_limit_still_gets_the_report_and_stops_the_build(tmp_path: Path) -> None:
    """``timeout`` around the check (as gpu-check.sh has) sends SIGTERM: the report so far
    is printed, and the build it started is stopped with it."""
    kit, env = kit_with_slow_build(tmp_path)
    run = check(str(kit), "--work", str(tmp_path / "work"), env=env)
    pid_file = tmp_path / "cmake.pid"
    deadline = time.monotonic() + 300
    while not pid_file.is_file() or not pid_file.read_text().strip():
        assert run.poll() is None and time.monotonic() < deadline, run.communicate()
        time.sleep(0.1)
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 1, err
    report = json.loads(out)
    assert steps(report)["build cpu"]["status"] == "started"
    assert steps(report)["check"]["reason"] == "stopped (SIGTERM)"
    assert_gone(pid_file)


def assert_gone(pid_file: Path) -> None:
    """The build's process has ended (or was stopped before it even wrote its pid)."""
    written = pid_file.read_text().strip() if pid_file.is_file() else ""
    if not written:
        return
    pid = int(written)
    deadline = time.monotonic() + 60
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the build is still running"
        time.sleep(0.1)


# -- the runtime pack: installed through the app's own code, then a reply on it ----------
@pytest.fixture
def pack_side(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The check's pack step in this process, with the kit's environment: its data folder
    and its runtimes (as ``use_kit`` sets them)."""
    monkeypatch.syspath_prepend(str(REPO / "packaging"))
    monkeypatch.setenv("HEARTH_DATA_DIR", str(tmp_path / "work" / "data"))
    monkeypatch.setenv("HEARTH_RUNTIMES_DIR", str(tmp_path / "work" / "runtimes"))
    return importlib.import_module("gpu_check.pack_side")


def report_of(tmp_path: Path) -> Any:
    return importlib.import_module("gpu_check.report").Report(300.0, [tmp_path / "r.json"])


def test_the_kits_runtime_pack_is_installed_by_the_app_and_answers(
    pack_side: Any, tmp_path: Path, starter: Path
) -> None:
    from tests.runtime_pack_builds import make_pack, make_runtime

    kit = tmp_path / "kit"
    manifest = make_pack(make_runtime(tmp_path / "runtime"), kit / "packs")
    (kit / "packs" / pack_side.MANIFEST).write_text(json.dumps(manifest))
    report = report_of(tmp_path)
    pack_side.check(kit, tmp_path / "work", None, starter, True, report)
    done = steps(report.data)
    assert (done["install pack"]["status"], done["install pack"]["origin"]) == ("ok", "the kit")
    assert done["pack reply"]["status"] == "ok"
    assert done["pack reply"]["runtime_used"] == "cpu-pack"


def test_without_a_pack_in_the_kit_one_is_made_from_the_checks_build(
    pack_side: Any, tmp_path: Path, starter: Path
) -> None:
    from tests.runtime_pack_builds import make_runtime

    built = make_runtime(tmp_path / "runtimes" / "cpu-kit", "cpu-kit")
    report = report_of(tmp_path)
    pack_side.check(tmp_path / "kit", tmp_path / "work", built, starter, True, report)
    done = steps(report.data)
    assert done["install pack"]["origin"] == "this check's build"
    assert done["pack reply"]["runtime_used"] == pack_side.BUILT_PACK


def test_with_no_pack_and_no_build_the_report_says_so(pack_side: Any, tmp_path: Path) -> None:
    report = report_of(tmp_path)
    pack_side.check(tmp_path / "kit", tmp_path / "work", None, None, True, report)
    skipped = steps(report.data)["runtime pack"]
    assert skipped["status"] == "skipped" and "the kit has no runtime pack" in skipped["reason"]
    assert not report.failed()


def test_the_kit_carries_the_linux_packs_of_a_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.runtime_pack_builds import make_runtime

    release = tmp_path / "release"
    runtime = make_runtime(tmp_path / "runtime", "cuda-12", "cuda")
    for system in ("linux", "windows"):
        subprocess.run(
            [
                *(sys.executable, "packaging/llama/make-pack.py", "pack", str(runtime)),
                *(str(release), "--name", "cuda-12", "--os", system, "--arch", "x86_64"),
            ],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
    manifests = sorted(str(p) for p in release.glob("hearth-runtime-cuda-12-*.json"))
    subprocess.run(
        [
            *(sys.executable, "packaging/llama/make-pack.py", "merge"),
            *(str(release / "hearth-runtime-packs.json"), *manifests),
        ],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    monkeypatch.syspath_prepend(str(REPO / "packaging"))
    importlib.import_module("gpu_kit")._copy_packs(release, tmp_path / "kit" / "packs")
    carried = json.loads((tmp_path / "kit" / "packs" / "hearth-runtime-packs.json").read_text())
    assert [pack["os"] for pack in carried["packs"]] == ["linux"]
    assert sorted(p.suffix for p in (tmp_path / "kit" / "packs").iterdir()) == [".json", ".zip"]


# -- the PyTorch engine: the CUDA build installed through the app's own code -------------
@pytest.fixture
def engine_side(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(REPO / "packaging"))
    monkeypatch.setenv("HEARTH_KIT_WHEELS", str(tmp_path / "no-wheels"))
    return importlib.import_module("gpu_check.engine_side")


def test_without_the_cuda_engines_wheels_here_the_engine_step_says_where_to_put_them(
    engine_side: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess as run

    no_pip_folders = run.CompletedProcess([], 0, "", "")
    monkeypatch.setattr(engine_side.subprocess, "run", lambda *a, **k: no_pip_folders)
    report = report_of(tmp_path)
    engine_side.check(tmp_path / "kit", tmp_path / "work", None, report)
    skipped = steps(report.data)["pytorch engine"]
    assert skipped["status"] == "skipped" and "HEARTH_KIT_WHEELS" in skipped["reason"]
    assert "GB" in skipped["reason"] and not report.failed()


def test_a_cuda_engine_that_sees_no_gpu_fails_the_step_with_the_apps_sentence(
    engine_side: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, expect_error_logs: None
) -> None:
    """The lock's CUDA set, here small wheels whose torch sees no CUDA device, from the
    kit's folder: the app's check refuses it and the step says why."""
    from app.packs import pytorch_lock
    from tests.file_server import FileServer
    from tests.test_pytorch_engine import engine_wheels, lock_for
    from wire.platforms import wheel_platform

    server = FileServer()
    try:
        wheels = engine_wheels(tmp_path / "kit" / "wheels")
        lock = lock_for(wheels, server)
        lock["platforms"][wheel_platform()]["cuda"] = lock["platforms"][wheel_platform()]["cpu"]
        (tmp_path / "lock.json").write_text(json.dumps(lock))
        monkeypatch.setattr(pytorch_lock, "lock_file", lambda: tmp_path / "lock.json")
        from app.machine.hardware import GpuFacts

        gpu = GpuFacts(name="H200", driver_version="580.65", cuda_driver_version="13.0")
        monkeypatch.setattr(engine_side, "_gpus", lambda: [gpu])  # its driver, as NVML says
        report = report_of(tmp_path)
        engine_side.check(tmp_path / "kit", tmp_path / "work", None, report)
    finally:
        server.close()
    failed = steps(report.data)["pytorch engine"]
    assert failed["status"] == "failed", failed
    assert "cannot use the GPU here: torch sees no CUDA device" in failed["reason"]
    assert server.requests == [], "every wheel came from the kit's folder"
