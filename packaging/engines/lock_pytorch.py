"""Write ``resources/engines/pytorch-lock.json``: every wheel of the PyTorch engine, per
platform and variant, with its exact version, address, size and SHA-256.

    python packaging/engines/lock_pytorch.py [--find-links DIR]

The app installs the engine from this file alone (``app/packs/pytorch_engine.py``): no
resolver runs on the person's machine, every file is verified against the hash written
here, and what people get is what the tests ran (``tests/test_pytorch_engine.py`` checks
that the lock's torch, transformers and accelerate are the development environment's).
The sets are resolved with uv (``pip install uv``) for CPython 3.11, the interpreter of
Hearth's frozen app, whose own Python runs the engine (docs/RUNTIMES.md says why).

Variants: ``cpu`` (Linux: the PyTorch index's CPU build; Windows: PyPI's torch, which is
the CPU build there), ``cuda`` (Linux: PyPI's torch, built for CUDA 13.0, which needs an
NVIDIA driver of 580 or newer) and ``mps`` (macOS on Apple silicon, 14 or newer).  The
PyTorch index is not reachable from the machines that build Hearth, so the Linux CPU
torch wheel is taken from ``--find-links`` (its hash computed from the file) and written
with its address on the index.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "resources" / "engines" / "pytorch-lock.json"
TORCH, TRANSFORMERS, ACCELERATE = "2.13.0", "5.25.0", "1.16.0"
PYTORCH_INDEX = "https://download.pytorch.org/whl"
# (platform key, uv's --python-platform, variant, requirements, what it needs to run)
SETS = (
    ("linux-x86_64", "x86_64-manylinux_2_28", "cpu", [f"torch=={TORCH}+cpu"], {}),
    (
        "linux-x86_64",
        "x86_64-manylinux_2_28",
        "cuda",
        [f"torch=={TORCH}", "bitsandbytes"],
        {"cuda": "13.0", "driver": "580"},
    ),
    ("windows-amd64", "x86_64-pc-windows-msvc", "cpu", [f"torch=={TORCH}"], {}),
    ("macos-arm64", "aarch64-apple-darwin", "mps", [f"torch=={TORCH}"], {"macos": "14.0"}),
)


def resolve(platform: str, requirements: list[str], find_links: str | None) -> list[dict]:
    wanted = [*requirements, f"transformers=={TRANSFORMERS}", f"accelerate=={ACCELERATE}"]
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "requirements.txt"
        source.write_text("\n".join(wanted) + "\n", encoding="utf-8")
        locked = Path(scratch) / "pylock.toml"
        command = ["uv", "pip", "compile", str(source), "-o", str(locked), "--no-header"]
        command += ["--python-version", "3.11", "--python-platform", platform]
        command += ["--find-links", find_links] if find_links else []
        env = {**os.environ, "MACOSX_DEPLOYMENT_TARGET": "14.0"}
        subprocess.run(command, check=True, env=env, capture_output=True)
        packages = tomllib.loads(locked.read_text(encoding="utf-8"))["packages"]
    wheels = []
    for package in packages:
        wheel = best_wheel(package["wheels"], platform)
        url = wheel["url"]
        size = wheel.get("size")
        if url.startswith("file://"):  # the local CPU torch: written with its address
            local = Path(url.removeprefix("file://"))
            size = local.stat().st_size
            url = f"{PYTORCH_INDEX}/cpu/{quote(local.name)}"
        wheels.append(
            {
                "name": package["name"],
                "version": package["version"],
                "file": url.rsplit("/", 1)[1].replace("%2B", "+"),
                "url": url,
                "size": size,
                "sha256": wheel["hashes"]["sha256"],
            }
        )
    return wheels


def platform_tags(platform: str) -> list[str]:
    """The wheel platforms that run on uv's ``platform``, best first."""
    if platform.endswith("manylinux_2_28"):
        glibc = [f"manylinux_2_{minor}_x86_64" for minor in range(28, 4, -1)]
        return [*glibc, "manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64"]
    if platform.endswith("windows-msvc"):
        return ["win_amd64"]
    macs = [
        f"macosx_{major}_0_{arch}"
        for major in range(14, 10, -1)
        for arch in ("arm64", "universal2")
    ]
    return macs + [f"macosx_10_{minor}_universal2" for minor in range(16, 8, -1)]


def best_wheel(wheels: list[dict], platform: str) -> dict:
    """Of a package's wheels that uv listed, the one the target's installer would take."""
    from packaging.tags import Tag, compatible_tags, cpython_tags
    from packaging.utils import parse_wheel_filename

    platforms = platform_tags(platform)
    ranked: list[Tag] = [
        *cpython_tags((3, 11), ["cp311", "abi3", "none"], platforms),
        *compatible_tags((3, 11), "cp311", platforms),
    ]
    order = {tag: n for n, tag in enumerate(ranked)}

    def rank(wheel: dict) -> int:
        name = wheel["url"].rsplit("/", 1)[1].replace("%2B", "+")
        tags = parse_wheel_filename(name)[3]
        return min((order[t] for t in tags if t in order), default=len(order))

    return min(wheels, key=rank)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--find-links", help="a folder holding the Linux CPU torch wheel")
    args = parser.parse_args()
    platforms: dict[str, dict[str, dict]] = {}
    for key, uv_platform, variant, requirements, needs in SETS:
        local = args.find_links if variant == "cpu" and key == "linux-x86_64" else None
        wheels = resolve(uv_platform, requirements, local)
        platforms.setdefault(key, {})[variant] = {"needs": needs, "wheels": wheels}
        total = sum(w["size"] or 0 for w in wheels) / 1e9
        print(f"{key} {variant}: {len(wheels)} wheels, {total:.2f} GB", file=sys.stderr)
    lock = {
        "lock_version": 1,
        "engine": "pytorch",
        "python": "cp311",
        "torch": TORCH,
        "transformers": TRANSFORMERS,
        "accelerate": ACCELERATE,
        "platforms": platforms,
    }
    LOCK.write_text(json.dumps(lock, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
