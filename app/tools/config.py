"""The tool servers a person configured, and the tools they always allow.

Servers come in the ``mcpServers`` JSON that Claude Desktop, Cursor and LM Studio write (VS
Code's ``servers`` too): a name, then either a command to start (``command``, ``args``,
``env``, ``cwd``) or the URL of a Streamable HTTP server (``url``, ``headers``).  They are
kept in ``tools.json`` in the data folder; a header that carries a key (``Authorization``,
anything named key, token or secret) goes to the key store, and the file names it only.
Nothing here starts a server: a server runs only once a chat that may use it needs it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.json_document import JsonDocument, parse_json
from app.secrets import get_token, set_token
from wire.phrases import Phrase
from wire.visible_text import visible

log = logging.getLogger(__name__)
FILE_NAME = "tools.json"
SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
SECRET_HEADER = re.compile(r"authorization|key|token|secret|password|cookie", re.IGNORECASE)
MAX_SERVERS = 64
STDIO, HTTP = "stdio", "http"
BUILTIN_NAME = "hearth"  # Hearth's own tools (app.tools.builtin) go by this name


class ConfigProblem(ValueError):
    """A server's configuration that cannot be used; the message is a Phrase for the user."""


@dataclass(frozen=True)
class ServerConfig:
    """One MCP server: started as a process (stdio) or reached at a URL (Streamable HTTP)."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str = ""
    url: str = ""
    headers: tuple[tuple[str, str], ...] = ()  # values that are no secret
    secret_headers: tuple[str, ...] = ()  # names whose values are in the key store
    secret_env: tuple[str, ...] = ()  # environment variables whose values are there too
    enabled: bool = True

    @property
    def transport(self) -> str:
        return HTTP if self.url else STDIO

    def key_source(self, header: str) -> str:
        """Where the key store keeps this server's ``header``."""
        return f"mcp:{self.name}:{header.lower()}"

    def all_headers(self) -> dict[str, str]:
        """The headers to send, the secret ones read from the key store now."""
        headers = dict(self.headers)
        for name in self.secret_headers:
            value = get_token(self.key_source(name))
            if value:
                headers[name] = value
        return headers

    def all_env(self) -> dict[str, str]:
        """The environment to start it with, the secret values read from the key store."""
        env = dict(self.env)
        for name in self.secret_env:
            value = get_token(self.key_source(f"env:{name}"))
            if value:
                env[name] = value
        return env

    def key_sources(self) -> list[str]:
        """Every place in the key store this server's keys are kept."""
        return [self.key_source(h) for h in self.secret_headers] + [
            self.key_source(f"env:{name}") for name in self.secret_env
        ]

    def same_program(self, other: ServerConfig) -> bool:
        """Whether ``other`` starts or reaches the same server (its approvals and keys
        still apply to it)."""
        return (self.command, self.args, self.cwd, self.url) == (
            other.command,
            other.args,
            other.cwd,
            other.url,
        )

    def to_json(self) -> dict[str, Any]:
        """The ``mcpServers`` entry (secret header values left out)."""
        if self.url:
            entry: dict[str, Any] = {"type": "http", "url": self.url}
            if self.headers:
                entry["headers"] = dict(self.headers)
            if self.secret_headers:
                entry["secretHeaders"] = list(self.secret_headers)
        else:
            entry = {"command": self.command, "args": list(self.args)}
            if self.env:
                entry["env"] = dict(self.env)
            if self.secret_env:
                entry["secretEnv"] = list(self.secret_env)
            if self.cwd:
                entry["cwd"] = self.cwd
        if not self.enabled:
            entry["disabled"] = True
        return entry

    def describe(self) -> str:
        """One line for a list: the command as it would be typed, or the URL (without
        what may be a key in it)."""
        return self.shown_url() if self.url else " ".join([self.command, *self.args])

    def shown_url(self) -> str:
        """The URL without its user, password and query: where a key may be."""
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(self.url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        hidden = "?…" if parts.query else ""
        return urlunsplit((parts.scheme, netloc, parts.path, "", "")) + hidden


def read_servers(text: str | bytes) -> list[ServerConfig]:
    """The servers in an ``mcpServers`` JSON document (pasted or read from a file).
    ConfigProblem says, in a sentence, what is wrong and where."""
    raw = text.encode("utf-8") if isinstance(text, str) else text
    try:
        document = parse_json(raw)
    except ValueError as exc:
        raise ConfigProblem(Phrase("This is not JSON Hearth can read ({0}).", exc)) from exc
    return servers_from(document)


def servers_from(document: Any) -> list[ServerConfig]:
    """The servers of a parsed document: ``{"mcpServers": {...}}``, ``{"servers": {...}}``
    or the mapping of names to servers itself."""
    if not isinstance(document, dict):
        raise ConfigProblem(Phrase('Expected a JSON object with "mcpServers" in it.'))
    table = document.get("mcpServers", document.get("servers", document))
    if not isinstance(table, dict):
        raise ConfigProblem(Phrase('"mcpServers" should map each server\'s name to its settings.'))
    if len(table) > MAX_SERVERS:
        raise ConfigProblem(Phrase("That is more than {0} servers.", MAX_SERVERS))
    return [server_from(name, entry) for name, entry in table.items()]


def server_from(name: str, entry: Any) -> ServerConfig:
    """One entry of ``mcpServers``."""
    if name.lower() == BUILTIN_NAME:
        raise ConfigProblem(
            Phrase("The name {0} is Hearth's own tools; give the server another name.", name)
        )
    if not SERVER_NAME.match(name):
        raise ConfigProblem(
            Phrase(
                "The server name '{0}' cannot be used: letters, digits, '-', '_' and '.' "
                "only, at most 64.",
                visible(name[:200]),
            )
        )
    if not isinstance(entry, dict):
        raise ConfigProblem(Phrase("The server {0} should be a JSON object.", name))
    kind = str(entry.get("type") or entry.get("transport") or "")
    url = entry.get("url", entry.get("serverUrl", ""))
    enabled = not entry.get("disabled", False)
    if kind == "sse":
        raise ConfigProblem(
            Phrase(
                "The server {0} uses the old SSE transport; Hearth speaks Streamable HTTP. "
                "Give the server's Streamable HTTP URL (often ending in /mcp).",
                name,
            )
        )
    if url:
        if not isinstance(url, str) or not re.match(r"^https?://[^\s]+$", url):
            raise ConfigProblem(Phrase("The server {0}'s url is not an http(s) address.", name))
        headers = _strings(name, "headers", entry.get("headers", {}))
        secret_names = tuple(_string_list(name, "secretHeaders", entry.get("secretHeaders", [])))
        return ServerConfig(
            name,
            url=url,
            headers=tuple(headers.items()),
            secret_headers=secret_names,
            enabled=enabled,
        )
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigProblem(
            Phrase("The server {0} needs a command to start it, or a url to reach it.", name)
        )
    return ServerConfig(
        name,
        command=command.strip(),
        args=tuple(_string_list(name, "args", entry.get("args", []))),
        env=tuple(_strings(name, "env", entry.get("env", {})).items()),
        cwd=str(entry.get("cwd") or ""),
        secret_env=tuple(_string_list(name, "secretEnv", entry.get("secretEnv", []))),
        enabled=enabled,
    )


def _strings(server: str, what: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, (str, int, float)) for k, v in value.items()
    ):
        raise ConfigProblem(Phrase("The server {0}'s {1} should map names to text.", server, what))
    return {k: str(v) for k, v in value.items()}


