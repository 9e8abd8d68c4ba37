"""Platform differences live in one room (``wire/platforms.py``): ``make lint`` fails on a
POSIX-only name anywhere else, each test says which platforms it runs on, and the room's
Windows and macOS answers are checked here wherever they are plain logic."""

from __future__ import annotations

import os
import platform
import stat
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.conftest import REPO
from tests.tools import platform_names
from wire import platforms


def _plant(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_a_posix_only_call_outside_the_room_fails_make_lint(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        "app/stopper.py",
        '"""Ends a group (os.killpg in prose is fine)."""\n'
        "import os\nimport signal\n\n\ndef stop(pid: int) -> None:\n"
        "    os.killpg(pid, signal.SIGKILL)\n",
    )
    _plant(tmp_path, "ui/tty.py", "import termios\nPATH = '/proc/self/status'\n")
    _plant(tmp_path, "wire/platforms.py", "import resource\n")  # the room itself may
    checked = subprocess.run(
        [sys.executable, "-m", "tests.tools.platform_names", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert checked.returncode == 1
    found = checked.stderr.splitlines()
    assert any("app/stopper.py:7: os.killpg" in line for line in found), found
    assert any("app/stopper.py:7: signal.SIGKILL" in line for line in found), found
    assert any("ui/tty.py:1: import termios" in line for line in found), found
    assert any("ui/tty.py:2: '/proc/self/status'" in line for line in found), found
    assert not any(line.startswith("wire/platforms.py") for line in found)
    assert not any("stopper.py:1:" in line for line in found), "a docstring is prose"
    assert all("ask wire/platforms.py instead" in line for line in found)


def test_a_test_marked_for_its_platforms_may_use_their_names(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        "tests/test_fifo.py",
        "import os\nimport pytest\n\nNEEDS_FIFO = pytest.mark.posix_only('no FIFOs')\n\n\n"
        "@NEEDS_FIFO\ndef test_a() -> None:\n    os.mkfifo('a')\n\n\n"
        "@pytest.mark.linux_only('reads the kernel')\ndef test_b() -> None:\n"
        "    open('/proc/meminfo')\n\n\n"
        "def test_c() -> None:\n    os.mkfifo('c')\n",
    )
    assert platform_names.outside_the_room(tmp_path) == [
        "tests/test_fifo.py:18: os.mkfifo (ask wire/platforms.py instead)"
    ]


def test_the_tree_as_it_is_passes() -> None:
    assert platform_names.outside_the_room() == []


def _collected(*args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    ).stdout


def test_collecting_as_another_platform_leaves_out_what_it_cannot_run() -> None:
    here = _collected("tests/test_runtimes.py", "tests/hostile/test_file_modes.py")
    windows = _collected(
        "--as-platform", "windows", "tests/test_runtimes.py", "tests/hostile/test_file_modes.py"
    )
    assert "test_file_modes.py::" in here and "test_file_modes.py::" not in windows
    assert "deselected" in windows and "deselected" not in here
    assert len(windows.splitlines()) < len(here.splitlines())  # SIGILL's tests are left out
    macos = _collected("--as-platform", "macos", "tests/test_cpu_features.py")
    assert "deselected" in macos, "Apple silicon names no x86 sets"


# -- the room's answers on each platform ------------------------------------------------
def test_a_child_without_a_terminal_is_made_each_platforms_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert platforms.without_terminal() == (
        {"creationflags": 0x8} if sys.platform == "win32" else {"start_new_session": True}
    )
    monkeypatch.setattr(sys, "platform", "win32")
    assert platforms.without_terminal() == {"creationflags": 0x8}  # DETACHED_PROCESS


def test_a_child_in_a_session_of_its_own_has_no_terminal_to_read() -> None:
    probe = (
        "from wire import platforms\ntry:\n    with platforms.terminal():\n"
        "        print('terminal')\nexcept OSError:\n    print('none')\n"
    )
    answer = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
        check=False,
        **platforms.without_terminal(),
    )
    assert answer.stdout.strip() == "none", answer.stderr


def test_windows_and_macos_have_no_linux_kernel_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for system in ("win32", "darwin"):
        monkeypatch.setattr(sys, "platform", system)
        assert not platforms.has_linux_kernel()
        assert platforms.cpuinfo_text() is None
        assert platforms.transparent_hugepages() is None
        assert platforms.swappiness() is None
        assert platforms.numa_nodes() is None


def test_only_apple_silicon_computes_in_the_computers_own_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the GPU uses RAM, a model "on the GPU" is counted against RAM."""
    for machine, system, shared in (
        ("arm64", "darwin", True),
        ("x86_64", "darwin", False),
        ("arm64", "linux", False),
        ("ARM64", "win32", False),
    ):
        monkeypatch.setattr(sys, "platform", system)
        monkeypatch.setattr(platform, "machine", lambda m=machine: m)
        assert platforms.unified_memory() is shared, (system, machine)


def test_each_system_names_its_apps_data_folder_and_its_native_libraries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where another app's models are looked for, and the file of a llama.cpp library."""
    monkeypatch.delenv("LOCALAPPDATA", raising=False)
    for system, data, library in (
        ("linux", ".local/share", "libggml.so"),
        ("darwin", "Library/Application Support", "libggml.dylib"),
        ("win32", "AppData/Local", "ggml.dll"),
    ):
        monkeypatch.setattr(sys, "platform", system)
        assert platforms.app_data_dir(tmp_path) == tmp_path / data
        assert platforms.shared_library(tmp_path, "ggml") == tmp_path / library
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    assert platforms.app_data_dir(tmp_path) == tmp_path / "Local", "Windows' own setting"


def test_windows_keeps_files_by_access_lists_not_modes(monkeypatch: pytest.MonkeyPatch) -> None:
    """There Hearth neither reads nor sets permission bits, and a listening port is not
    checked with SO_REUSEADDR (it would let a second server bind a port in use)."""
    monkeypatch.setattr(os, "name", "nt")
    assert not platforms.files_have_modes()
    assert not platforms.reuse_address_is_safe()


@pytest.mark.posix_only("the stand-in sysctl is a shell script")
def test_macos_names_its_cpu_through_sysctl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sysctl = tmp_path / "sysctl"
    sysctl.write_text('#!/bin/sh\n[ "$2" = machdep.cpu.brand_string ] && echo "Apple M2 Pro"\n')
    sysctl.chmod(sysctl.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert platforms.cpu_model_name() == "Apple M2 Pro"
    sysctl.write_text("#!/bin/sh\nexit 1\n")
    assert platforms.cpu_model_name() is None


def test_windows_reads_its_cpus_name_from_the_registry_or_says_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setitem(sys.modules, "winreg", None)  # not Windows: the module is absent
    assert platforms.cpu_model_name() is None


def test_without_rlimits_the_address_space_is_not_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "resource", None)  # as on Windows
    assert platforms.limit_address_space(1 << 40) is False


def test_only_a_posix_superuser_reads_every_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "geteuid", raising=False)  # as on Windows
    assert platforms.reads_every_file() is False
    monkeypatch.setattr(os, "geteuid", lambda: 0, raising=False)
    assert platforms.reads_every_file() is True
    monkeypatch.setattr(os, "geteuid", lambda: 1000, raising=False)
    assert platforms.reads_every_file() is False


def test_a_process_tree_ends_whole(tmp_path: Path) -> None:
    """A process and the one it started (a library's helper): both end, at once."""
    from app.processes import kill_tree

    pid_file = tmp_path / "child.pid"
    launcher = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
            f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
            "time.sleep(600)\n",
        ]
    )
    try:
        deadline = time.monotonic() + 600
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline and launcher.poll() is None, "no child started"
            time.sleep(0.05)
        child = psutil.Process(int(pid_file.read_text()))
        kill_tree(launcher)
        launcher.wait(timeout=600)
        while _alive(child):
            assert time.monotonic() < deadline, "the launcher's child outlived it"
            time.sleep(0.05)
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()


def _alive(process: psutil.Process) -> bool:
    """Still running (a child left to an init that does not reap it is a zombie: gone)."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
