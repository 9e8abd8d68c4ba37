"""``hearth mcp`` as other programs use it (the SDK's own stdio client), and ``hearth tools``
as a person does: import an ``mcpServers`` JSON, list the tools, forget an approval."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.tools.config import ServerConfig, ToolsConfig, ToolsFile
from tests.conftest import HEARTH, REPO, run_hearth
from tests.documents import pdf
from wire import platforms

pytestmark = pytest.mark.slow  # drives the real app, an engine or a server

FIXTURE = Path(__file__).parent / "tools" / "mcp_fixture_server.py"


def hearth_mcp_session(data_dir: Path, steps: Any) -> Any:
    """Run ``steps(client)`` against ``hearth mcp`` started by the SDK's stdio client."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "hearth", "mcp", "--data-dir", str(data_dir)],
        cwd=str(REPO),
        env={"PYTHONPATH": os.environ.get("PYTHONPATH", "")},
    )

    async def session() -> Any:
        async with Client(params) as client:
            return await steps(client)

    return asyncio.run(asyncio.wait_for(session(), 300))


def test_an_mcp_client_lists_hearths_tools_and_finds_a_fact(data_dir: Path, tmp_path: Path) -> None:
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    pdf(shelf / "atlas.pdf", ["Rivers of the north.", "The river Wombat is 412 km long."])
    (shelf / "notes.md").write_text("# Kettles\nA kettle boils water.\n", encoding="utf-8")
    added = run_hearth("docs", "add", "atlas", str(shelf))
    assert added.returncode == 0, added.stderr

    async def steps(client: Any) -> tuple[Any, ...]:
        tools = await client.list_tools()
        listed = await client.call_tool("list_collections", {})
        found = await client.call_tool(
            "search_documents", {"collection": "atlas", "query": "How long is the river Wombat?"}
        )
        unknown = await client.call_tool("search_documents", {"collection": "no", "query": "x"})
        search = {"collection": "atlas", "query": "river"}
        none = await client.call_tool("search_documents", {**search, "k": 0})
        long = await client.call_tool("search_documents", {**search, "query": "river " * 1500})
        huge = await client.call_tool("search_documents", {**search, "query": "x" * 1_000_000})
        return tools, listed, found, unknown, none, long, huge

    tools, listed, found, unknown, none, long, huge = hearth_mcp_session(data_dir, steps)
    assert none.is_error and "at least one passage" in none.content[0].text, "said, not clamped"
    said_back = long.structured_content["query"]
    assert len(said_back) <= 201 and said_back.endswith("…"), "the query is not echoed whole"
    assert huge.is_error and "1,000,000 characters" in huge.content[0].text
    by_name = {tool.name: tool for tool in tools.tools}
    assert set(by_name) == {"list_collections", "search_documents"}, "read-only, nothing else"
    assert all(tool.annotations.read_only_hint for tool in tools.tools)
    assert listed.structured_content["collections"][0]["name"] == "atlas"
    best = found.structured_content["passages"][0]
    assert best["file"].endswith("atlas.pdf") and best["page"] == 2
    assert "412" in best["text"] and best["score"] > 0
    assert unknown.is_error and "no collection named no" in unknown.content[0].text
    assert "atlas" in unknown.content[0].text, "it names the collections there are"


def test_tools_add_list_and_forget_from_the_command_line(data_dir: Path, tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "fixture": {"command": sys.executable, "args": [str(FIXTURE), str(tmp_path)]},
                    "broken": {"command": str(tmp_path / "no-such-program")},
                    "remote": {
                        "url": "http://127.0.0.1:9/mcp",
                        "headers": {"Authorization": "Bearer s3cret", "X-Team": "blue"},
                        "disabled": True,
                    },
                }
            }
        ),
        encoding="utf-8",
    )
    added = run_hearth("tools", "add", str(config))
    assert added.returncode == 0, added.stderr
    assert "Added the tool server fixture" in added.stdout
    kept = (data_dir / "tools.json").read_text()
    assert "s3cret" not in kept, "a key never goes into the file"
    assert "X-Team" in kept and "Authorization" in kept

    listing = run_hearth("tools", "list", "--json")
    assert listing.returncode == 1, "a server could not start: said, and the exit code says so"
    rows = {row["name"]: row for row in json.loads(listing.stdout)["servers"]}
    names = {tool["name"] for tool in rows["fixture"]["tools"]}
    assert {"echo", "write_note"} <= names
    note = next(t for t in rows["fixture"]["tools"] if t["name"] == "write_note")
    assert note["may"] == ["may change files or data", "may reach the network"]
    assert "could not be started" in rows["broken"]["error"]
    assert rows["remote"]["enabled"] is False and rows["remote"]["tools"] == []
    assert "Traceback" not in listing.stderr

    text = run_hearth("tools", "list")
    assert "fixture: " in text.stdout and "  echo [read-only]" in text.stdout

    file = ToolsFile(data_dir)
    file.save(ToolsConfig(file.load().servers, {"fixture/write_note"}))
    forgot = run_hearth("tools", "forget", "fixture/write_note")
    assert forgot.returncode == 0 and "ask again" in forgot.stdout
    assert ToolsFile(data_dir).load().always_allow == set()
    removed = run_hearth("tools", "remove", "broken")
    assert removed.returncode == 0
    assert ToolsFile(data_dir).load().names() == ["fixture", "remote"]


