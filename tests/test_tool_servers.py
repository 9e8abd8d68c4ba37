"""Real MCP servers over stdio: the tests' own (tools that echo, fail, hang, return huge
text, write a file, crash) and ``mcp-server-time`` from PyPI.  A server starts only when
its tools are needed, its faults come back as sentences with its last stderr lines, and
closing stops it and its process group."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from app.tools.config import ServerConfig
from app.tools.servers import ToolServerError, ToolServers

pytestmark = pytest.mark.slow  # drives the real app, an engine or a server

FIXTURE = Path(__file__).parent / "tools" / "mcp_fixture_server.py"
WAIT_S = 60  # a state to reach, not a speed: generous for a loaded machine


def fixture_server(folder: Path, name: str = "fixture") -> ServerConfig:
    return ServerConfig(name, command=sys.executable, args=(str(FIXTURE), str(folder)))


def time_server() -> ServerConfig:
    return ServerConfig(
        "time", command=sys.executable, args=("-m", "mcp_server_time", "--local-timezone", "UTC")
    )


def server_processes() -> list[psutil.Process]:
    """The tool servers running: one process each, though a Windows virtual environment
    starts each through a launcher whose command line names the server too (the
    launcher's child, the interpreter, is not counted again)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            command = " ".join(child.cmdline())
        except psutil.Error:
            continue
        if "mcp_fixture_server" in command or "mcp_server_time" in command:
            found.append(child)
    pids = {process.pid for process in found}
    return [process for process in found if _parent_pid(process) not in pids]


def _parent_pid(process: psutil.Process) -> int | None:
    try:
        return process.ppid()
    except psutil.Error:
        return None


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[ToolServers]:
    made = ToolServers([fixture_server(tmp_path), time_server()], tmp_path / "logs")
    yield made
    made.close()


def test_a_server_starts_when_its_tools_are_needed_and_stops_with_hearth(
    servers: ToolServers,
) -> None:
    assert server_processes() == [], "configured is not started"
    tools = {tool.name: tool for tool in servers.tools("fixture").result(WAIT_S)}
    assert {"echo", "fail", "hang", "huge", "write_note", "crash"} <= set(tools)
    assert tools["echo"].read_only and not tools["echo"].open_world
    note = tools["write_note"]
    assert not note.read_only and not note.destructive and note.open_world, "MCP's defaults"
    assert note.input_schema()["required"] == ["name", "text"]
    assert len(server_processes()) == 1
    assert servers.running() == ["fixture"]
    servers.close()
    assert server_processes() == [], "closing stops the server"
    with pytest.raises(ToolServerError, match="quitting"):
        servers.tools("fixture")


def test_calls_give_the_tools_answers_and_failures_as_text(
    servers: ToolServers, tmp_path: Path
) -> None:
    echo = servers.call("fixture", "echo", {"text": "hello"}).result(WAIT_S)
    assert (echo.text, echo.is_error) == ("echo: hello", False)
    failed = servers.call("fixture", "fail", {"reason": "no such city"}).result(WAIT_S)
    assert failed.is_error and "no such city" in failed.text
    huge = servers.call("fixture", "huge", {"characters": 200_000}).result(WAIT_S)
    assert len(huge.text) == 200_000, "cutting to the context is the reply's job"
    wrote = servers.call("fixture", "write_note", {"name": "n.txt", "text": "hi"}).result(WAIT_S)
    assert not wrote.is_error
    assert (tmp_path / "n.txt").read_text() == "hi"
    unknown = servers.call("fixture", "no_such_tool", {}).result(WAIT_S)
    assert unknown.is_error and "no_such_tool" in unknown.text


def test_a_call_past_its_timeout_ends_and_the_server_goes_on(servers: ToolServers) -> None:
    hung = servers.call("fixture", "hang", {"seconds": 3600}, timeout=0.5).result(WAIT_S)
    assert hung.is_error and "did not answer within 0.5 s" in hung.text
    assert servers.call("fixture", "echo", {"text": "still here"}).result(WAIT_S).text == (
        "echo: still here"
    )


def test_a_server_that_dies_mid_call_says_so_and_starts_again(servers: ToolServers) -> None:
    died = servers.call("fixture", "crash", {}).result(WAIT_S)
    assert died.is_error
    assert "stopped during the call" in died.text
    assert "crashing on purpose" in died.text, "its last stderr lines"
    again = servers.call("fixture", "echo", {"text": "back"}).result(WAIT_S)
    assert again.text == "echo: back", "the next call started it again"


def test_a_server_that_exits_leaving_children_says_so_at_once_and_its_children_end(
    servers: ToolServers, tmp_path: Path
) -> None:
    started = time.monotonic()
    died = servers.call("fixture", "fork_and_exit", {"children": 3}, timeout=WAIT_S).result(
        WAIT_S * 2
    )
    assert died.is_error and not died.timed_out, died.text
    assert "stopped during the call" in died.text, "its death, not its silence"
    assert time.monotonic() - started < WAIT_S, "said before the call's timeout"
    children = [int(pid) for pid in (tmp_path / "children.txt").read_text().split()]
    assert len(children) == 3
    deadline = time.monotonic() + WAIT_S
    while any(_running(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_running(pid) for pid in children), "its process group ended with it"
    again = servers.call("fixture", "echo", {"text": "back"}).result(WAIT_S)
    assert again.text == "echo: back", "the next call started it again"


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_server_that_floods_stderr_keeps_a_bounded_log_and_its_last_words(
    servers: ToolServers, tmp_path: Path
) -> None:
    from app.tools.stdio_server import LOG_MAX_BYTES

    for _ in range(3):
        shouted = servers.call("fixture", "shout", {"megabytes": 3}).result(WAIT_S)
        assert shouted.text == "shouted"
    logs = list((tmp_path / "logs").glob("mcp-fixture.log*"))
    assert {p.name for p in logs} == {"mcp-fixture.log", "mcp-fixture.log.1"}, "rolled over"
    assert sum(p.stat().st_size for p in logs) <= 2 * LOG_MAX_BYTES, "9 MB written, 4 kept"
    assert "a very talkative server" in (tmp_path / "logs" / "mcp-fixture.log").read_text()
    died = servers.call("fixture", "crash", {}).result(WAIT_S)
    assert "crashing on purpose" in died.text, "its last words, after the flood"


def test_a_server_that_cannot_start_says_why(tmp_path: Path) -> None:
    broken = ServerConfig(
        "broken",
        command=sys.executable,
        args=("-c", "import sys; print('bad config: no API key', file=sys.stderr); sys.exit(2)"),
    )
    missing = ServerConfig("missing", command=str(tmp_path / "no-such-program"))
    servers = ToolServers([broken, missing], tmp_path / "logs")
    try:
        with pytest.raises(ToolServerError, match="bad config: no API key"):
            servers.tools("broken").result(WAIT_S)
        with pytest.raises(ToolServerError, match="could not be started"):
            servers.call("missing", "anything", {}).result(WAIT_S)
        with pytest.raises(ToolServerError, match="no tool server named nobody"):
            servers.tools("nobody")
    finally:
        servers.close()
    assert "bad config" in (tmp_path / "logs" / "mcp-broken.log").read_text(), "stderr is kept"


def test_mcp_server_time_from_pypi_tells_the_time(servers: ToolServers) -> None:
    names = {tool.name for tool in servers.tools("time").result(WAIT_S)}
    assert "get_current_time" in names
    answer = servers.call("time", "get_current_time", {"timezone": "UTC"}).result(WAIT_S)
    assert not answer.is_error, answer.text
    assert json.loads(answer.text)["timezone"] == "UTC"


def test_a_streamable_http_server_gets_its_headers_and_a_key_from_the_key_store(
    tmp_path: Path,
) -> None:
    """A server reached at a URL: its plain headers from the config, its key from the key
    store (never from the file), and a server that is not there is said so."""
    from app.secrets import set_token
    from tests.conftest import free_port

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(FIXTURE), str(tmp_path), "--http", str(port)],
        stderr=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    remote = ServerConfig(
        "remote", url=url, headers=(("X-Team", "blue"),), secret_headers=("Authorization",)
    )
    set_token(remote.key_source("Authorization"), "Bearer s3cret")
    gone = ServerConfig("gone", url=f"http://127.0.0.1:{free_port()}/mcp")
    servers = ToolServers([remote, gone], tmp_path / "logs")
    try:
        deadline = time.monotonic() + WAIT_S
        while True:  # wait for the server to listen: a state, not a speed
            try:
                tools = servers.tools("remote").result(WAIT_S)
                break
            except ToolServerError:
                assert time.monotonic() < deadline, "the HTTP server never answered"
                time.sleep(0.2)
        assert "echo" in {tool.name for tool in tools}
        said = servers.call("remote", "headers", {}).result(WAIT_S)
        assert said.text.split() == ["authorization", "x-team"]
        assert servers.call("remote", "echo", {"text": "over http"}).result(WAIT_S).text == (
            "echo: over http"
        )
        with pytest.raises(ToolServerError, match="could not be reached"):
            servers.tools("gone").result(WAIT_S)
    finally:
        servers.close()
        process.terminate()
        process.wait(30)


def test_a_server_that_died_between_calls_starts_again_and_a_cancelled_start_is_not_doubled(
    servers: ToolServers,
) -> None:
    started = servers.tools("fixture")
    started.cancel()  # the person went away while it started
    assert servers.call("fixture", "echo", {"text": "one"}).result(WAIT_S).text == "echo: one"
    assert len([p for p in server_processes() if "mcp_fixture" in " ".join(p.cmdline())]) == 1
    for process in server_processes():
        process.kill()  # dies between two calls
        process.wait(WAIT_S)
    assert servers.call("fixture", "echo", {"text": "two"}).result(WAIT_S).text == "echo: two"
    servers.close()
    assert server_processes() == [], "every server it started is stopped"


def test_the_mcp_sdk_has_the_helpers_hearth_starts_servers_with() -> None:
    """Hearth starts a tool server with the SDK's own (private) helpers: an SDK without
    them would leave every stdio server unstartable, so a new SDK is taken only once
    this passes."""
    from mcp.client import stdio

    from app.tools.stdio_server import SDK_HELPERS

    missing = [name for name in SDK_HELPERS if not callable(getattr(stdio, name, None))]
    assert missing == [], f"the MCP SDK no longer has {missing}: see app/tools/stdio_server.py"
