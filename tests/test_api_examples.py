"""Every example the API server panel and the README show, run as a person pastes it:
Python compiled and run against a real ``hearth serve``, curl run, the MCP clients'
configuration started as an MCP client starts it.  The panel's OpenAI example once did
not compile (a comment swallowed its closing parenthesis)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.serve.examples import KEY_VARIABLE, examples
from tests.conftest import HEARTH, REPO, free_port

pytestmark = pytest.mark.slow
KEY = "an-example-key"
README_PORT = "8765"


@pytest.fixture
def served(data_dir: Path, tmp_path: Path) -> Iterator[tuple[int, int]]:
    """Two servers of the same library: one without a key, one that requires ``KEY``."""
    key_file = tmp_path / "key"
    key_file.write_text(KEY, encoding="utf-8")
    key_file.chmod(0o600)
    ports = free_port(), free_port()
    servers = [
        subprocess.Popen(
            [*HEARTH, "serve", "--port", str(port), "--ctx", "2048", *flags],
            cwd=REPO,
            stderr=subprocess.PIPE,
            text=True,
        )
        for port, flags in zip(ports, ([], ["--api-key-file", str(key_file)]), strict=True)
    ]
    try:
        for server in servers:
            assert server.stderr is not None and "Serving" in server.stderr.readline()
        yield ports
    finally:
        for server in servers:
            server.terminate()
            server.wait(15)
            assert server.stderr is not None
            server.stderr.close()


def run_python(code: str, env: dict[str, str]) -> str:
    compile(code, "example.py", "exec")  # as pasted: it must compile first
    ran = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


@pytest.mark.parametrize("keyed", [False, True], ids=["no key", "key"])
def test_every_example_of_the_panel_runs_against_the_server(
    served: tuple[int, int], data_dir: Path, keyed: bool
) -> None:
    port = served[1] if keyed else served[0]
    env = {KEY_VARIABLE: KEY} if keyed else {}
    shown = {e.key: e.text for e in examples("127.0.0.1", port, "hearth", keyed, str(data_dir))}
    assert run_python(shown["openai"], env).strip(), "the OpenAI client printed a reply"
    assert run_python(shown["ollama"], env).strip(), "the Ollama client printed a reply"
    if shutil.which("curl") is not None:
        curled = subprocess.run(
            ["bash", "-c", shown["curl"]],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            timeout=300,
            check=False,
        )
        assert curled.returncode == 0, curled.stderr
        assert json.loads(curled.stdout)["choices"][0]["message"]["content"], curled.stdout
    server = json.loads(shown["mcp"])["mcpServers"]["hearth"]
    assert server["env"] == {"HEARTH_DATA_DIR": str(data_dir)}, "the same collections"
    assert [t.name for t in mcp_tools(server)] == ["list_collections", "search_documents"]


def mcp_tools(server: dict[str, Any]) -> list[Any]:
    """The tools of the configured server, started as an MCP client starts it."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=server["command"], args=server["args"], env=server.get("env"), cwd=str(REPO)
    )

    async def listed() -> list[Any]:
        async with Client(params) as client:
            return list((await client.list_tools()).tools)

    return asyncio.run(asyncio.wait_for(listed(), 300))


def readme_blocks(language: str) -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


def test_the_readmes_api_examples_run_against_the_server(
    served: tuple[int, int], data_dir: Path, tmp_path: Path
) -> None:
    """The README's Python for the API (the documents option) against a library with the
    collection it names, on the server's port in place of 8765."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "ferry.md").write_text("# Ferry\nThe ferry leaves at 08:15.\n", encoding="utf-8")
    added = subprocess.run(
        [*HEARTH, "docs", "add", "notes", str(notes)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert added.returncode == 0, added.stderr
    api = [b for b in readme_blocks("python") if f"127.0.0.1:{README_PORT}" in b]
    assert api, "the README shows the API from Python"
    for block in api:
        code = block.replace(f"127.0.0.1:{README_PORT}", f"127.0.0.1:{served[0]}")
        printed = run_python(code, {})
        assert "ferry" in printed.lower(), printed
    configs = [json.loads(b) for b in readme_blocks("json") if "mcpServers" in b]
    assert configs, "the README shows an MCP client's configuration"
    for config in configs:
        for server in config["mcpServers"].values():
            # "hearth" as the installers put it on PATH; here, this environment's own.
            command = shutil.which(server["command"]) or str(
                Path(sys.executable).parent / server["command"]
            )
            started = {**server, "command": command, "env": {"HEARTH_DATA_DIR": str(data_dir)}}
            assert "search_documents" in [t.name for t in mcp_tools(started)]
