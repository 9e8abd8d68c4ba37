"""What differs between Linux, Windows and macOS, one function per need, so that the rest of
Hearth asks a question ("does this error mean a link loops?") instead of testing a platform.

Each function says what it does on each platform.  Only the standard library is used: both
the app and the worker import this.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO

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


def open_own_file(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading only if it is a regular file itself: never through a
    link, and never a FIFO or a device, which would block the reader for good (a FIFO
    planted where Hearth keeps its files).  OSError otherwise.

    * Linux and macOS: ``O_NOFOLLOW`` and ``O_NONBLOCK`` (so that opening a FIFO cannot
      wait for a writer), then ``fstat`` of what was opened.
    * Windows: the name is looked at first (a link, or a reparse point, is refused); there
      are no FIFOs among files, and the opened file is checked as on the others.
    """
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0)
    if sys.platform == "win32":
        if Path(path).is_symlink():
            raise OSError(errno.ELOOP, "a link, not a file", str(path))
    else:
        flags |= os.O_NOFOLLOW | os.O_NONBLOCK
    descriptor = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


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


# -- what the machine is ----------------------------------------------------------------
def cpuinfo_text() -> str | None:
    """The kernel's description of the CPUs, one block per logical CPU, or None.

    * Linux: ``/proc/cpuinfo`` (flags on x86, ``Features`` on Arm, the model's name).
    * Windows and macOS: None; they answer through ``IsProcessorFeaturePresent`` and
      ``sysctl`` (see ``wire.cpu_features``) and ``cpu_model_name``.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def cpu_model_name() -> str | None:
    """The CPU's marketing name ("AMD Ryzen 7 7840U…"), or None where it cannot be read.

    * Linux: the first ``model name`` line of ``/proc/cpuinfo``.
    * macOS: ``sysctl -n machdep.cpu.brand_string`` (Apple silicon answers "Apple M2…").
    * Windows: the registry's ``ProcessorNameString`` (``platform.processor()`` there only
      says "Intel64 Family 6 Model 154…").
    """
    system: str = sys.platform  # a plain str: every branch is checked on every platform
    if system == "darwin":
        return _sysctl("machdep.cpu.brand_string")
    if system == "win32":
        return _windows_processor_name()
    for line in (cpuinfo_text() or "").splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name":
            return value.strip() or None
    return None


def _sysctl(name: str) -> str | None:
    try:
        answer = subprocess.run(
            ["sysctl", "-n", name], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return answer.stdout.strip() or None


def _windows_processor_name() -> str | None:
    try:
        winreg: Any = importlib.import_module("winreg")  # Windows' own module
        with winreg.OpenKey(
            winreg.HKEY_LOCAL_MACHINE, r"HARDWARE\DESCRIPTION\System\CentralProcessor\0"
        ) as key:
            value = winreg.QueryValueEx(key, "ProcessorNameString")[0]
    except (ImportError, OSError):
        return None
    return str(value).strip() or None


def _kernel_file(path: str) -> str | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return None


def transparent_hugepages() -> str | None:
    """Linux's transparent huge page mode (``always``, ``madvise``, ``never``), or None.
    Windows and macOS have no such switch: None."""
    raw = _kernel_file("/sys/kernel/mm/transparent_hugepage/enabled")
    if raw is None:
        return None
    chosen = [word for word in raw.split() if word.startswith("[")]
    return chosen[0].strip("[]") if chosen else raw.strip()


def swappiness() -> int | None:
    """Linux's ``vm.swappiness`` (how eagerly memory is paged out), or None.
    Windows and macOS have no such setting: None."""
    raw = _kernel_file("/proc/sys/vm/swappiness")
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def numa_nodes() -> int | None:
    """How many NUMA nodes Linux reports (a model split across two is slower), or None.
    Windows and macOS: None (not shown; their desktops have one node)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return len(list(Path("/sys/devices/system/node").glob("node[0-9]*"))) or None
    except OSError:
        return None


def reads_every_file() -> bool:
    """This process reads files whatever their permissions say.

    * Linux and macOS: it runs as root (effective user 0), as CI's containers do.
    * Windows: False: an administrator is still held to a file's access list unless it
      asks for the backup privilege, which Hearth never does.
    """
    geteuid = getattr(os, "geteuid", None)
    return geteuid is not None and geteuid() == 0


# -- what this computer is ----------------------------------------------------------------
def has_linux_kernel() -> bool:
    """The Linux kernel's settings and tools are here (``/proc``, ``/sys``, ``ldd``, Qt's
    xcb plugin).

    * Linux: True.
    * Windows and macOS: False.
    """
    return sys.platform.startswith("linux")


def unified_memory() -> bool:
    """The GPU computes in the computer's own RAM, so a model "on the GPU" takes RAM.

    * macOS on Apple silicon (arm64): True (Metal).
    * macOS on Intel, Linux and Windows: False (a GPU Hearth uses has memory of its own).
    """
    import platform

    return sys.platform == "darwin" and platform.machine() == "arm64"


def files_have_modes() -> bool:
    """A file's permission bits say who may read it (so Hearth keeps its own to its owner).

    * Linux and macOS: True.
    * Windows: False: access lists decide, which Hearth neither reads nor sets (a file in
      the person's profile is theirs already).
    """
    return os.name != "nt"


