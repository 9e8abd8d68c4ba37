"""The Vulkan runtime on Mesa's software Vulkan device (lavapipe): the same greedy answer
as the CPU runtime, and the System check names the Vulkan device.

``make test`` builds the Vulkan runtime (``make runtimes``) where the Vulkan build tools are
installed; ggml skips software devices unless ``GGML_VK_VISIBLE_DEVICES`` names them, so
the tests name device 0.
"""

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, run_hearth

pytestmark = pytest.mark.slow

VULKAN = REPO / ".cache" / "runtimes" / "vulkan"
LAVAPIPE = {"GGML_VK_VISIBLE_DEVICES": "0"}


def vulkan_runtime() -> Path:
    if not (VULKAN / "runtime.json").is_file():
        if os.environ.get("HEARTH_REQUIRE_VULKAN"):
            pytest.fail("the Vulkan runtime was not built (make runtimes)")
        pytest.skip("the Vulkan runtime is not built here (make runtimes)")
    if shutil.which("vulkaninfo") is None and not Path("/usr/share/vulkan/icd.d").is_dir():
        pytest.skip("no Vulkan driver is installed (mesa-vulkan-drivers)")
    return VULKAN


def greedy(*flags: str) -> tuple[str, dict[str, object]]:
    result = run_hearth(
        "chat",
        "--json",
        "--temperature",
        "0",
        # Eight tokens show the same answer: each costs lavapipe over a second of every core.
        "--max-tokens",
        "8",
        *flags,
        # A prompt without near ties: the backends' rounding differs (the CPU quantises
        # activations to 8 bits, Vulkan does not), which may flip a close greedy choice.
        "Name the largest planet in the solar system.",
        env=LAVAPIPE,
    )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    text = "".join(str(e.get("text", "")) for e in events if e["type"] == "delta")
    return text, next(e for e in events if e["type"] == "stats")


def test_the_vulkan_runtime_gives_the_cpu_runtime_s_greedy_answer() -> None:
    vulkan_runtime()
    on_cpu, cpu_stats = greedy("--runtime", "cpu")
    on_vulkan, vulkan_stats = greedy("--runtime", "vulkan")
    assert cpu_stats["runtime"] == "cpu" and vulkan_stats["runtime"] == "vulkan"
    assert on_vulkan == on_cpu
    assert on_cpu.strip()


def test_the_system_check_reports_the_vulkan_device() -> None:
    vulkan_runtime()
    result = run_hearth("sysinfo", "--json", env=LAVAPIPE)
    assert result.returncode == 0, result.stderr
    runtimes = {r["name"]: r for r in json.loads(result.stdout)["runtimes"]}
    vulkan = runtimes["vulkan"]
    assert vulkan["kind"] == "vulkan" and vulkan["usable"], vulkan
    assert any("llvmpipe" in str(d["description"]) for d in vulkan["devices"]), vulkan
