"""Requests to Hearth's worker with a deadline: the check has 8 minutes, so a load or a
reply that would run past its share fails with TimeoutError (the worker is then ended
with its client) instead of waiting the engine client's usual 10 minutes."""

from __future__ import annotations

import time
from typing import Any

META = ("type", "id", "chat_template")


def _events(job: Any, within_s: float) -> Any:
    deadline = time.monotonic() + within_s
    events = job.events(timeout=max(1.0, within_s))
    for event in events:
        yield event
        if time.monotonic() > deadline and event["type"] not in ("done", "error", "loaded"):
            raise TimeoutError(f"no answer within {within_s:.0f} s")


def load(client: Any, spec: Any, within_s: float) -> dict[str, Any]:
    """What the worker said when it loaded the model (RuntimeError if it could not)."""
    loaded: dict[str, Any] = {}
    for event in _events(client.load(spec), within_s):
        if event["type"] == "error":
            raise RuntimeError(f"the model did not load: {event.get('message')}")
        if event["type"] == "loaded":
            loaded = {k: v for k, v in event.items() if k not in META}
        if event["type"] == "notice" and event.get("message"):
            loaded.setdefault("notices", []).append(event["message"])
    return loaded


def reply(
    client: Any, spec: Any, messages: list[dict[str, Any]], within_s: float, **params: Any
) -> dict[str, Any]:
    """The stats event of one reply (RuntimeError if it failed)."""
    stats: dict[str, Any] = {}
    for event in _events(client.chat(spec, messages, {"seed": 1, **params}), within_s):
        if event["type"] == "stats":
            stats = event
        elif event["type"] == "error":
            raise RuntimeError(f"the reply failed: {event.get('message')}")
    return stats