def reuse_address_is_safe() -> bool:
    """``SO_REUSEADDR`` on a listening socket only lets it bind through the last server's
    ``TIME_WAIT`` (uvicorn sets it, so a port check must too).

    * Linux and macOS: True.
    * Windows: False: there it lets a second server bind a port in use.
    """
    return os.name != "nt"


def app_data_dir(home: Path) -> Path:
    """Where desktop apps keep their data for the person whose home folder is ``home``
    (another app's models are looked for there).

    * Linux: ``~/.local/share``.
    * macOS: ``~/Library/Application Support``.
    * Windows: ``%LOCALAPPDATA%`` (else ``~/AppData/Local``).
    """
    if sys.platform == "darwin":
        return home / "Library" / "Application Support"
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return Path(local) if local else home / "AppData" / "Local"
    return home / ".local" / "share"


def shared_library(directory: Path, base: str) -> Path:
    """The file of the native library ``base`` in ``directory``.

    * Linux: ``lib<base>.so``.
    * macOS: ``lib<base>.dylib``.
    * Windows: ``<base>.dll``.
    """
    if sys.platform == "win32":
        return directory / f"{base}.dll"
    if sys.platform == "darwin":
        return directory / f"lib{base}.dylib"
    return directory / f"lib{base}.so"


# -- limits on this process ------------------------------------------------------------
def limit_address_space(limit: int) -> bool:
    """Cap this process's address space at ``limit`` bytes; False where it cannot be.

    * Linux: ``RLIMIT_AS``: an allocation past it fails (Python: MemoryError).
    * macOS: accepted but not enforced by the kernel (so False); the parent's watch is
      the limit.
    * Windows: no such limit (a job object would be one; the parent's watch is the
      limit there): False.
    """
    try:
        import resource
    except ImportError:
        return False
    try:
        resource.setrlimit(resource.RLIMIT_AS, (int(limit), int(limit)))
    except (ValueError, OSError):
        return False
    return sys.platform != "darwin"  # set there, but the kernel does not hold to it


def end_with_parent() -> None:
    """End this process when the thread that started it ends.

    * Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, so a child stuck in a native loop (a
      hostile file's parser) cannot outlive Hearth.
    * Windows and macOS: nothing; their children see their pipe close, and the parent
      kills them on its time limits.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


# -- engines added after install ----------------------------------------------------------
def wheel_platform() -> str:
    """This machine in the engines' lock file (``resources/engines/pytorch-lock.json``):

    * Linux: ``linux-x86_64`` (or ``linux-aarch64``…, its machine's name);
    * Windows: ``windows-amd64`` on x86-64 (``windows-arm64`` on Arm);
    * macOS: ``macos-arm64`` on Apple silicon, ``macos-x86_64`` on Intel.
    """
    import platform

    machine = platform.machine().lower()
    if sys.platform == "win32":
        return "windows-arm64" if machine in ("arm64", "aarch64") else "windows-amd64"
    if sys.platform == "darwin":
        return "macos-arm64" if machine in ("arm64", "aarch64") else "macos-x86_64"
    return f"linux-{'x86_64' if machine in ('x86_64', 'amd64') else machine}"


def macos_version() -> str:
    """This Mac's macOS version ("14.5"), or "" on another system: the PyTorch engine's
    Metal build needs a recent one."""
    import platform

    return platform.mac_ver()[0] if sys.platform == "darwin" else ""


# -- the terminal ------------------------------------------------------------------------
@contextlib.contextmanager
def terminal() -> Iterator[tuple[TextIO, TextIO]]:
    """The terminal the person started this from, to read from and write to, whatever
    standard input and output are (a prompt may be piped in, a reply piped out).

    * Linux and macOS: ``/dev/tty``, the controlling terminal.  OSError without one (a
      service, a process in a session of its own).
    * Windows: ``CONIN$`` and ``CONOUT$``, the console.  OSError without a console of a
      person's: none at all, or one Windows made for this process alone (a detached
      start through a virtual environment's launcher gets a fresh console that nobody
      types in; a person's terminal is shared with its shell).
    """
    with contextlib.ExitStack() as stack:
        if sys.platform == "win32":
            if _console_processes() < 2:
                raise OSError("no terminal: this process's console is its own")
            reader = stack.enter_context(open("CONIN$", encoding="utf-8"))
            writer = stack.enter_context(open("CONOUT$", "w", encoding="utf-8"))
            yield reader, writer
        else:
            # Apart: a terminal is not seekable, and Python refuses to open one "r+".
            reader = stack.enter_context(open("/dev/tty", encoding="utf-8"))
            writer = stack.enter_context(open("/dev/tty", "w", encoding="utf-8"))
            yield reader, writer


def _console_processes() -> int:
    """How many processes share this one's console (Windows; 0 without a console)."""
    import ctypes

    windll: Any = getattr(ctypes, "windll")  # noqa: B009 - absent off Windows
    listed = (ctypes.c_uint32 * 8)()
    return int(windll.kernel32.GetConsoleProcessList(listed, 8))


# Windows' DETACHED_PROCESS: the child gets no console at all.
_DETACHED_PROCESS = 0x00000008


def without_terminal() -> dict[str, Any]:
    """``subprocess.Popen``'s keywords for a child that has no terminal to ask on.

    * Linux and macOS: a session of its own, which has no controlling terminal.
    * Windows: ``DETACHED_PROCESS``: no console, so ``CONIN$`` cannot be opened.
    """
    if sys.platform == "win32":
        return {"creationflags": _DETACHED_PROCESS}
    return {"start_new_session": True}
