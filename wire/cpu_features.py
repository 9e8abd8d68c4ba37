"""Which SIMD instruction sets this CPU has: the one source for choosing among llama.cpp's
CPU builds (in the worker) and for the System check (in the app), on every platform.

A build compiled for AVX-512 stops with "illegal instruction" on a CPU without it, so a
runtime that needs instructions (``runtime.json``'s ``cpu_features``) is only probed and
chosen when the CPU is known to have every one.  Names are Linux's ``/proc/cpuinfo`` flags
without underscores (``avx512f``, ``avx512vnni``); ``None`` means this platform cannot tell,
and a runtime that needs anything is then skipped.
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache

from wire import platforms

# Windows answers for a few sets only (IsProcessorFeaturePresent's PF_* numbers).
_WINDOWS_FEATURES = {"avx": 39, "avx2": 40, "avx512f": 41}


def normalise(name: str) -> str:
    return name.strip().lower().replace("_", "").replace(".", "")


def _linux() -> frozenset[str] | None:
    text = platforms.cpuinfo_text()
    if text is None:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):  # x86, Arm
            return frozenset(normalise(flag) for flag in value.split())
    return None


def _macos() -> frozenset[str] | None:
    keys = ("machdep.cpu.features", "machdep.cpu.leaf7_features")
    try:
        output = subprocess.run(
            ["sysctl", "-n", *keys], capture_output=True, text=True, timeout=5, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    # macOS calls AVX "AVX1.0" (not AVX10, a later set).
    flags = frozenset(normalise("avx" if flag == "AVX1.0" else flag) for flag in output.split())
    return flags or None  # Apple silicon has none of these x86 sets


def _windows() -> frozenset[str] | None:
    import ctypes

    present = ctypes.windll.kernel32.IsProcessorFeaturePresent  # type: ignore[attr-defined]
    return frozenset(name for name, number in _WINDOWS_FEATURES.items() if present(number))


@cache
def cpu_features() -> frozenset[str] | None:
    system: str = sys.platform  # a plain str: every branch is checked on every platform
    if system.startswith("linux"):
        return _linux()
    if system == "darwin":
        return _macos()
    if system == "win32":
        return _windows()
    return None


def sets_told() -> frozenset[str] | None:
    """The instruction sets ``cpu_features`` can tell of here; None: every one it knows.

    * Linux and macOS: every set (``/proc/cpuinfo``'s flags, ``sysctl``'s features).
    * Windows: the few ``IsProcessorFeaturePresent`` names (AVX, AVX2, AVX-512F).
    """
    system: str = sys.platform
    return frozenset(_WINDOWS_FEATURES) if system == "win32" else None


def missing(required: tuple[str, ...] | list[str]) -> str:
    """Why a build that needs ``required`` cannot run on this CPU ("" when it can)."""
    if not required:
        return ""
    have = cpu_features()
    if have is None:
        return "cannot tell whether this CPU has " + ", ".join(required).upper()
    names = [normalise(name) for name in required]
    told = sets_told()
    unknown = [n for n in names if told is not None and n not in told]
    lacking = [n for n in names if n not in have and n not in unknown]
    if lacking:
        return "this CPU lacks " + ", ".join(lacking).upper() + ", which this build needs"
    if unknown:  # Windows names only a few sets
        return "cannot tell whether this CPU has " + ", ".join(unknown).upper()
    return ""
