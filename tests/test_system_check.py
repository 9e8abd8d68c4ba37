"""System facts and checks: real probes on this GPU-less machine, recorded machines for the rest."""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.machine.hardware import SystemFacts, probe_gpus, probe_system
from app.machine.system_check import (
    PROBLEM,
    WARNING,
    report_text,
    run_checks,
    torch_install_command,
)
from tests.conftest import APPLE_GPU, REPO
from tests.conftest import recorded_machine as machine


def titles(facts: SystemFacts, **kwargs: Any) -> dict[str, Any]:
    return {c.title: c for c in run_checks(facts, **kwargs)}


def test_real_probes_have_the_promised_shape(tmp_path: Path) -> None:
    facts = probe_system(tmp_path)
    data = facts.to_json()
    assert data["cpu"]["physical_cores"] >= 1 and data["cpu"]["logical_cores"] >= 1
    assert isinstance(data["cpu"]["features"], list)
    assert data["memory"]["total_bytes"] > data["memory"]["available_bytes"] > 0
    assert data["engines"]["llama_cpp_version"]
    if not APPLE_GPU:  # no GPU here (Apple Silicon's is used through Metal)
        assert data["gpus"] == [] and any("NVIDIA" in n for n in data["notes"])
        assert data["engines"]["llama_gpu_offload"] is False
    assert SystemFacts.from_json(json.loads(json.dumps(data))) == facts
    # The engines are asked in a subprocess: a process that probes never imports them.
    # (Checked in a fresh process: other tests may have loaded an engine in this one.)
    probe_only = (
        "import sys; from pathlib import Path; from app.machine.hardware import probe_system; "
        "probe_system(Path('.')); print(sorted({'llama_cpp', 'torch'} & set(sys.modules)))"
    )
    imported = subprocess.run(
        [sys.executable, "-c", probe_only],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
        check=True,
    )
    assert imported.stdout.strip() == "[]", imported.stderr


def test_nvml_failing_mid_probe_is_a_note_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    """A GPU that disappears while being read (cannot happen for real on this machine)."""
    import pynvml

    def lost(*_args: object) -> None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_GPU_IS_LOST)

    monkeypatch.setattr(pynvml, "nvmlInit", lambda: None)
    monkeypatch.setattr(pynvml, "nvmlShutdown", lambda: None)
    monkeypatch.setattr(pynvml, "nvmlSystemGetDriverVersion", lambda: "550.1")
    monkeypatch.setattr(pynvml, "nvmlSystemGetCudaDriverVersion_v2", lambda: 12040)
    monkeypatch.setattr(pynvml, "nvmlDeviceGetCount", lambda: 1)
    monkeypatch.setattr(pynvml, "nvmlDeviceGetHandleByIndex", lost)
    notes: list[str] = []
    assert probe_gpus(notes) == []
    assert len(notes) == 1 and notes[0].startswith("GPU 0 could not be read (")
    assert "lost" in notes[0].lower()


def test_gpu_without_cuda_torch_gives_the_exact_install_command() -> None:
    checks = titles(machine("rtx3060"))
    problem = checks["PyTorch is a CPU build"]
    assert problem.status == PROBLEM
    assert problem.action.endswith(
        "pip install torch --index-url https://download.pytorch.org/whl/cu121"
    )
    assert checks["Transparent huge pages: always"].status == WARNING
    assert checks["vm.swappiness is 100"].action == "sudo sysctl vm.swappiness=10"


def test_torch_without_kernels_for_the_gpu_and_a_driver_too_old() -> None:
    facts = machine("h200")
    facts.engines.torch.arch_list = ["sm_80", "sm_86"]
    facts.gpus[0].cuda_driver_version = "12.4"
    checks = titles(facts)
    assert "sm_90" in checks["PyTorch has no kernels for NVIDIA H200"].detail
    assert checks["The NVIDIA driver is too old for this PyTorch"].status == PROBLEM
    assert "2 NUMA nodes" in checks


def test_llama_without_offload_while_a_gpu_exists() -> None:
    facts = machine("rtx3060")
    facts.engines.llama_gpu_offload = False
    check = titles(facts)["llama.cpp cannot use the GPU"]
    assert "GGML_CUDA=on" in check.action


def test_laptop_and_mac() -> None:
    laptop = titles(machine("laptop"), smallest_model_peak=20_000_000_000)
    assert "No GPU found" in laptop
    assert laptop["Too little memory for any model in the library"].status == PROBLEM
    assert laptop["Little free disk space"].status == WARNING
    mac = titles(machine("m2"))
    assert "Apple Silicon with Metal" in mac and "No GPU found" not in mac


