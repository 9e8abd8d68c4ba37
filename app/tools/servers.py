"""Running the MCP servers a chat uses, and calling their tools.

One thread runs an asyncio loop for all of the process's servers (``ToolServers``).  A
server starts when a chat first needs its tools (or once when the person adds it, to
check it: ``ui/tools/servers_dialog.py``), never before; a stdio server runs in a
process group of its own (a job object on Windows) that ends with it, children and all,
and its stderr goes to ``logs/mcp-<name>.log``, which rolls over (``stdio_server.py``).
A tool whose name is longer than MCP's 128 characters is left out.  Every server
stops when Hearth quits (``close``).  Callers on other threads (the chat session's, the
command line's) get a ``concurrent.futures.Future``: nothing here blocks the Qt main thread,
and cancelling the future stops the call.

Faults are sentences, never a stuck reply: a server that cannot start or dies says so
with the last lines it wrote on stderr (``ToolServerError``, or a failed ``ToolResult``
for a call); a call past its timeout is abandoned, the server told to cancel it; the next
call after a death starts the server again.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
import time
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from app.tools.config import ServerConfig
from app.tools.stdio_server import ServerLog, ServerProcess, stdio_server
from wire.phrases import Phrase
from wire.visible_text import visible

log = logging.getLogger(__name__)

T = TypeVar("T")
START_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 8.0  # the SDK's own stop (stdin closed, SIGTERM, SIGKILL) takes up to 6.5 s
PING_TIMEOUT_S = 5.0
MAX_TOOL_NAME = 128  # MCP's own bound on a tool's name
CONNECTION_CLOSED = -32000  # JSON-RPC's code for a connection that closed (the SDK's too)


class ToolServerError(Exception):
    """A server that could not start, or stopped; the message is a sentence (Phrase)."""


@dataclass(frozen=True)
class ToolInfo:
    """A tool as its server lists it, with what its annotations declare.  MCP's defaults
    hold when a server says nothing: a tool may write, destroy and reach the network."""

    server: str
    name: str
    description: str = ""
    schema: tuple[tuple[str, Any], ...] = ()  # the input schema's items (hashable)
    title: str = ""
    read_only: bool = False
    destructive: bool = True
    open_world: bool = True

    @property
    def key(self) -> str:
        """How settings name it: ``server/tool``."""
        return f"{self.server}/{self.name}"

    def input_schema(self) -> dict[str, Any]:
        return dict(self.schema) or {"type": "object", "properties": {}}


@dataclass(frozen=True)
class ToolResult:
    """What a call gave back: its text (what the model is given), whether it is an error,
    and notes on content Hearth cannot show (an image, audio, a binary resource)."""

    text: str
    is_error: bool = False
    notes: tuple[str, ...] = ()
    seconds: float = 0.0
    timed_out: bool = False


def result_from(result: Any) -> ToolResult:
    """A ``CallToolResult`` of the SDK as a ``ToolResult``."""
    parts: list[str] = []
    notes: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(block.text))
        elif kind == "resource" and isinstance(getattr(block.resource, "text", None), str):
            parts.append(str(block.resource.text))
        elif kind == "resource_link":
            parts.append(f"{getattr(block, 'name', '')} <{getattr(block, 'uri', '')}>")
        else:
            notes.append(
                Phrase("The tool returned {0}, which Hearth cannot show.", _content_name(kind))
            )
    if not parts and result.structured_content is not None:
        import json

        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return ToolResult("\n".join(parts), bool(result.is_error), tuple(notes))


def _content_name(kind: str) -> str:
    return {
        "image": Phrase("an image"),
        "audio": Phrase("audio"),
        "resource": Phrase("a binary file"),
    }.get(kind, Phrase("content of the kind '{0}'", kind))


def info_from(server: str, tool: Any) -> ToolInfo:
    """An SDK ``Tool`` as a ``ToolInfo``."""
    notes = tool.annotations
    read_only = bool(notes and notes.read_only_hint)
    return ToolInfo(
        server,
        tool.name,
        tool.description or "",
        tuple((tool.input_schema or {}).items()),
        (tool.title or (notes.title if notes else None) or ""),
        read_only=read_only,
        destructive=not read_only
        and (notes is None or notes.destructive_hint is None or bool(notes.destructive_hint)),
        open_world=notes is None or notes.open_world_hint is None or bool(notes.open_world_hint),
    )


class _Connection:
    """One running server, held open by a task of the loop until ``stop``."""

    def __init__(self, config: ServerConfig, log_path: Path) -> None:
        self.config = config
        self.log_path = log_path
        self.client: Any = None
        self.tools: list[ToolInfo] = []
        self.dead: str = ""  # why it stopped, once it did
        self._stop = asyncio.Event()
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.log = ServerLog(log_path)
        self._exited: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self.process = ServerProcess(self._on_exit)
        self._task: asyncio.Task[None] | None = None

    async def start(self, timeout: float) -> None:
        self._task = asyncio.create_task(self._hold(), name=f"mcp {self.config.name}")
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), timeout)
        except TimeoutError:
            await self.stop()
            raise ToolServerError(
                Phrase(
                    "The tool server {0} did not start within {1:g} s.{2}",
                    self.config.name,
                    timeout,
                    self.last_words(),
                )
            ) from None

    async def _hold(self) -> None:
        from mcp import Client

        try:
            async with contextlib.AsyncExitStack() as stack:
                transport = await self._transport(stack)
                client = await stack.enter_async_context(Client(transport, cache=None))
                self.tools = await self._list(client)
                self.client = client
                self._ready.set_result(None)
                await self._until_stopped_or_exited()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("the tool server %s failed", self.config.name, exc_info=True)
            self.dead = self._why(exc)
            if not self._ready.done():
                self._ready.set_exception(ToolServerError(self.dead))
        finally:
            self.client = None
            if not self.dead:
                self.dead = Phrase("The tool server {0} was stopped.", self.config.name)
            if not self._ready.done():
                self._ready.set_exception(ToolServerError(self.dead))

    async def _until_stopped_or_exited(self) -> None:
        waits: list[asyncio.Future[Any]] = [
            asyncio.ensure_future(self._stop.wait()),
            asyncio.ensure_future(asyncio.shield(self._exited)),
        ]
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for each in waits:
            each.cancel()
        if self._exited.done() and not self._stop.is_set():
            self.dead = Phrase(
                "The tool server {0} stopped (its exit code: {1}).{2}",
                self.config.name,
                self._exited.result(),
                self.last_words(),
            )

    def _on_exit(self, code: int | None) -> None:
        if not self._exited.done():
            self._exited.set_result(code)

    async def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        config = self.config
        if config.url:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = await stack.enter_async_context(
                create_mcp_http_client(headers=config.all_headers())
            )
            return streamable_http_client(config.url, http_client=http)
        return stdio_server(
            config.command,
            list(config.args),
            config.all_env(),
            config.cwd or None,
            self.log,
            self.process,
        )

    async def _list(self, client: Any) -> list[ToolInfo]:
        tools: list[ToolInfo] = []
        cursor = None
        for _page in range(100):  # a server that pages forever is cut off
            listing = await client.list_tools(cursor=cursor)
            for tool in listing.tools:
                if len(tool.name) > MAX_TOOL_NAME:
                    log.warning(
                        "the tool server %s lists a tool with a name of %d characters "
                        "(at most %d): it is left out",
                        self.config.name,
                        len(tool.name),
                        MAX_TOOL_NAME,
                    )
                    continue
                tools.append(info_from(self.config.name, tool))
            cursor = listing.next_cursor
            if not cursor:
                break
        return tools

    def _why(self, exc: BaseException) -> str:
        exc = innermost(exc)
        if isinstance(exc, FileNotFoundError | PermissionError):
            return Phrase(
                "The tool server {0} could not be started: {1} ({2}).",
                self.config.name,
                self.config.command,
                exc.strerror or exc,
            )
        if self.config.url:
            return Phrase(
                "The tool server {0} at {1} could not be reached ({2}). Check that it runs and "
                "its address; if it says 401 or 403, its key (Tool servers…) is wrong.",
                self.config.name,
                self.config.shown_url(),
                _plain(exc),
            )
        return Phrase(
            "The tool server {0} stopped ({1}).{2}",
            self.config.name,
            _plain(exc),
            self.last_words(),
        )

    def last_words(self) -> str:
        """The last lines the server wrote on stderr since it started, as a sentence's
        tail (with their escapes shown: a server's words reach a terminal and labels)."""
        lines = self.log.last_lines()
        if not lines:
            return ""
        return " " + Phrase("Its last words: {0}", visible(" / ".join(lines)))

    async def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> ToolResult:
        client = self.client
        if client is None:
            raise ToolServerError(self.dead)
        started = time.perf_counter()
        try:
            result = await asyncio.wait_for(client.call_tool(tool, arguments), timeout)
        except TimeoutError:
            return ToolResult(
                Phrase("The tool {0} did not answer within {1:g} s.", tool, timeout),
                is_error=True,
                seconds=time.perf_counter() - started,
                timed_out=True,
            )
        except Exception as exc:  # noqa: BLE001 - the server's answer or its death
            await asyncio.sleep(0)  # let the connection's task see the server gone
            if self.client is None or getattr(exc, "code", None) == CONNECTION_CLOSED:
                self.dead = Phrase(
                    "The tool server {0} stopped during the call.{1}",
                    self.config.name,
                    self.last_words(),
                )
                await self.stop()
                return ToolResult(self.dead, True, seconds=time.perf_counter() - started)
            return ToolResult(
                Phrase("The tool {0} failed: {1}", tool, _plain(exc)),
                is_error=True,
                seconds=time.perf_counter() - started,
            )
        made = result_from(result)
        return ToolResult(made.text, made.is_error, made.notes, time.perf_counter() - started)

    @property
    def alive(self) -> bool:
        return self.client is not None and self._task is not None and not self._task.done()

    @property
    def starting(self) -> bool:
        """Started and not ready yet (whoever asked may have gone away meanwhile)."""
        return self._task is not None and not self._task.done() and not self._ready.done()

    async def wait_ready(self, timeout: float) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self._ready), timeout)

    async def responds(self) -> bool:
        """Whether the server still answers.  A stdio server's process is watched (its
        exit closes the connection at once); a server reached by its address is asked for
        its tools (MCP has dropped its ping)."""
        client = self.client
        if client is None:
            return False
        if not self.config.url:
            return self.process.running
        try:
            await asyncio.wait_for(client.list_tools(), PING_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - any failure means: start it again
            log.info("the tool server %s does not answer", self.config.name)
            return False
        return True

    async def stop(self) -> None:
        self._stop.set()
        task = self._task
        if task is not None and not task.done() and task is not asyncio.current_task():
            try:
                await asyncio.wait_for(asyncio.shield(task), STOP_TIMEOUT_S)
            except TimeoutError:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task


def innermost(exc: BaseException) -> BaseException:
    """The error inside task groups' exception groups (what actually went wrong)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _plain(exc: BaseException) -> str:
    exc = innermost(exc)
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= 300 else text[:300] + "…"


class ToolServers:
    """The process's MCP servers: started on first use, stopped by ``close``."""

    def __init__(self, configs: Iterable[ServerConfig], logs_dir: Path) -> None:
        self.logs_dir = logs_dir
        self._configs = {config.name: config for config in configs}
        self._connections: dict[str, _Connection] = {}
        self._every: list[_Connection] = []  # each one ever started, for close to stop
        self._starting: dict[str, asyncio.Lock] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    # -- for any thread --------------------------------------------------------------------
    def names(self) -> list[str]:
        return list(self._configs)

    def config(self, name: str) -> ServerConfig:
        try:
            return self._configs[name]
        except KeyError:
            raise ToolServerError(
                Phrase("There is no tool server named {0} (see Settings › Tools).", name)
            ) from None

    def tools(
        self, server: str, timeout: float = START_TIMEOUT_S
    ) -> concurrent.futures.Future[list[ToolInfo]]:
        """The server's tools (started first if it is not running)."""
        self.config(server)
        return self._submit(self._tools(server, timeout))

    def call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        timeout: float = CALL_TIMEOUT_S,
    ) -> concurrent.futures.Future[ToolResult]:
        """Call ``tool``; the future's result is a ``ToolResult`` (failures included, as
        text for the model), or a ToolServerError when the server cannot start."""
        self.config(server)
        return self._submit(self._call(server, tool, arguments, timeout))

    def running(self) -> list[str]:
        return [name for name, c in self._connections.items() if c.alive]

    def log_path(self, server: str) -> Path:
        return self.logs_dir / f"mcp-{server}.log"

    def close(self) -> None:
        """Stop every server (its process group with it) and the loop's thread."""
        with self._lock:
            self._closed = True
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None  # a second close has nothing to do
        if loop is None or thread is None:
            return
        future = asyncio.run_coroutine_threadsafe(self._stop_all(), loop)
        with contextlib.suppress(Exception):
            future.result(STOP_TIMEOUT_S + 2)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(STOP_TIMEOUT_S)

    # -- the loop --------------------------------------------------------------------------
    def _submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        with self._lock:
            if self._closed:
                coroutine.close()
                raise ToolServerError(Phrase("The tool servers were stopped (Hearth is quitting)."))
            if self._loop is None:
                ready = threading.Event()
                self._thread = threading.Thread(
                    target=self._run, args=(ready,), name="tool servers", daemon=True
                )
                self._thread.start()
                ready.wait()
            assert self._loop is not None
            return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def _run(self, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def _connection(self, server: str, timeout: float) -> _Connection:
        lock = self._starting.setdefault(server, asyncio.Lock())
        async with lock:
            if self._closed:
                raise ToolServerError(Phrase("The tool servers were stopped (Hearth is quitting)."))
            connection = self._connections.get(server)
            if connection is not None and connection.starting:
                await connection.wait_ready(timeout)  # a start whose caller went away
            if connection is not None and connection.alive:
                if await connection.responds():
                    return connection
                await connection.stop()  # it died since: start it again
            connection = _Connection(self.config(server), self.log_path(server))
            self._connections[server] = connection
            self._every.append(connection)
            await connection.start(timeout)
            return connection

    async def _tools(self, server: str, timeout: float) -> list[ToolInfo]:
        return list((await self._connection(server, timeout)).tools)

    async def _call(
        self, server: str, tool: str, arguments: dict[str, Any], timeout: float
    ) -> ToolResult:
        connection = await self._connection(server, START_TIMEOUT_S)
        return await connection.call(tool, arguments, timeout)

    async def _stop_all(self) -> None:
        await asyncio.gather(*(c.stop() for c in self._every), return_exceptions=True)
        # What is left (a call that waits, a start) ends now: no future stays unanswered.
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