def test_a_bad_mcp_servers_file_is_one_sentence(data_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    for text, said in (
        ("{not json", "not JSON"),
        ('{"mcpServers": {"x": {"args": []}}}', "needs a command to start it, or a url"),
        ('{"mcpServers": {"x": {"type": "sse", "url": "http://h/sse"}}}', "Streamable HTTP"),
        ('{"mcpServers": {"bad name!": {"command": "x"}}}', "cannot be used"),
    ):
        bad.write_text(text, encoding="utf-8")
        result = run_hearth("tools", "add", str(bad))
        assert result.returncode == 1 and said in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert not (data_dir / "tools.json").exists(), "nothing half-added"


def test_a_server_config_keeps_what_a_claude_desktop_file_says() -> None:
    from app.tools.config import read_servers, split_secrets

    servers = read_servers(
        '{"mcpServers": {"files": {"command": "npx", "args": ["-y", "server-filesystem", "/d"],'
        ' "env": {"DEBUG": 1}, "cwd": "/w"}, "web": {"type": "http", "url": "https://h/mcp",'
        ' "headers": {"X-Api-Key": "k"}}}}'
    )
    files, web = servers
    assert files == ServerConfig(
        "files",
        command="npx",
        args=("-y", "server-filesystem", "/d"),
        env=(("DEBUG", "1"),),
        cwd="/w",
    )
    assert files.describe() == "npx -y server-filesystem /d" and files.transport == "stdio"
    (plain, secret), keys = split_secrets([files, web])
    assert secret.headers == () and secret.secret_headers == ("X-Api-Key",)
    assert keys == {"web/X-Api-Key": "k"} and plain == files


def test_hearth_chat_calls_a_tool_of_an_mcp_config_and_says_so_in_json(
    data_dir: Path, tmp_path: Path
) -> None:
    """The real starter model, made to call a tool (``--tool-choice required``): the call
    and its result are events of ``--json``; without ``--yes`` and no terminal to ask on,
    the call is denied and the note says which flag allows it."""
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {"mcpServers": {"fixture": {"command": sys.executable, "args": [str(FIXTURE)]}}}
        ),
        encoding="utf-8",
    )
    flags = ["--mcp-config", str(config), "--tool-choice", "required", "--max-tool-calls", "1"]
    flags += ["--max-tokens", "48", "--temperature", "0", "--json"]
    # A tool without arguments: the forced call is short, never cut by the token limit.
    allowed = run_hearth(
        "chat", *flags, "--allow-tool", "headers", "--tools", "fixture/headers", "Headers?"
    )
    assert allowed.returncode == 0, allowed.stderr
    events = [json.loads(line) for line in allowed.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert "tool_call" in kinds and "tool_result" in kinds and kinds[-1] == "done"
    called = next(e for e in events if e["type"] == "tool_call")
    result = next(e for e in events if e["type"] == "tool_result")
    assert (called["server"], called["tool"]) == ("fixture", "headers")
    assert result["call_id"] == called["call_id"] and result["status"] == "done"
    assert not any("<tool_call>" in e.get("text", "") for e in events if e["type"] == "delta")

    one = run_hearth("chat", *flags, "--yes", "--tools", "fixture/no_such_tool", "Hi.")
    assert one.returncode == 1 and "There is no tool fixture/no_such_tool" in one.stderr

    asked = subprocess.run(
        [*HEARTH, "chat", *flags, "--tools", "fixture/crash", "Crash?"],
        capture_output=True,
        text=True,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        **platforms.without_terminal(),  # no terminal to ask on
        timeout=600,
        check=False,
    )
    assert asked.returncode == 0, asked.stderr
    denied = next(json.loads(x) for x in asked.stdout.splitlines() if '"tool_result"' in x)
    assert denied["status"] == "denied"
    assert "there is no terminal to ask on" in asked.stderr and "--allow-tool" in asked.stderr


def test_a_server_replaced_under_its_name_loses_its_approvals_and_keys(data_dir: Path) -> None:
    from app.secrets import get_token
    from app.tools.config import ConfigProblem, read_servers, split_secrets

    file = ToolsFile(data_dir)
    first, keys = split_secrets(
        read_servers('{"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GH_TOKEN": "t0k"}}}}')
    )
    assert first[0].env == () and first[0].secret_env == ("GH_TOKEN",), "the key left the file"
    file.add(first, keys)
    assert "t0k" not in (data_dir / "tools.json").read_text()
    assert ToolsFile(data_dir).load().servers[0].all_env() == {"GH_TOKEN": "t0k"}
    file.save(ToolsConfig(file.load().servers, {"gh/create_issue"}))
    same = read_servers('{"mcpServers": {"gh": {"command": "gh-mcp", "secretEnv": ["GH_TOKEN"]}}}')
    assert file.add(same).always_allow == {"gh/create_issue"}, "the same program keeps them"
    other = read_servers('{"mcpServers": {"gh": {"command": "other-program"}}}')
    assert file.add(other).always_allow == set(), "another program starts from nothing"
    assert get_token(first[0].key_source("env:GH_TOKEN")) is None
    try:
        read_servers('{"mcpServers": {"hearth": {"command": "x"}}}')
    except ConfigProblem as exc:
        assert "Hearth's own tools" in str(exc)
    else:
        raise AssertionError("the built-in tools' name was taken")