def test_install_command_follows_the_driver() -> None:
    assert torch_install_command("12.8").endswith("cu128")
    assert torch_install_command("12.5").endswith("cu124")
    assert torch_install_command("11.4").startswith("update the NVIDIA driver")


def test_report_is_plain_text_with_every_check() -> None:
    facts = machine("rtx3060")
    checks = run_checks(facts)
    report = report_text(facts, checks)
    assert "RTX 3060" in report and "12.9 GB VRAM" in report
    assert all(c.title in report for c in checks)
    assert "What to do: Install a CUDA build" in report


@pytest.mark.linux_only("it takes Linux's /proc and /sys away: other systems never read them")
def test_missing_proc_and_sys_files_still_give_an_answer(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """As on a Linux without /proc and /sys (a sandbox): fewer facts, no crash."""
    real_read_text = Path.read_text

    def no_proc(self: Path, *args: Any, **kwargs: Any) -> str:
        if str(self).startswith(("/proc", "/sys")):
            raise FileNotFoundError(str(self))
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", no_proc)
    from wire import cpu_features

    # Read again without /proc (its answer is kept for the process's life).
    monkeypatch.setattr(cpu_features, "cpu_features", cpu_features.cpu_features.__wrapped__)
    facts = probe_system(tmp_path, engines=False)
    arm = platform.machine().lower() in ("arm64", "aarch64")  # NEON is every Arm CPU's
    assert facts.cpu.logical_cores >= 1 and facts.cpu.features == (["neon", "asimd"] if arm else [])
    assert facts.linux is not None and facts.linux.swappiness is None
    checks = run_checks(facts)
    if not arm:  # an x86-64 CPU whose sets cannot be read: said plainly, not a crash
        assert any(c.title == "This CPU has no AVX2" for c in checks)


def test_a_gpu_seen_through_vulkan_gets_no_nvidia_advice() -> None:
    """An AMD or Intel GPU comes from a usable Vulkan runtime: it is listed as a GPU, and
    nothing tells its owner to update an NVIDIA driver or install CUDA PyTorch."""
    from app.machine.hardware import EngineFacts, SystemFacts, TorchFacts, runtime_gpus
    from app.machine.system_check import run_checks

    engines = EngineFacts(
        llama_cpp_version="0.3.36",
        llama_gpu_offload=True,
        torch=TorchFacts(installed=True, version="2.13.0+cpu"),
        runtimes=[
            {
                "name": "vulkan",
                "kind": "vulkan",
                "usable": True,
                "reason": "GPU: AMD Radeon RX 7800 XT",
                "selected": True,
                "devices": [
                    {
                        "name": "Vulkan0",
                        "description": "AMD Radeon RX 7800 XT",
                        "type": "gpu",
                        "memory_total": 16 * 2**30,
                        "memory_free": 15 * 2**30,
                    }
                ],
            }
        ],
    )
    facts = SystemFacts(engines=engines, gpus=runtime_gpus(engines))
    text = " ".join(f"{c.title} {c.detail} {c.action}" for c in run_checks(facts))
    assert "GPU 0: AMD Radeon RX 7800 XT" in text
    assert "llama.cpp's vulkan runtime" in text
    assert "NVIDIA" not in text and "CUDA" not in text


@pytest.mark.parametrize("cuda", [None, "12.8"])
def test_the_engine_probe_imports_torch_only_where_a_gpu_build_could_use_a_gpu(
    tmp_path: Path, cuda: str | None
) -> None:
    """A torch built without CUDA or ROCm is named from its version file (importing it
    costs seconds of CPU at every start and tells nothing more); a CUDA build is asked."""
    torch = tmp_path / "site" / "torch"
    torch.mkdir(parents=True)
    imported = tmp_path / "imported"
    (torch / "__init__.py").write_text(
        f"open({str(imported)!r}, 'w').close()\nraise ImportError('libcudart.so.12: cannot open')\n"
    )
    (torch / "version.py").write_text(
        "from typing import Optional\n"
        f"__version__ = '2.13.0+{'cu128' if cuda else 'cpu'}'\n"
        f"cuda: Optional[str] = {cuda!r}\nhip: Optional[str] = None\n"
    )
    probe = subprocess.run(
        [sys.executable, "-m", "backends.capabilities"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "site")},
        timeout=120,
        check=True,
    )
    facts = json.loads(probe.stdout)["torch"]
    if cuda is None:
        assert facts["installed"] and facts["version"] == "2.13.0+cpu"
        assert not facts["cuda_available"] and not imported.exists()
    else:  # asked, and its failure is said
        assert imported.exists() and "libcudart.so.12" in facts["error"]
