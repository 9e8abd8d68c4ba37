"""Events from a worker's reader thread into the server's event loop, for every dialect.

A reply waits for the engine's first event before it answers, so that a request the
engine refuses before generating (a grammar, a prompt too long) gets its HTTP status
rather than a 200 with an error inside; and a client that goes away stops its job, whether
it was waiting for that first event, for a whole reply or for a stream.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request

from wire import protocol

# The events that show whether the engine took the request: before one of them come only
# progress (a worker starting, a long prompt being read) and notices (old turns left out).
DECISIVE = frozenset({protocol.DELTA, protocol.STATS, protocol.DONE, protocol.ERROR})


class Relay:
    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._head: list[dict[str, Any]] = []  # events taken by ``first``, given again

    def put(self, event: dict[str, Any]) -> None:
        self.loop.call_soon_threadsafe(self.queue.put_nowait, event)

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            event = self._head.pop(0) if self._head else await self.queue.get()
            yield event
            if event["type"] in (protocol.DONE, protocol.ERROR):
                return

    async def first(self, request: Request, job: Any) -> dict[str, Any]:
        """The job's first decisive event; ``events`` gives it again, with those before."""
        with watching(request, job):
            while True:
                event = await self.queue.get()
                self._head.append(event)
                if event["type"] in DECISIVE:
                    return event

    async def events_until_gone(self, request: Request, job: Any) -> AsyncIterator[dict[str, Any]]:
        """``events`` for a whole (not streamed) reply: the job ends if the client goes."""
        with watching(request, job):
            try:
                async for event in self.events():
                    yield event
            finally:
                if not job.finished:
                    job.cancel()


@contextlib.contextmanager
def watching(request: Request, job: Any) -> Any:
    watcher = asyncio.create_task(cancel_when_gone(request, job))
    try:
        yield
    finally:
        watcher.cancel()


async def cancel_when_gone(request: Request, job: Any) -> None:
    """Stop a reply whose client has disconnected.  The body has been read, so the next
    thing the server can receive is the disconnect; the task is cancelled once the reply
    is ready (or streaming, where the response watches for itself)."""
    while not job.finished:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            job.cancel()
            return
