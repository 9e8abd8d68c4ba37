"""Asking before every tool call: what the person is told about a tool, and what they chose.

Every call waits for the person's answer unless they chose *Always allow* for that tool
of that server (kept in ``tools.json``, revocable in Settings › Tools and with ``hearth
tools forget``).  Nothing is allowed in advance by default, Hearth's own tools included.
What a tool may do is said from its server's annotations, and where a server says nothing
MCP's defaults hold: it may change things and reach the network.  These are the server's
claims, not guarantees, and the prompt says so.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from app.tools.servers import ToolInfo
from wire.phrases import Phrase


class Decision(enum.StrEnum):
    ALLOW_ONCE = "once"
    ALWAYS = "always"
    DENY = "deny"


@dataclass(frozen=True)
class PendingCall:
    """A call the model asked for, waiting for the person's answer."""

    call_id: str
    tool: ToolInfo
    arguments: dict[str, Any]


def risks(tool: ToolInfo) -> list[str]:
    """What the tool's server says it may do, worst first (empty: read-only and local)."""
    said: list[str] = []
    if not tool.read_only:
        said.append(
            Phrase("may delete or overwrite things")
            if tool.destructive
            else Phrase("may change files or data")
        )
    if tool.open_world:
        said.append(Phrase("may reach the network"))
    return said


def needs_asking(tool: ToolInfo, always_allow: set[str]) -> bool:
    """Whether this call waits for the person (everything but an always-allowed tool)."""
    return tool.key not in always_allow


DENIED = Phrase("The user denied this tool call. Do not call it again for this request.")
