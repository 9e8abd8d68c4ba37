"""llama.cpp built on the machine under test, for its own GPU only: the shared libraries
(a Hearth runtime folder), ``llama-bench`` and ``llama-quantize`` from one CMake build.

A build runs in its own process group, with its output in a log, so that a build that
would overrun the check's time is stopped whole and the log's end goes in the report."""

from __future__ import annotations

import glob
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

TARGETS = ("llama", "llama-bench", "llama-quantize")
AMX_OFF = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
CUDA_HOMES = ("/usr/local/cuda/bin", *sorted(glob.glob("/usr/local/cuda-*/bin"), reverse=True))


class BuildFailed(Exception):
    def __init__(self, reason: str, log: str) -> None:
        super().__init__(reason)
        self.log = log


def cores() -> int:
    """The cores this process may use: its CPU affinity, and a container's CPU quota
    (cgroup v2 ``cpu.max``), which affinity does not show."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 2
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            count = min(count, max(1, int(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return count


def build_jobs() -> int:
    """Parallel compiles: one per core, and no more than memory allows (nvcc takes up to
    about 3 GiB for ggml's larger kernels)."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return cores()
    return max(1, min(cores(), int(memory // (3 * 2**30))))


def find_nvcc() -> str | None:
    """nvcc on PATH, else in the CUDA toolkit's usual folders; a wrapper script that
    starts another nvcc is followed to it (CMake looks for the toolkit beside nvcc)."""
    found = shutil.which("nvcc")
    if found is None:
        for folder in CUDA_HOMES:
            candidate = Path(folder) / "nvcc"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                found = str(candidate)
                break
    if found is None:
        return None
    real = Path(found).resolve()
    try:
        if real.stat().st_size < 4096:
            target = re.search(r"(/\S+/bin/nvcc)\b", real.read_text(errors="replace"))
            if target and Path(target.group(1)).is_file():
                return str(Path(target.group(1)).resolve())
    except OSError:
        pass
    return str(real)


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


def nvcc_major(nvcc: str) -> str:
    """nvcc's CUDA major version ("12", "13"; "" when it does not say)."""
    try:
        out = subprocess.run(
            [nvcc, "--version"], capture_output=True, text=True, timeout=60, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    found = re.search(r"release (\d+)\.", out)
    return found.group(1) if found else ""


def _toolkit_has_cublas(nvcc: str) -> bool:
    """cuBLAS's header in nvcc's own toolkit (the one CMake will use)."""
    home = Path(nvcc).parent.parent
    return bool(
        list(home.glob("include/cublas_v2.h")) or list(home.glob("targets/*/include/cublas_v2.h"))
    )


def cublas_from_wheel(nvcc: str, shim: Path) -> tuple[Path, Path] | None:
    """cuBLAS from a pip wheel (PyTorch's ``nvidia-cublas``) for a CUDA toolkit that has
    none (one made of NVIDIA's PyPI wheels, say): its headers' folder, and ``shim`` with
    the unversioned links the linker looks for (the wheel has only versioned libraries;
    the folder stays in the built libraries' run path).  None when the toolkit has cuBLAS
    or no wheel is found (CMake then says what is missing)."""
    if _toolkit_has_cublas(nvcc):
        return None
    major = nvcc_major(nvcc)
    headers = [
        header
        for entry in dict.fromkeys(p for p in sys.path if p and Path(p).is_dir())
        for header in Path(entry).glob("nvidia/*/include/cublas_v2.h")
    ]
    # The wheel for nvcc's CUDA version first (nvidia/cu13, or nvidia/cublas with .so.12).
    headers.sort(key=lambda h: not list((h.parent.parent / "lib").glob(f"libcublas.so.{major}*")))
    if not headers:
        return None
    include, lib = headers[0].parent, headers[0].parent.parent / "lib"
    shutil.rmtree(shim, ignore_errors=True)
    shim.mkdir(parents=True)
    for library in sorted(lib.glob("libcublas*.so.*")):
        for name in (library.name, library.name.split(".so.")[0] + ".so"):
            (shim / name).unlink(missing_ok=True)
            (shim / name).symlink_to(library)
    return include, shim


DRIVER_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/nvidia/lib64",
    "/usr/lib/wsl/lib",
)


def driver_link(shim: Path) -> Path | None:
    """``libcuda.so`` for the linker, pointing at the driver's library: a container with
    the GPU passed through often has only ``libcuda.so.1``, and a toolkit made of PyPI
    wheels has no stub, so CMake would find no ``CUDA::cuda_driver``.  None when there is
    no driver library (the build then fails, and says why)."""
    for folder in DRIVER_DIRS:
        for name in ("libcuda.so", "libcuda.so.1"):
            found = Path(folder) / name
            if found.exists():
                shim.mkdir(parents=True, exist_ok=True)
                link = shim / "libcuda.so"
                link.unlink(missing_ok=True)
                link.symlink_to(found.resolve())
                return link
    return None


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
        self.cublas = ""  # a pip wheel's cuBLAS, where the CUDA toolkit has none
        self.log = folder.parent / f"build-{kind}.log"
        self.started = time.monotonic()
        self.started_at = time.time()
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
        c_flags = cxx_flags = ""
        if platform.machine().lower() in ("x86_64", "amd64"):
            # As Hearth's own native builds: ggml's AMX kernels stop with SIGILL on some
            # virtual machines that report AMX (the CPU part of a CUDA build too).
            c_flags = cxx_flags = AMX_OFF
        wheel = (
            cublas_from_wheel(str(find_nvcc()), folder.parent / "cublas")
            if kind == "cuda"
            else None
        )
        driver = driver_link(folder.parent / "cuda-driver") if kind == "cuda" else None
        if driver is not None:
            flags.append(f"-DCUDA_cuda_driver_LIBRARY={driver}")
        if wheel is not None:
            include, shim = wheel
            self.cublas = str(include.parent)
            cxx_flags += f" -I{include}"
            flags += [
                f"-DCMAKE_CUDA_FLAGS=-I{include}",
                f"-DCUDA_cublas_LIBRARY={shim / 'libcublas.so'}",
                f"-DCUDA_cublasLt_LIBRARY={shim / 'libcublasLt.so'}",
            ]
        flags += [f"-DCMAKE_C_FLAGS={c_flags}", f"-DCMAKE_CXX_FLAGS={cxx_flags.strip()}"]
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
        """How long it ran: until its log was last written once it has ended (it may
        have ended well before anyone waited for it)."""
        if self.process.poll() is not None:
            try:
                return round(self.log.stat().st_mtime - self.started_at, 1)
            except OSError:
                pass
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
            # Links stay links: each library once, not once per name.
            shutil.copy2(library, runtime / library.name, follow_symlinks=False)
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
