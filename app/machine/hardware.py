"""What this machine has: CPU, memory, disk, GPUs, and what the installed engines can use.

Facts are plain dataclasses that serialise to JSON and back, so tests (and bug reports)
can feed recorded machines — an H200, an RTX 3060, a laptop without a GPU, an Apple M2 —
to the estimator and the system check.  The probes fill them in on this machine:

* psutil for CPU, memory and disk; ``/proc/cpuinfo`` (Linux) or the platform for SIMD flags;
* NVML (``nvidia-ml-py``) for NVIDIA GPUs — no library, no driver, or NVML raising are
  normal cases that give an empty list and a note, never an error;
* the engines are asked in a short-lived subprocess (``backends.capabilities``), so the
  UI process never imports llama_cpp or torch.

Every probe catches its own failures: a missing file or a strange platform gives an
answer with less in it, not a crash.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil

from wire import cpu_features, platforms
from wire.child_process import CAPABILITIES, command
from wire.engine_overlay import OVERLAY_ENV
from wire.phrases import Phrase

log = logging.getLogger(__name__)

INTERESTING_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512_bf16",
    "avx512_vnni",
    "avx_vnni",
    "amx_tile",
    "neon",
    "asimd",
    "sve",
    "dotprod",
)


@dataclass
class CpuFacts:
    model: str = ""
    physical_cores: int = 1
    logical_cores: int = 1
    features: list[str] = field(default_factory=list)
    architecture: str = ""


@dataclass
class MemoryFacts:
    total_bytes: int = 0
    available_bytes: int = 0


@dataclass
class DiskFacts:
    path: str = ""
    free_bytes: int = 0
    total_bytes: int = 0


@dataclass
class GpuFacts:
    index: int = 0
    name: str = ""
    vram_total_bytes: int = 0
    vram_free_bytes: int = 0
    driver_version: str = ""
    cuda_driver_version: str = ""  # the newest CUDA the driver supports, e.g. "12.8"
    compute_capability: str = ""  # e.g. "9.0"
    utilization_percent: int | None = None
    memory_bandwidth_gb_s: float | None = None


@dataclass
class TorchFacts:
    installed: bool = False
    version: str = ""
    cuda_version: str = ""  # empty for a CPU build
    cuda_available: bool = False
    arch_list: list[str] = field(default_factory=list)  # e.g. ["sm_80", "sm_90"]
    bf16_supported: bool = False
    error: str = ""


@dataclass
class EngineFacts:
    llama_cpp_version: str = ""
    llama_gpu_offload: bool | None = None  # None: could not be asked
    torch: TorchFacts = field(default_factory=TorchFacts)
    error: str = ""
    # The llama.cpp runtimes (backends.runtimes.RuntimeStatus as JSON): name, kind, usable,
    # reason, selected, path, devices.
    runtimes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def selected_runtime(self) -> dict[str, Any] | None:
        return next((r for r in self.runtimes if r.get("selected")), None)


@dataclass
class LinuxFacts:
    transparent_hugepages: str = ""  # "always", "madvise" or "never"
    swappiness: int | None = None
    numa_nodes: int | None = None


@dataclass
class SystemFacts:
    os: str = ""
    cpu: CpuFacts = field(default_factory=CpuFacts)
    memory: MemoryFacts = field(default_factory=MemoryFacts)
    disk: DiskFacts = field(default_factory=DiskFacts)
    gpus: list[GpuFacts] = field(default_factory=list)
    apple_silicon: bool = False
    metal: bool = False
    engines: EngineFacts = field(default_factory=EngineFacts)
    linux: LinuxFacts | None = None
    notes: list[str] = field(default_factory=list)  # what could not be probed, and why

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["runtimes"] = data["engines"]["runtimes"]  # a contract of `hearth sysinfo --json`
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SystemFacts:
        linux = data.get("linux")
        engines = dict(data.get("engines") or {})
        engines.setdefault("runtimes", list(data.get("runtimes") or []))
        engines["torch"] = TorchFacts(**(engines.get("torch") or {}))
        return cls(
            os=data.get("os", ""),
            cpu=CpuFacts(**(data.get("cpu") or {})),
            memory=MemoryFacts(**(data.get("memory") or {})),
            disk=DiskFacts(**(data.get("disk") or {})),
            gpus=[GpuFacts(**g) for g in data.get("gpus") or []],
            apple_silicon=bool(data.get("apple_silicon")),
            metal=bool(data.get("metal")),
            engines=EngineFacts(**engines),
            linux=LinuxFacts(**linux) if linux else None,
            notes=list(data.get("notes") or []),
        )

    @property
    def usable_gpus(self) -> list[GpuFacts]:
        return [g for g in self.gpus if g.vram_total_bytes > 0]

    @property
    def nvidia_gpus(self) -> list[GpuFacts]:
        """The GPUs NVML saw (CUDA and PyTorch advice applies to these only; AMD and Intel
        GPUs come from a Vulkan runtime, see ``runtime_gpus``)."""
        return [g for g in self.usable_gpus if g.cuda_driver_version]


# -- probes ----------------------------------------------------------------------------
def probe_cpu() -> CpuFacts:
    facts = CpuFacts(
        physical_cores=psutil.cpu_count(logical=False) or os.cpu_count() or 1,
        logical_cores=psutil.cpu_count(logical=True) or os.cpu_count() or 1,
        architecture=platform.machine(),
        model=platform.processor() or platform.machine(),
    )
    facts.model = platforms.cpu_model_name() or facts.model
    # The instruction sets from the source the runtimes are chosen by, which knows Windows
    # (IsProcessorFeaturePresent) and macOS (sysctl) as well as Linux.
    flags = set(cpu_features.cpu_features() or ())
    if platform.machine().lower() in ("arm64", "aarch64"):
        flags.update({"neon", "asimd"})
    facts.features = [f for f in INTERESTING_FLAGS if cpu_features.normalise(f) in flags]
    return facts


def probe_memory() -> MemoryFacts:
    memory = psutil.virtual_memory()
    return MemoryFacts(total_bytes=int(memory.total), available_bytes=int(memory.available))


def probe_disk(path: Path) -> DiskFacts:
    target = path
    while not target.exists() and target != target.parent:
        target = target.parent
    try:
        usage = psutil.disk_usage(str(target))
    except OSError:
        return DiskFacts(path=str(path))
    return DiskFacts(path=str(path), free_bytes=int(usage.free), total_bytes=int(usage.total))


def probe_gpus(notes: list[str]) -> list[GpuFacts]:
    """NVIDIA GPUs through NVML; an absent library or driver is a normal, quiet case."""
    try:
        import pynvml
    except ImportError:
        notes.append(Phrase("NVIDIA GPUs: nvidia-ml-py is not installed."))
        return []
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # noqa: BLE001 - no driver is the common case
        if type(exc).__name__ == "NVMLError_LibraryNotFound":
            notes.append(Phrase("NVIDIA GPUs: no driver found."))  # all there is to say
        else:
            notes.append(Phrase("NVIDIA GPUs: no driver found ({0}).", exc))
        return []
    gpus: list[GpuFacts] = []
    try:
        driver = _text(pynvml.nvmlSystemGetDriverVersion())
        cuda = pynvml.nvmlSystemGetCudaDriverVersion_v2()
        cuda_text = f"{cuda // 1000}.{cuda % 1000 // 10}"
        for index in range(pynvml.nvmlDeviceGetCount()):
            try:
                handle = pynvml.nvmlDeviceGetHandleByIndex(index)
                memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
                major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(handle)
                gpu = GpuFacts(
                    index=index,
                    name=_text(pynvml.nvmlDeviceGetName(handle)),
                    vram_total_bytes=int(memory.total),
                    vram_free_bytes=int(memory.free),
                    driver_version=driver,
                    cuda_driver_version=cuda_text,
                    compute_capability=f"{major}.{minor}",
                )
                try:
                    gpu.utilization_percent = int(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)
                except Exception:  # noqa: BLE001 - optional on some boards
                    gpu.utilization_percent = None
                gpus.append(gpu)
            except Exception as exc:  # noqa: BLE001 - a GPU that vanished mid-probe
                notes.append(Phrase("GPU {0} could not be read ({1}).", index, exc))
    except Exception as exc:  # noqa: BLE001
        notes.append(Phrase("NVIDIA GPUs: NVML failed ({0}).", exc))
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            log.debug("nvmlShutdown failed", exc_info=True)
    return gpus


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def probe_linux() -> LinuxFacts | None:
    if not platforms.has_linux_kernel():
        return None
    return LinuxFacts(
        transparent_hugepages=platforms.transparent_hugepages() or "",
        swappiness=platforms.swappiness(),
        numa_nodes=platforms.numa_nodes(),
    )


def probe_engines(timeout: float = 300.0, engine_site: Path | None = None) -> EngineFacts:
    """Ask the engines what they can do, in a subprocess (never in the UI process).

    The limit is generous: importing torch and probing each llama.cpp runtime took 54 s
    of wall time (3 s of CPU) on a busy 2-core machine, and a slow answer only delays the
    System check, which waits in the background, while no answer loses the facts."""
    try:
        # The PyTorch engine added after install, where there is one (wire.engine_overlay).
        env = {**os.environ, OVERLAY_ENV: str(engine_site)} if engine_site else None
        result = subprocess.run(
            command(CAPABILITIES),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=env,
        )
        data = json.loads(result.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as exc:
        return EngineFacts(error=f"the engines could not be asked ({exc})")
    data["torch"] = TorchFacts(**(data.get("torch") or {}))
    return EngineFacts(**data)


def probe_system(
    models_dir: Path, engines: bool = True, engine_site: Path | None = None
) -> SystemFacts:
    notes: list[str] = []
    apple = platforms.unified_memory()
    facts = SystemFacts(
        os=f"{platform.system()} {platform.release()} ({platform.machine()})",
        cpu=probe_cpu(),
        memory=probe_memory(),
        disk=probe_disk(models_dir),
        gpus=probe_gpus(notes),
        apple_silicon=apple,
        metal=apple,
        linux=probe_linux(),
        notes=notes,
    )
    if engines:
        facts.engines = probe_engines(engine_site=engine_site)
        if not facts.gpus:
            facts.gpus = runtime_gpus(facts.engines)
    return facts


def runtime_gpus(engines: EngineFacts) -> list[GpuFacts]:
    """GPUs that NVML cannot see (AMD, Intel) as a usable llama.cpp GPU runtime saw them
    (Vulkan): their own memory, so that fit can place layers on them.  Integrated GPUs,
    which share the computer's memory, are left to the CPU figures."""
    for runtime in engines.runtimes:
        if not runtime.get("usable") or runtime.get("kind") == "cpu":
            continue
        devices = [d for d in runtime.get("devices") or [] if d.get("type") == "gpu"]
        return [
            GpuFacts(
                index=index,
                name=str(device.get("description") or device.get("name") or ""),
                vram_total_bytes=int(device.get("memory_total") or 0),
                vram_free_bytes=int(device.get("memory_free") or 0),
                driver_version=str(runtime.get("kind")),
            )
            for index, device in enumerate(devices)
        ]
    return []
