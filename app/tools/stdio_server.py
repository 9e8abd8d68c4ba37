"""A tool server that runs as a process of Hearth's, spoken to over its stdin and stdout.

Why not the SDK's ``stdio_client`` as it is: it ends the server's process group only when
the server itself is still alive at the end, so the children of a server that forked and
exited outlived Hearth; and while those children held its stdout open, a call waited its
whole timeout for an answer from a server already dead.  It also hands the server's
stderr straight to a file, which then grew without bound.  Here:

* the server starts in a process group (a job object on Windows) of its own, through the
  SDK's own start for each system, and that whole group is ended when the server exits,
  whether or not its leader is alive, and again when the connection closes;
* the server's exit is noticed at once (``EXIT_POLL_S``) and closes the connection, so a
  call in flight ends with "the server stopped" instead of a timeout;
* its stderr is read by Hearth and written to a log that rolls over (``ServerLog``), its
  last lines kept in memory for the sentence that says why it failed.
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import IO, Any

import anyio

from app.files import private_file, private_folder
from app.processes import is_running

log = logging.getLogger(__name__)

EXIT_POLL_S = 0.2  # how often the server's own process is looked at
LOG_MAX_BYTES = 2_000_000  # a server's log rolls over past this (one older file kept)
LAST_LINES = 5  # of a server's stderr, for the sentence when it fails
LINE_CHARS = 400  # of each such line


class ServerLog:
    """``logs/mcp-NAME.log``: what a server writes on stderr, at most ``max_bytes`` in the
    file and as much again in the one before it (``.1``), whatever the server writes; and
    its last lines since it started, for the sentence that says why it failed."""

    def __init__(self, path: Path, max_bytes: int = LOG_MAX_BYTES) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.last: deque[str] = deque(maxlen=LAST_LINES)
        self._partial = b""
        self._file: IO[bytes] | None = None

    def start(self) -> None:
        """A new start of the server: a line that says so (the lines of earlier starts
        are no longer its last words)."""
        self.last.clear()
        self._partial = b""
        self.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting\n".encode(), own=True)

    def write(self, data: bytes, own: bool = False) -> None:
        try:
            file = self._open()
            if file.tell() + len(data) > self.max_bytes and file.tell() > 0:
                file = self._roll()
            file.write(data)
            file.flush()
        except OSError:  # a full disk loses the log, never the server
            log.warning("could not write %s", self.path, exc_info=True)
            self.close()
        if not own:
            self._keep_last(data)

    def _keep_last(self, data: bytes) -> None:
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()[-LINE_CHARS * 4 :]
        for line in lines:
            text = line.decode("utf-8", errors="replace").strip()
            if text:
                self.last.append(text[:LINE_CHARS])

    def last_lines(self) -> list[str]:
        partial = self._partial.decode("utf-8", errors="replace").strip()[:LINE_CHARS]
        return [*self.last, partial][-LAST_LINES:] if partial else list(self.last)

    def _open(self) -> IO[bytes]:
        if self._file is None:
            private_folder(self.path.parent)
            self._file = private_file(self.path).open("ab")
        return self._file

    def _roll(self) -> IO[bytes]:
        self.close()
        older = self.path.with_name(self.path.name + ".1")
        try:
            self.path.replace(older)
        except OSError:  # Windows: another Hearth holds it open; the file goes on growing
            log.info("could not roll %s over", self.path, exc_info=True)
        return self._open()

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None


class ServerProcess:
    """What the connection knows of its server's process: whether it still runs (asked
    before a call reuses it), and ``on_exit``, told its exit code when it ends by itself."""

    def __init__(self, on_exit: Callable[[int | None], None]) -> None:
        self.on_exit = on_exit
        self.process: Any = None

    @property
    def running(self) -> bool:
        """Still running: neither reaped nor ended a moment ago (its exit may not have
        reached the loop yet)."""
        process = self.process
        return process is not None and process.returncode is None and is_running(process.pid)


# The MCP SDK's private helpers used below (its own way to start a server on each system
# and end its process tree): pyproject pins the SDK's minor version for them, and
# tests/test_tool_servers.py checks they are there.
SDK_HELPERS = (
    "_create_platform_compatible_process",
    "_get_executable_command",
    "_parse_line",
    "_terminate_process_tree",
    "_stop_server_process",
)


@contextlib.asynccontextmanager
async def stdio_server(
    command: str,
    args: list[str],
    env: dict[str, str],
    cwd: str | None,
    server_log: ServerLog,
    watch: ServerProcess,
) -> AsyncIterator[Any]:
    """The server's process, started in a group of its own, and the SDK's two streams to
    it (``TransportStreams``); the whole group ends with the server or with this.
    ``watch`` follows the process."""
    from mcp.client import stdio

    process: Any = await stdio._create_platform_compatible_process(
        command=await stdio._get_executable_command(command),
        args=args,
        env=stdio.get_default_environment() | env,
        errlog=subprocess.PIPE,  # type: ignore[arg-type] # read by Hearth, not a file
        cwd=cwd,
    )
    watch.process = process
    incoming, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, outgoing = anyio.create_memory_object_stream[Any](0)

    async def read_stdout() -> None:
        buffer = b""
        async with incoming:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
                while True:
                    buffer += await process.stdout.receive()
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        if line.strip():
                            message = stdio._parse_line(line.decode("utf-8", errors="replace"))
                            await incoming.send(message)

    async def write_stdin() -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with outgoing:
                async for session_message in outgoing:
                    text = session_message.message.model_dump_json(
                        by_alias=True, exclude_unset=True
                    )
                    await process.stdin.send((text + "\n").encode())

    async def read_stderr() -> None:
        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
            while True:
                server_log.write(await process.stderr.receive())

    async def watch_exit() -> None:
        """The server's own process ended: its group goes with it (children it left hold
        its pipes open, so no end of stream would ever tell), and the connection closes."""
        while process.returncode is None:
            await anyio.sleep(EXIT_POLL_S)
        log.info("the tool server process %s ended (%s)", process.pid, process.returncode)
        with anyio.CancelScope(shield=True):
            await stdio._terminate_process_tree(process)
        watch.on_exit(process.returncode)
        await incoming.aclose()

    server_log.start()
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read_stdout)
            tasks.start_soon(write_stdin)
            tasks.start_soon(read_stderr)
            tasks.start_soon(watch_exit)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    write_stream.close()
                    read_stream.close()
                    await stdio._stop_server_process(process)
                    await stdio._terminate_process_tree(process)  # what the server left
                tasks.cancel_scope.cancel()
    finally:
        server_log.close()
