"""A display that cannot open is said on the terminal with its fix, and Hearth exits non-zero
(Qt alone aborts with 134 and Hearth's log handler kept the reason in the log)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import run_hearth
from ui.display_failure import EXIT_NO_DISPLAY, missing_from_ldd, package_of

linux_only = pytest.mark.linux_only("Qt's xcb plugin")


NO_DISPLAY = ("DISPLAY", "WAYLAND_DISPLAY")


def without_display(data: Path, **extra: str) -> dict[str, str]:
    return {"QT_QPA_PLATFORM": "xcb", "HEARTH_DATA_DIR": str(data), **extra}


@linux_only
def test_no_display_says_where_to_start_hearth_and_exits_non_zero(tmp_path: Path) -> None:
    done = run_hearth(env=without_display(tmp_path / "data"), unset=NO_DISPLAY, timeout=120)
    assert done.returncode == EXIT_NO_DISPLAY
    assert "Hearth cannot open its window" in done.stderr
    assert "DISPLAY" in done.stderr and "hearth chat" in done.stderr
    assert "Qt said:" in done.stderr, "Qt's own words come along, once"
    assert done.stderr.count("no Qt platform plugin could be initialized") == 1


@linux_only
def test_missing_system_libraries_are_named_with_the_package_to_install(
    tmp_path: Path,
) -> None:
    # What ldd says on a machine without two of the libraries (as the walkthrough found).
    tools = tmp_path / "bin"
    tools.mkdir()
    ldd = tools / "ldd"
    ldd.write_text(
        "#!/bin/sh\n"
        "echo '\tlibxcb-icccm.so.4 => not found'\n"
        "echo '\tlibxcb-keysyms.so.1 => not found'\n"
        "echo '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)'\n",
        encoding="utf-8",
    )
    ldd.chmod(0o755)
    env = without_display(tmp_path / "data", DISPLAY=":97")  # no such server
    env["PATH"] = f"{tools}{os.pathsep}{os.environ['PATH']}"
    done = run_hearth(env=env, unset=NO_DISPLAY, timeout=120)
    assert done.returncode == EXIT_NO_DISPLAY
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in done.stderr
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1" in done.stderr


def test_library_files_map_to_their_debian_packages() -> None:
    assert package_of("libxcb-cursor.so.0") == "libxcb-cursor0"
    assert package_of("libxkbcommon-x11.so.0") == "libxkbcommon-x11-0"
    assert package_of("libxcb-render-util.so.0") == "libxcb-render-util0"
    assert package_of("libEGL.so.1") == "libegl1"
    assert missing_from_ldd("\tlibfoo.so.1 => not found\n\tlibbar.so.2 => /x (0x1)\n") == [
        "libfoo.so.1"
    ]


def test_the_deb_depends_on_every_library_the_display_plugin_needs() -> None:
    """The .deb lists the packages of the xcb plugin's system libraries (those ldd finds
    outside Qt's own folder), so a fresh Debian or Ubuntu gets them with Hearth."""
    script = Path(__file__).resolve().parents[1] / "packaging" / "linux" / "build-deb.sh"
    depends = next(
        line
        for line in script.read_text(encoding="utf-8").splitlines()
        if line.startswith("Depends:")
    )
    listed = {name.strip() for name in depends.removeprefix("Depends:").split(",")}
    for library in (
        "libxcb-icccm.so.4",
        "libxcb-keysyms.so.1",
        "libxcb-cursor.so.0",
        "libxkbcommon-x11.so.0",
        "libxcb-randr.so.0",
        "libxcb-xkb.so.1",
        "libEGL.so.1",
        "libfontconfig.so.1",
        "libdbus-1.so.3",
    ):
        assert package_of(library) in listed, library
