"""How other programs reach Hearth's API: examples to copy, for the API server panel.

One function writes them all from what the server really is (its address, a model it
offers, whether it wants a key), so the examples never drift from the server: a curl
request in OpenAI's dialect, the OpenAI Python client, the Ollama client (and apps that
take an Ollama address), and an MCP client's configuration for ``hearth mcp``.  The key
itself is never written into an example: it is read from ``HEARTH_API_KEY``.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass

from app.serve.config import LOOPBACK_NAMES

KEY_VARIABLE = "HEARTH_API_KEY"
EVERY_ADDRESS = ("0.0.0.0", "::", "[::]", "")


@dataclass(frozen=True)
class Example:
    key: str  # curl, openai, ollama, mcp
    title: str  # English; the window translates it (and says what each is for)
    text: str  # code only: it is pasted as it is


def base_url(host: str, port: int) -> str:
    """The address a program on this computer uses (a server listening on every address is
    reached at 127.0.0.1 from here)."""
    shown = "127.0.0.1" if host in EVERY_ADDRESS else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def reachable_from_others(host: str) -> bool:
    return host not in LOOPBACK_NAMES


def hearth_command() -> list[str]:
    """How another program starts this Hearth (the installed app, or this Python's)."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "hearth"]


def examples(
    host: str, port: int, model: str, keyed: bool, data_dir: str | None = None
) -> list[Example]:
    """Every example for this server.  ``data_dir`` is the data folder when it is not the
    default one: ``hearth mcp`` must search the same collections (the MCP client starts it
    without Hearth's environment)."""
    root = base_url(host, port)
    message = [{"role": "user", "content": "Hello"}]
    body = json.dumps({"model": model, "messages": message}, indent=2)
    curl = [f"curl {root}/v1/chat/completions \\", '  -H "Content-Type: application/json" \\']
    if keyed:
        curl.append(f'  -H "Authorization: Bearer ${KEY_VARIABLE}" \\')
    curl.append(f"  -d {shlex.quote(body)}")
    key = f'os.environ["{KEY_VARIABLE}"]' if keyed else '"hearth"'
    openai = "\n".join(
        [
            *(["import os", ""] if keyed else []),
            "from openai import OpenAI",
            "",
            *([] if keyed else ["# The key can be any text: this server asks for none."]),
            f'client = OpenAI(base_url="{root}/v1", api_key={key})',
            "reply = client.chat.completions.create(",
            f"    model={json.dumps(model)},",
            f"    messages={json.dumps(message)},",
            ")",
            "print(reply.choices[0].message.content)",
        ]
    )
    headers = f'headers={{"Authorization": "Bearer " + os.environ["{KEY_VARIABLE}"]}}'
    ollama = "\n".join(
        [
            *(["import os", ""] if keyed else []),
            "from ollama import Client",
            "",
            f'client = Client(host="{root}"' + (f", {headers})" if keyed else ")"),
            f"reply = client.chat(model={json.dumps(model)}, messages={json.dumps(message)})",
            'print(reply["message"]["content"])',
        ]
    )
    command = hearth_command()
    server: dict[str, object] = {"command": command[0], "args": [*command[1:], "mcp"]}
    if data_dir:
        server["env"] = {"HEARTH_DATA_DIR": data_dir}
    mcp = json.dumps({"mcpServers": {"hearth": server}}, indent=2)
    return [
        Example("curl", "curl", "\n".join(curl)),
        Example("openai", "OpenAI client (Python)", openai),
        Example("ollama", "Ollama clients", ollama),
        Example("mcp", "MCP clients", mcp),
    ]
