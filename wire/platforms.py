"""What differs between Linux, Windows and macOS, one function per need, so that the rest of
Hearth asks a question ("does this error mean a link loops?") instead of testing a platform.

Each function says what it does on each platform.  Only the standard library is used: both
the app and the worker import this.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
from typing import Any

# Windows' "the name of the file cannot be resolved by the system", raised for a symbolic
# link that points at itself (it has no errno of its own).
_WINDOWS_CANT_RESOLVE = 1921


def is_link_loop(error: OSError) -> bool:
    """``error`` came from a symbolic link that loops (points at itself, or round a circle).

    * Linux: ``ELOOP`` (40); macOS and the BSDs: ``ELOOP`` (62), so the name, never the
      number.
    * Windows: ``ERROR_CANT_RESOLVE_FILENAME`` (winerror 1921), which Python gives no errno.
    """
    return error.errno == errno.ELOOP or getattr(error, "winerror", None) == _WINDOWS_CANT_RESOLVE


def peak_rss_bytes() -> int:
    """The most memory this process has held resident so far, in bytes.

    * Linux: ``getrusage``'s ``ru_maxrss``, which counts KiB.
    * macOS: ``ru_maxrss`` too, which counts bytes there.
    * Windows (no ``resource`` module): ``PeakWorkingSetSize`` from
      ``GetProcessMemoryInfo``.
    """
    if sys.platform == "win32":
        return _windows_peak_working_set()
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def _windows_peak_working_set() -> int:
    import ctypes
    from ctypes import wintypes

    class Counters(ctypes.Structure):
        _fields_ = [
            ("cb", wintypes.DWORD),
            ("PageFaultCount", wintypes.DWORD),
            ("PeakWorkingSetSize", ctypes.c_size_t),
            ("WorkingSetSize", ctypes.c_size_t),
            ("QuotaPeakPagedPoolUsage", ctypes.c_size_t),
            ("QuotaPagedPoolUsage", ctypes.c_size_t),
            ("QuotaPeakNonPagedPoolUsage", ctypes.c_size_t),
            ("QuotaNonPagedPoolUsage", ctypes.c_size_t),
            ("PagefileUsage", ctypes.c_size_t),
            ("PeakPagefileUsage", ctypes.c_size_t),
        ]

    counters = Counters()
    counters.cb = ctypes.sizeof(Counters)
    windll: Any = getattr(ctypes, "windll")  # noqa: B009 - absent off Windows
    process = windll.kernel32.GetCurrentProcess()
    if not windll.psapi.GetProcessMemoryInfo(process, ctypes.byref(counters), counters.cb):
        return 0
    return int(counters.PeakWorkingSetSize)


def unicode_stdio() -> None:
    """Standard output and error never end a command over a character their encoding
    lacks (a Chinese reply, a model's file name).

    * Linux and macOS: UTF-8 under any usual locale, so nothing changes.
    * Windows: a pipe or a file is written in the ANSI code page (cp1252…): it becomes
      UTF-8, which JSON readers and other tools expect.  The console is Unicode already.
    * Wherever an encoding was chosen (``PYTHONIOENCODING``, a C locale): it is kept, and a
      character it lacks is written as "?".
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        encoding = str(getattr(stream, "encoding", "") or "").lower().replace("-", "")
        if reconfigure is None or encoding.startswith("utf"):
            continue
        chosen = bool(os.environ.get("PYTHONIOENCODING"))
        if sys.platform == "win32" and not chosen and not stream.isatty():
            reconfigure(encoding="utf-8")
        else:
            reconfigure(errors="replace")


# What Windows reports for a process ended by an instruction its CPU lacks.
WINDOWS_ILLEGAL_INSTRUCTION = 0xC000001D


def illegal_instruction() -> None:
    """End this process as a build for another processor would (for the tests' faults).

    * Linux and macOS: ``SIGILL``, which a parent sees as signal 4.
    * Windows: the C runtime answers ``SIGILL`` by exiting with code 3, so the process ends
      with ``STATUS_ILLEGAL_INSTRUCTION`` as its exit code instead, as the real fault does.
    """
    if sys.platform == "win32":
        # _exit takes a C int; Windows reads the same 32 bits back as the unsigned code.
        os._exit(WINDOWS_ILLEGAL_INSTRUCTION - (1 << 32))
    signal.raise_signal(signal.SIGILL)
