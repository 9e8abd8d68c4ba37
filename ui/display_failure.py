"""When Qt cannot open a display: the reason and the fix on the terminal, not a silent 134.

Qt ends the process (SIGABRT, exit 134) when no platform plugin can start, after a few
warnings that Hearth's message handler would send to the log only.  Those warnings are
kept here; when the fatal message comes, Hearth prints what happened and what to do on
standard error and exits with ``EXIT_NO_DISPLAY``.  On Linux the xcb plugin is asked which
system libraries it lacks (``ldd``), and they are named with the package that brings each
one on Debian and Ubuntu: Qt's own message names ``xcb-cursor0`` even when another
library is what is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from wire import platforms

EXIT_NO_DISPLAY = 3
# Qt's warnings about platform plugins, kept for the fatal message (a few lines at most).
_CLUES: list[str] = []
_CLUE_WORDS = ("platform plugin", "qt.qpa", "display", "xcb", "wayland")
# Libraries whose Debian package name does not follow from the file name.
_PACKAGES = {
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libOpenGL.so.0": "libopengl0",
    "libdbus-1.so.3": "libdbus-1-3",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
}


def note(message: str) -> None:
    """Keep one of Qt's messages if it may explain a failure to open a display."""
    lowered = message.lower()
    if any(word in lowered for word in _CLUE_WORDS) and len(_CLUES) < 12:
        _CLUES.append(message.strip())


def is_display_failure(message: str) -> bool:
    lowered = message.lower()
    return "platform plugin" in lowered or "could not connect to display" in lowered


def package_of(library: str) -> str:
    """The Debian/Ubuntu package that ships ``library`` (``libxcb-icccm.so.4`` →
    ``libxcb-icccm4``; a name ending in a digit takes a hyphen: ``libxkbcommon-x11-0``)."""
    if library in _PACKAGES:
        return _PACKAGES[library]
    match = re.fullmatch(r"(lib[\w.+-]+?)\.so\.(\d+)(?:\.\d+)*", library)
    if match is None:
        return library
    stem, version = match.group(1).lower(), match.group(2)
    return f"{stem}-{version}" if stem[-1].isdigit() else f"{stem}{version}"


def missing_from_ldd(output: str) -> list[str]:
    """The libraries ``ldd`` says are "not found"."""
    found = re.findall(r"^\s*(\S+)\s+=>\s+not found", output, flags=re.MULTILINE)
    return list(dict.fromkeys(found))


def missing_libraries() -> list[str]:
    """The system libraries the xcb platform plugin cannot find (Linux; empty elsewhere or
    when ``ldd`` is not there)."""
    if not platforms.has_linux_kernel() or shutil.which("ldd") is None:
        return []
    from PySide6.QtCore import QLibraryInfo

    plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath))
    plugin = plugins / "platforms" / "libqxcb.so"
    if not plugin.is_file():
        return []
    try:
        done = subprocess.run(
            ["ldd", str(plugin)], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return missing_from_ldd(done.stdout)


def explanation(fatal: str) -> str:
    """What to print: what happened, why, and what to do."""
    lines = ["hearth: Hearth cannot open its window: Qt could not start a display."]
    missing = missing_libraries()
    wayland = os.environ.get("WAYLAND_DISPLAY")
    if missing:
        packages = " ".join(dict.fromkeys(package_of(name) for name in missing))
        lines += [
            "These system libraries are missing: " + ", ".join(missing) + ".",
            f"On Debian or Ubuntu: sudo apt-get install {packages}",
            "(The .deb package of Hearth installs them.)",
        ]
    if not os.environ.get("DISPLAY") and not wayland:  # with missing libraries, both to do
        lines += [
            "No display is set (neither DISPLAY nor WAYLAND_DISPLAY): start Hearth from a "
            "desktop session.",
            "Without a screen, use the command line: hearth chat, hearth serve.",
        ]
    elif not missing:
        lines.append(
            "Check that the display is reachable, or choose Qt's platform with "
            "QT_QPA_PLATFORM (xcb, wayland)."
        )
    said = dict.fromkeys(" ".join(m.split()) for m in [*_CLUES, fatal] if m.strip())
    lines.append("Qt said: " + " / ".join(said))
    return "\n".join(lines)


def give_up(fatal: str) -> None:
    """Print the explanation and end the process (Qt would abort right after)."""
    try:
        sys.stderr.write(explanation(fatal) + "\n")
        sys.stderr.flush()
    finally:
        os._exit(EXIT_NO_DISPLAY)
