"""The cost of a tool call in a reply: from the model's finished call to the tool's result
reaching the model, for a local stdio MCP server already running (``hearth mcp``, whose
``list_collections`` answers at once).  A scripted engine writes the calls, so the figure
is Hearth's own: reading the call, the MCP round trip, saving the round, and sending the
next request to the worker.  Budget: 50 ms."""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from app.chat.reply import Reply
from app.chat.session import ChatSession
from app.chat.tool_turn import ChatTools
from app.core import Core, open_core
from app.engine.seat import Seat
from app.models.library import ModelEntry
from app.tools.config import ServerConfig
from app.tools.servers import ToolServers

ROUNDS = 20
CALL = '<tool_call>{"name": "list_collections", "arguments": {}}</tool_call>'


class _Timed(ChatSession):
    """A chat session that notes when each request of a reply ends."""

    ended: list[float]

    def _handle(self, reply: Reply, event: dict[str, Any]) -> None:
        if event.get("type") == "done":
            self.ended.append(time.perf_counter())
        super()._handle(reply, event)


class _TimedSeat(Seat):
    """A seat that notes when each request is sent to the worker."""

    sent: list[float]

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        self.sent.append(time.perf_counter())
        return super().chat(*args, **kwargs)


def measure_tool_rounds(scratch: Path, rounds: int = ROUNDS) -> list[float]:
    """Milliseconds from each finished call to the next request, ``rounds`` calls."""
    core: Core = open_core(scratch)
    script = scratch / "tools.script.txt"
    script.write_text("<<<round>>>\n".join([CALL] * rounds + ["Done."]), encoding="utf-8")
    server = ServerConfig(
        "hearth-docs",
        command=sys.executable,
        args=("-m", "hearth", "mcp", "--data-dir", str(scratch / "mcp")),
    )
    servers = ToolServers([server], core.paths.logs_dir)
    seat = _TimedSeat(core.engines)
    seat.sent = []
    store = core.open_store()
    try:
        listed = servers.tools(server.name).result(120)
        tools = ChatTools(listed, servers, always_allow={t.key for t in listed}, max_calls=rounds)
        session = _Timed(core.settings, store, seat, core.model_spec)
        session.ended = []
        session.model = ModelEntry("tools", script, "synthetic", script.stat().st_size, "file")
        session.tools = tools
        reply = session.send("Call the tool.")
        assert reply is not None
        session.wait(300)
        if not reply.finished or reply.error:
            raise RuntimeError(f"the scripted reply did not finish: {reply.error}")
        calls = [c for r in store.message(reply.message_id).tools for c in r["calls"]]
        if len(calls) != rounds or any(c["status"] != "done" for c in calls):
            raise RuntimeError(json.dumps(calls)[:500])
        return [
            (sent - ended) * 1000
            for ended, sent in zip(session.ended[:rounds], seat.sent[1:], strict=True)
        ]
    finally:
        store.close()
        servers.close()
        core.engines.close()


def tool_figures(milliseconds: list[float]) -> list[Any]:
    from hearth.bench.figures import Figure

    median = statistics.median(milliseconds)
    return [
        Figure("tool_call_to_result_ms", round(median, 1), "ms", "<= 50", median <= 50),
        Figure("tool_call_to_result_max_ms", round(max(milliseconds), 1), "ms", None, None),
    ]
