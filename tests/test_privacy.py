"""Nothing leaves the machine: the whole app (window, engine worker, document reader, a
reply from the starter model) makes no connection and looks up no name beyond this computer,
also when its build knows where new versions are published (the update check is off until
the user allows it).

Every Python process that Hearth starts records its own network calls: a
``sitecustomize`` on PYTHONPATH installs an audit hook (PEP 578) for ``socket.connect``
and name lookups, which child processes inherit with the environment.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.conftest import run_hearth

AUDIT = """
import ipaddress, os, sys

_LOG = os.environ["HEARTH_AUDIT_LOG"]


def _local(host):
    if not isinstance(host, str) or host in ("", "localhost"):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return host.endswith(".localhost")


def _hook(event, args):
    if event == "socket.connect":
        address = args[1]
        if isinstance(address, tuple) and not _local(address[0]):
            _record(event, address[0])
    elif event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr"):
        if not _local(args[0] if not isinstance(args[0], bytes) else args[0].decode()):
            _record(event, args[0])


def _record(event, host):
    with open(_LOG, "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()} {sys.argv[:3]} {event} {host}\\n")


sys.addaudithook(_hook)
"""

UNROUTABLE_FEED = "http://192.0.2.1:9/releases/latest"  # TEST-NET-1: never routed


def _audited_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(AUDIT, encoding="utf-8")
    log = tmp_path / "network.log"
    log.write_text("")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hooks), env.get("PYTHONPATH")]))
    env["HEARTH_AUDIT_LOG"] = str(log)
    env["HEARTH_DATA_DIR"] = str(tmp_path / "data")
    env["HEARTH_UPDATE_URL"] = UNROUTABLE_FEED
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env, log


def test_the_whole_app_makes_no_outbound_connection(tmp_path: Path) -> None:
    env, log = _audited_env(tmp_path)
    report = tmp_path / "self-test.txt"
    env["HEARTH_SELF_TEST_REPORT"] = str(report)  # as the Windows installer's check reads it
    result = run_hearth("--self-test", env=env)
    assert result.returncode == 0, result.stderr + result.stdout
    assert "passed" in result.stdout and "passed" in report.read_text()
    assert log.read_text() == ""


def test_the_audit_sees_an_outbound_connection(tmp_path: Path) -> None:
    """The check above can fail: the same audit records the update check's request once
    it is allowed (here called directly, against an address that is never routed)."""
    import subprocess

    env, log = _audited_env(tmp_path)
    code = (
        "from app import updates\n"
        "try:\n"
        f"    updates.check({UNROUTABLE_FEED!r}, timeout=0.2)\n"
        "except updates.UpdateCheckFailed:\n"
        "    pass\n"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=Path(__file__).parent.parent,
        check=True,
        timeout=300,
    )
    assert "socket.connect 192.0.2.1" in log.read_text()
