"""Which platforms a test runs on, said with a mark and a reason in words.

A test that needs something one platform lacks carries one of these marks::

    @pytest.mark.posix_only("Windows has no FIFOs")
    @pytest.mark.linux_only("Qt's xcb plugin")
    @pytest.mark.x86_only("x86-64 names its CPU's flags")
    @pytest.mark.no_gpu_assumed("describes a machine without a GPU")

On the machine running the tests, a mark whose platform this is not skips the test with its
reason.  ``pytest --collect-only -q --as-platform windows`` (or ``macos``, ``linux``) lists
what CI's runner of that platform would run instead: the others are deselected, so the
counts can be read on any machine.  ``tests/tools/platform_names.py`` (in ``make lint``)
lets a marked test use names that exist on its platforms only (``os.mkfifo``,
``resource``…).
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Target:
    """A platform as CI's runners have it: the OS and the processor."""

    system: str  # sys.platform's answer
    machine: str  # platform.machine()'s, lower case

    @property
    def posix(self) -> bool:
        return self.system != "win32"

    @property
    def x86(self) -> bool:
        return self.machine in ("x86_64", "amd64")

    @property
    def apple_gpu(self) -> bool:
        """Apple silicon, whose GPU llama.cpp uses through Metal (CI's runners too)."""
        return self.system == "darwin" and self.machine == "arm64"


# CI's runners: ubuntu-latest and windows-latest are x86-64, macos-latest is Apple silicon.
TARGETS = {
    "linux": Target("linux", "x86_64"),
    "windows": Target("win32", "amd64"),
    "macos": Target("darwin", "arm64"),
}

# Each mark, with whether it runs on a target.
MARKS: dict[str, Callable[[Target], bool]] = {
    "posix_only": lambda target: target.posix,
    "linux_only": lambda target: target.system.startswith("linux"),
    "x86_only": lambda target: target.x86,
    "no_gpu_assumed": lambda target: not target.apple_gpu,
}

DESCRIPTIONS = {
    "posix_only": "needs Linux or macOS (a POSIX call Windows lacks); give the reason",
    "linux_only": "needs Linux; give the reason",
    "x86_only": "needs an x86-64 processor; give the reason",
    "no_gpu_assumed": "describes a machine without a GPU (Apple silicon has Metal); give why",
}


def this_machine() -> Target:
    return Target(sys.platform, platform.machine().lower())


def add_option(parser: pytest.Parser) -> None:
    parser.addoption(
        "--as-platform",
        choices=sorted(TARGETS),
        default=None,
        help="deselect the tests that CI's runner of this platform would not run",
    )


def register(config: pytest.Config) -> None:
    for name, description in DESCRIPTIONS.items():
        config.addinivalue_line("markers", f"{name}(reason): {description}")


def _reason(item: pytest.Item, name: str) -> str:
    mark = item.get_closest_marker(name)
    assert mark is not None
    reason = mark.args[0] if mark.args else mark.kwargs.get("reason", "")
    if not reason:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{name} needs a reason in words")
    return str(reason)


def apply(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip (here) or deselect (``--as-platform``) what a platform cannot run."""
    chosen = config.getoption("--as-platform")
    target = TARGETS[chosen] if chosen else this_machine()
    kept, dropped = [], []
    for item in items:
        lacking = [
            name
            for name, runs_on in MARKS.items()
            if item.get_closest_marker(name) is not None and not runs_on(target)
        ]
        for name in MARKS:
            if item.get_closest_marker(name) is not None:
                _reason(item, name)  # every mark gives its reason, wherever it runs
        if not lacking:
            kept.append(item)
        elif chosen:
            dropped.append(item)
        else:
            item.add_marker(pytest.mark.skip(reason=_reason(item, lacking[0])))
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
