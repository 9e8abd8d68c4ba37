"""llama.cpp built on the machine under test, for its own GPU only: the shared libraries
(a Hearth runtime folder), ``llama-bench`` and ``llama-quantize`` from one CMake build.

A build runs in its own process group, with its output in a log, so that a build that
would overrun the check's time is stopped whole and the log's end goes in the report."""

from __future__ import annotations

import glob
import json
import os
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

TARGETS = ("llama", "llama-bench", "llama-quantize")
CUDA_HOMES = ("/usr/local/cuda/bin", *sorted(glob.glob("/usr/local/cuda-*/bin"), reverse=True))


class BuildFailed(Exception):
    def __init__(self, reason: str, log: str) -> None:
        super().__init__(reason)
        self.log = log


def cores() -> int:
    """The cores this process may use (a container's share, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 2


def find_nvcc() -> str | None:
    """nvcc on PATH, else in the CUDA toolkit's usual folders."""
    found = shutil.which("nvcc")
    if found:
        return found
    for folder in CUDA_HOMES:
        candidate = Path(folder) / "nvcc"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def cannot_build(kind: str, arch: str | None) -> str:
    """Why ``kind`` cannot be built here ("" when it can)."""
    if shutil.which("cmake") is None:
        return "cmake is not installed"
    if kind == "cuda":
        if find_nvcc() is None:
            return "nvcc is not installed (looked on PATH and in /usr/local/cuda*/bin)"
        if not arch:
            return "nvidia-smi named no GPU"
    if kind == "vulkan" and (
        shutil.which("glslc") is None or not Path("/usr/include/vulkan/vulkan.h").exists()
    ):
        return "glslc or the Vulkan headers are not installed"
    return ""


def runtime_name(kind: str) -> str:
    """ "cpu" is the built-in runtime's name: the kit's CPU build needs another."""
    return "cpu-kit" if kind == "cpu" else kind


def _build_environment() -> dict[str, str]:
    """nvcc's folder on PATH: CMake finds the rest of the CUDA toolkit from there."""
    env = dict(os.environ)
    nvcc = find_nvcc()
    if nvcc:
        env["PATH"] = os.pathsep.join((str(Path(nvcc).parent), env.get("PATH", "")))
    return env


class Build:
    """One build of llama.cpp, started in the background."""

    def __init__(self, source: Path, folder: Path, kind: str, arch: str | None, jobs: int) -> None:
        self.kind = kind
        self.folder = folder
        self.log = folder.parent / f"build-{kind}.log"
        self.started = time.monotonic()
        flags = {
            "cpu": ["-DGGML_NATIVE=ON"],
            # Only this GPU's architecture, as machine code (no PTX): the fastest build.
            "cuda": [
                "-DGGML_CUDA=ON",
                f"-DCMAKE_CUDA_ARCHITECTURES={arch}-real",
                f"-DCMAKE_CUDA_COMPILER={find_nvcc()}",
            ],
            "vulkan": ["-DGGML_VULKAN=ON"],
        }[kind]
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        configure = [
            *("cmake", "-S", str(source), "-B", str(folder), *generator),
            *("-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=ON", "-DLLAMA_BUILD_TESTS=OFF"),
            *("-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=OFF", "-DLLAMA_CURL=OFF"),
            *("-DLLAMA_OPENSSL=OFF", *flags),
        ]
        build = ["cmake", "--build", str(folder), "-j", str(jobs), "--target", *TARGETS]
        # Niced: what is measured meanwhile (transformers, on the GPU) keeps its share of
        # the CPU, and the build has the rest.
        script = f"{shlex.join(configure)} && nice -n 15 {shlex.join(build)}"
        folder.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                ["sh", "-c", script],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env=_build_environment(),
            )

    def seconds(self) -> float:
        return round(time.monotonic() - self.started, 1)

    def wait(self, timeout: float) -> None:
        """Until the build is done (BuildFailed if it failed or took longer than
        ``timeout``: then it is stopped, with all it started)."""
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise BuildFailed(
                f"not done after {self.seconds()} s: stopped to leave time for the rest",
                self.log_tail(),
            ) from None
        if code != 0:
            raise BuildFailed(f"cmake exited with {code}", self.log_tail())

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                self.process.kill()
            self.process.wait()

    def log_tail(self, size: int = 3000) -> str:
        try:
            return self.log.read_bytes()[-size:].decode(errors="replace")
        except OSError:
            return ""

    def install_runtime(self, runtimes: Path, version: str) -> Path:
        """The build's libraries as the runtime folder ``runtimes/NAME``."""
        name = runtime_name(self.kind)
        runtime = runtimes / name
        shutil.rmtree(runtime, ignore_errors=True)
        runtime.mkdir(parents=True)
        for library in (self.folder / "bin").glob("lib*.so*"):
            shutil.copy2(library, runtime / library.name)
        manifest = {"name": name, "kind": self.kind, "llama_cpp_python": version}
        (runtime / "runtime.json").write_text(json.dumps(manifest))
        return runtime

    def tool(self, name: str) -> Path:
        return self.folder / "bin" / name

    def environment(self) -> dict[str, str]:
        """The environment the build's tools run in (its own libraries first)."""
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = f"{self.folder / 'bin'}:{env.get('LD_LIBRARY_PATH', '')}"
        return env
