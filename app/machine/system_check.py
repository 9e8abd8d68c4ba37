"""The System check: what Hearth found, what is wrong, and exactly what to do about it.

Each check looks at ``SystemFacts`` only, so recorded machines can be checked in tests.
Every problem comes with the next step, written out (a command to copy where there is
one).  ``report_text`` is the plain-text report behind the "Copy report" button.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app import __version__
from app.machine.hardware import SystemFacts
from wire.phrases import Phrase, from_wire, joined

OK, INFO, WARNING, PROBLEM = "ok", "info", "warning", "problem"
SYMBOL = {OK: "✓", INFO: "i", WARNING: "!", PROBLEM: "✗"}
LLAMA_CUDA_INSTALL = (
    'CMAKE_ARGS="-DGGML_CUDA=on" pip install --force-reinstall --no-cache-dir '
    "llama-cpp-python==0.3.36"
)
TORCH_CUDA_BUILDS = (
    (12, 8, "cu128"),
    (12, 6, "cu126"),
    (12, 4, "cu124"),
    (12, 1, "cu121"),
    (11, 8, "cu118"),
)


@dataclass(frozen=True)
class Check:
    status: str
    title: str
    detail: str
    action: str = ""


def _gb(value: int) -> str:
    return f"{value / 1e9:.1f} GB"


def _version(text: str) -> tuple[int, int]:
    try:
        major, minor = [*text.split("."), "0"][:2]
        return int(major), int(minor)
    except ValueError:
        return (0, 0)


def torch_install_command(driver_cuda: str) -> str:
    """The pip command for the newest PyTorch CUDA build this driver can run."""
    driver = _version(driver_cuda)
    for major, minor, tag in TORCH_CUDA_BUILDS:
        if driver >= (major, minor):
            return f"pip install torch --index-url https://download.pytorch.org/whl/{tag}"
    return "update the NVIDIA driver first (PyTorch needs CUDA 11.8 or newer)"


def _has_kernels(arch_list: list[str], capability: str) -> bool:
    """Does a torch build compiled for ``arch_list`` run on compute ``capability``?"""
    target = _version(capability)
    wanted = f"sm_{target[0]}{target[1]}"
    if wanted in arch_list:
        return True
    # PTX for an older architecture of the same major version can be compiled at load time.
    for arch in arch_list:
        if arch.startswith("compute_"):
            digits = arch.removeprefix("compute_")
            if digits.isdigit() and (int(digits[:-1]), int(digits[-1])) <= target:
                return True
    return False


def runtime_checks(facts: SystemFacts) -> list[Check]:
    """One line per llama.cpp runtime: usable or not and why, and which one is in use."""
    checks = []
    for runtime in facts.engines.runtimes:
        name, kind = str(runtime.get("name")), str(runtime.get("kind"))
        gpus = [
            str(d.get("description") or d.get("name"))
            for d in runtime.get("devices") or []
            if d.get("type") in ("gpu", "igpu")
        ]
        label = name if name == kind else f"{name} ({kind})"  # not "cpu (cpu)"
        if not runtime.get("usable"):
            # The reason is the library's or the probe's own words.
            detail = runtime_reason(runtime)
            title = Phrase("llama.cpp runtime {0}: not usable", label)
            checks.append(Check(INFO, title, detail))
            continue
        detail = Phrase("GPU: {0}", ", ".join(gpus)) if gpus else Phrase("Runs on the CPU.")
        if runtime.get("selected"):
            title = Phrase("llama.cpp runtime {0}: in use", label)
            checks.append(Check(OK, title, detail))
        else:
            title = Phrase("llama.cpp runtime {0}: usable", label)
            checks.append(Check(INFO, title, detail))
    return checks


def run_checks(facts: SystemFacts, smallest_model_peak: int | None = None) -> list[Check]:
    checks: list[Check] = []
    gpus = facts.usable_gpus
    engines = facts.engines
    torch = engines.torch
    nvidia = facts.nvidia_gpus
    for gpu in gpus:
        detail = (
            Phrase(
                "{0} VRAM ({1} free), driver {2}, supports CUDA {3}, compute capability {4}.",
                _gb(gpu.vram_total_bytes),
                _gb(gpu.vram_free_bytes),
                gpu.driver_version,
                gpu.cuda_driver_version,
                gpu.compute_capability,
            )
            if gpu in nvidia
            else Phrase(
                "{0} VRAM ({1} free), seen through llama.cpp's {2} runtime.",
                _gb(gpu.vram_total_bytes),
                _gb(gpu.vram_free_bytes),
                gpu.driver_version,
            )
        )
        checks.append(Check(OK, Phrase("GPU {0}: {1}", gpu.index, gpu.name), detail))
    if facts.apple_silicon:
        checks.append(
            Check(
                OK,
                Phrase("Apple Silicon with Metal"),
                Phrase("The GPU shares the computer's memory; llama.cpp uses Metal."),
            )
        )
    if not gpus and not facts.apple_silicon:
        checks.append(
            Check(
                INFO,
                Phrase("No GPU found"),
                Phrase(
                    "Hearth runs models on the CPU. Small models (up to about 3B "
                    "parameters, Q4) are comfortable; larger ones are slow.{0}",
                    Phrase(" ({0})", joined("; ", facts.notes)) if facts.notes else "",
                ),
            )
        )
    if gpus and engines.llama_gpu_offload is False:
        checks.append(
            Check(
                WARNING,
                Phrase("llama.cpp cannot use the GPU"),
                Phrase(
                    "The installed llama-cpp-python was built for the CPU only, so GGUF models "
                    "will not use the GPU."
                ),
                Phrase("Rebuild it with CUDA: {0}", LLAMA_CUDA_INSTALL),
            )
        )
    elif gpus and engines.llama_gpu_offload:
        checks.append(Check(OK, Phrase("llama.cpp can offload to the GPU"), ""))
    checks.extend(runtime_checks(facts))
    if nvidia:  # the PyTorch engine's GPU path is CUDA's
        gpus = nvidia
        driver_cuda = gpus[0].cuda_driver_version
        if not torch.installed:
            checks.append(
                Check(
                    INFO,
                    Phrase("The PyTorch engine is not installed"),
                    Phrase(
                        "GGUF models run without it; Hugging Face checkpoints need it. Hearth "
                        "adds it from inside the app, with the build this GPU's driver runs."
                    ),
                    Phrase("Add it in Settings › Engines, or with: hearth engines install pytorch"),
                )
            )
        elif not torch.cuda_version:
            checks.append(
                Check(
                    PROBLEM,
                    Phrase("PyTorch is a CPU build"),
                    Phrase(
                        "An NVIDIA GPU is present, but PyTorch {0} was built without CUDA, so "
                        "checkpoints would run on the CPU.",
                        torch.version,
                    ),
                    Phrase(
                        "Install a CUDA build that matches the driver: {0}",
                        torch_install_command(driver_cuda),
                    ),
                )
            )
        else:
            if _version(torch.cuda_version) > _version(driver_cuda):
                checks.append(
                    Check(
                        PROBLEM,
                        Phrase("The NVIDIA driver is too old for this PyTorch"),
                        Phrase(
                            "PyTorch {0} needs CUDA {1}; the driver supports up to CUDA {2}.",
                            torch.version,
                            torch.cuda_version,
                            driver_cuda,
                        ),
                        Phrase(
                            "Update the NVIDIA driver, or install a matching PyTorch: {0}",
                            torch_install_command(driver_cuda),
                        ),
                    )
                )
            for gpu in gpus:
                if torch.arch_list and not _has_kernels(torch.arch_list, gpu.compute_capability):
                    major, minor = _version(gpu.compute_capability)
                    checks.append(
                        Check(
                            PROBLEM,
                            Phrase("PyTorch has no kernels for {0}", gpu.name),
                            Phrase(
                                "This PyTorch was compiled for {0}; the GPU needs {1}.",
                                ", ".join(torch.arch_list),
                                f"sm_{major}{minor}",
                            ),
                            Phrase(
                                "Install a newer PyTorch build: {0}",
                                torch_install_command(driver_cuda),
                            ),
                        )
                    )
            if torch.cuda_available and not torch.bf16_supported:
                checks.append(
                    Check(
                        INFO,
                        Phrase("No bfloat16 on this GPU"),
                        Phrase("Checkpoints will run in float16 instead."),
                    )
                )
    cpu = facts.cpu
    x86 = cpu.architecture.lower() in ("x86_64", "amd64", "i686")
    if x86 and "avx2" not in cpu.features:
        checks.append(
            Check(
                WARNING,
                Phrase("This CPU has no AVX2"),
                Phrase("llama.cpp runs much slower without it."),
                Phrase("Prefer small models, or a machine with a newer CPU."),
            )
        )
    checks.append(
        Check(
            OK,
            Phrase("CPU: {0}", cpu.model or cpu.architecture),
            Phrase(
                "{0} physical / {1} logical cores; {2}.",
                cpu.physical_cores,
                cpu.logical_cores,
                ", ".join(cpu.features) or Phrase("no notable SIMD features found"),
            ),
        )
    )
    memory = facts.memory
    checks.append(
        Check(
            OK,
            Phrase("Memory"),
            Phrase(
                "{0} in total, {1} available now.",
                _gb(memory.total_bytes),
                _gb(memory.available_bytes),
            ),
        )
    )
    if smallest_model_peak is not None and smallest_model_peak > memory.total_bytes * 0.85:
        checks.append(
            Check(
                PROBLEM,
                Phrase("Too little memory for any model in the library"),
                Phrase("The smallest needs about {0}.", _gb(smallest_model_peak)),
                Phrase("Download a smaller model or quantization (Q4_K_M of a 1–3B model)."),
            )
        )
    disk = facts.disk
    if disk.total_bytes and disk.free_bytes < 5e9:
        checks.append(
            Check(
                WARNING,
                Phrase("Little free disk space"),
                Phrase("{0} free where models are stored ({1}).", _gb(disk.free_bytes), disk.path),
                Phrase("Free some space, or choose another models folder in Settings."),
            )
        )
    linux = facts.linux
    if linux is not None:
        if linux.transparent_hugepages == "always":
            checks.append(
                Check(
                    WARNING,
                    Phrase("Transparent huge pages: always"),
                    Phrase("With memory-mapped models this can raise memory use and cause pauses."),
                    "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled",
                )
            )
        if linux.swappiness is not None and linux.swappiness > 60:
            checks.append(
                Check(
                    WARNING,
                    Phrase("vm.swappiness is {0}", linux.swappiness),
                    Phrase(
                        "The kernel may push model pages out to swap, which makes replies stutter."
                    ),
                    "sudo sysctl vm.swappiness=10",
                )
            )
        if linux.numa_nodes and linux.numa_nodes > 1:
            checks.append(
                Check(
                    INFO,
                    Phrase("{0} NUMA nodes", linux.numa_nodes),
                    Phrase("Memory-mapped models are fastest when the engine stays on one node."),
                    Phrase("Start Hearth with: {0}", "numactl --cpunodebind=0 --membind=0 hearth"),
                )
            )
    return checks


def runtime_reason(runtime: dict[str, Any]) -> str:
    """Why a runtime can or cannot run here: a ``Phrase`` again where the probe sent its
    template (a report from an older Hearth has the English only)."""
    wired = runtime.get("reason_wire")
    if isinstance(wired, dict) and wired.get("template"):
        return from_wire(wired)
    return Phrase("{0}", str(runtime.get("reason") or ""))


def facts_lines(facts: SystemFacts) -> list[str]:
    """What Hearth found, a line each: ``Phrase`` lines, so the window shows them in its
    language while the copied report stays in English (anyone can read a bug report)."""
    cpu = facts.cpu
    lines: list[str] = [
        Phrase("System: {0}", facts.os),
        Phrase(
            "CPU: {0} ({1} physical, {2} logical cores; {3})",
            cpu.model,
            cpu.physical_cores,
            cpu.logical_cores,
            " ".join(cpu.features),
        ),
        Phrase(
            "Memory: {0} total, {1} available",
            _gb(facts.memory.total_bytes),
            _gb(facts.memory.available_bytes),
        ),
        Phrase("Disk: {0} free at {1}", _gb(facts.disk.free_bytes), facts.disk.path),
    ]
    for gpu in facts.gpus:
        cuda = (
            Phrase(", CUDA {0}, compute {1}", gpu.cuda_driver_version, gpu.compute_capability)
            if gpu.cuda_driver_version
            else ""
        )
        lines.append(
            Phrase(
                "GPU {0}: {1}, {2} VRAM ({3} free), driver {4}{5}",
                gpu.index,
                gpu.name,
                _gb(gpu.vram_total_bytes),
                _gb(gpu.vram_free_bytes),
                gpu.driver_version,
                cuda,
            )
        )
    if not facts.gpus:
        lines.append(
            Phrase("GPU: none found (Apple Silicon, Metal)")
            if facts.metal
            else Phrase("GPU: none found")
        )
    engines = facts.engines
    offload = {
        True: Phrase("GPU offload"),
        False: Phrase("CPU only"),
        None: Phrase("unknown"),
    }[engines.llama_gpu_offload]
    lines.append(
        Phrase("llama.cpp: llama-cpp-python {0} ({1})", engines.llama_cpp_version or "?", offload)
    )
    for runtime in engines.runtimes:
        state = (
            Phrase("in use")
            if runtime.get("selected")
            else (Phrase("usable") if runtime.get("usable") else Phrase("not usable"))
        )
        lines.append(
            Phrase(
                "  runtime {0} ({1}): {2}; {3}",
                runtime.get("name"),
                runtime.get("kind"),
                state,
                runtime_reason(runtime),
            )
        )
    torch = engines.torch
    if torch.installed:
        build = (
            Phrase("CUDA {0}", torch.cuda_version) if torch.cuda_version else Phrase("CPU build")
        )
        lines.append(
            Phrase(
                "PyTorch: {0} ({1}; GPU usable: {2}; architectures: {3}; bf16: {4})",
                torch.version,
                build,
                torch.cuda_available,
                " ".join(torch.arch_list) or "-",
                torch.bf16_supported,
            )
        )
    else:
        lines.append(Phrase("PyTorch: not installed"))
    if facts.linux is not None:
        linux = facts.linux
        lines.append(
            Phrase(
                "Linux: transparent huge pages {0}, swappiness {1}, NUMA nodes {2}",
                linux.transparent_hugepages or "?",
                linux.swappiness,
                linux.numa_nodes,
            )
        )
    lines.extend(Phrase("Note: {0}", note) for note in facts.notes)
    return lines


def format_facts(facts: SystemFacts) -> str:
    """The facts in English, for the copied report and ``hearth sysinfo``."""
    return "\n".join(facts_lines(facts))


def report_text(facts: SystemFacts, checks: list[Check]) -> str:
    """The plain-text report for bug reports (the Copy report button)."""
    parts = [f"Hearth {__version__} system report", "", format_facts(facts), "", "Checks:"]
    for check in checks:
        parts.append(
            f"[{SYMBOL[check.status]}] {check.title}"
            + (f": {check.detail}" if check.detail else "")
        )
        if check.action:
            parts.append(f"    What to do: {check.action}")
    return "\n".join(parts)