def _string_list(server: str, what: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigProblem(Phrase("The server {0}'s {1} should be a list of text.", server, what))
    return list(value)


@dataclass
class ToolsConfig:
    """What ``tools.json`` holds: the servers, and the tools always allowed
    (``server/tool``)."""

    servers: list[ServerConfig] = field(default_factory=list)
    always_allow: set[str] = field(default_factory=set)

    def server(self, name: str) -> ServerConfig:
        for server in self.servers:
            if server.name == name:
                return server
        raise KeyError(name)

    def names(self) -> list[str]:
        return [server.name for server in self.servers]


class ToolsFile:
    """``tools.json``: read with repair (a damaged file is set aside and said so), written
    atomically."""

    def __init__(self, data_dir: Path) -> None:
        self.document = JsonDocument(data_dir / FILE_NAME, Phrase("tool servers"))

    @property
    def problem(self) -> str:
        return self.document.problem

    def load(self) -> ToolsConfig:
        return self.document.load(_config_from) or ToolsConfig()

    def save(self, config: ToolsConfig) -> None:
        self.document.save(
            {
                "mcpServers": {server.name: server.to_json() for server in config.servers},
                "alwaysAllow": sorted(config.always_allow),
            }
        )

    def add(
        self, servers: Iterable[ServerConfig], secrets: Mapping[str, str] | None = None
    ) -> ToolsConfig:
        """Add (or replace by name) ``servers`` and keep the config; ``secrets`` maps
        ``server/header`` to a key for the key store."""
        config = self.load()
        kept = {server.name: server for server in config.servers}
        for server in servers:
            old = kept.get(server.name)
            if old is not None and not old.same_program(server):
                # Another program under an old name: its approvals and keys do not carry over.
                self._forget(config, old)
            kept[server.name] = server
        for where, value in (secrets or {}).items():
            name, _, what = where.partition("/")
            set_token(kept[name].key_source(what), value)
        config.servers = list(kept.values())
        self.save(config)
        return config

    def remove(self, name: str) -> ToolsConfig:
        """Remove a server, its *Always allow* choices and its keys."""
        config = self.load()
        for server in config.servers:
            if server.name == name:
                self._forget(config, server)
        config.servers = [s for s in config.servers if s.name != name]
        self.save(config)
        return config

    @staticmethod
    def _forget(config: ToolsConfig, server: ServerConfig) -> None:
        config.always_allow = {
            a for a in config.always_allow if not a.startswith(server.name + "/")
        }
        for source in server.key_sources():
            try:
                set_token(source, "")
            except Exception:  # noqa: BLE001 - no keyring: nothing was kept there
                log.info("could not remove the key %s", source)


def _config_from(document: dict[str, Any]) -> ToolsConfig:
    allowed = document.get("alwaysAllow", [])
    if not isinstance(allowed, list) or not all(isinstance(a, str) for a in allowed):
        raise ValueError("alwaysAllow is not a list of tool names")
    return ToolsConfig(servers_from(document.get("mcpServers", {})), set(allowed))


def split_secrets(servers: Iterable[ServerConfig]) -> tuple[list[ServerConfig], dict[str, str]]:
    """The servers with each secret-looking header taken out, and those values keyed
    ``server/header`` (for the key store, never for the file)."""
    kept: list[ServerConfig] = []
    secrets: dict[str, str] = {}
    for server in servers:
        plain = tuple((k, v) for k, v in server.headers if not SECRET_HEADER.search(k))
        hidden = tuple(k for k, _v in server.headers if SECRET_HEADER.search(k))
        for header, value in server.headers:
            if header in hidden:
                secrets[f"{server.name}/{header}"] = value
        plain_env = tuple((k, v) for k, v in server.env if not SECRET_HEADER.search(k))
        hidden_env = tuple(k for k, _v in server.env if SECRET_HEADER.search(k))
        for name, value in server.env:
            if name in hidden_env:
                secrets[f"{server.name}/env:{name}"] = value
        kept.append(
            replace(
                server,
                headers=plain,
                secret_headers=tuple(dict.fromkeys((*server.secret_headers, *hidden))),
                env=plain_env,
                secret_env=tuple(dict.fromkeys((*server.secret_env, *hidden_env))),
            )
        )
    return kept, secrets
