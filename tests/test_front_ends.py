"""The three front ends (window, ``hearth chat``, ``hearth serve``) behave alike: the same
reply gives the same answer and the same thinking everywhere, and what ``hearth chat
--save`` keeps is a conversation the window shows."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pytestqt.qtbot import QtBot

from app import cli
from app.chat import store as st
from app.cli.chat import cmd_chat
from app.core import Core, open_core
from app.engine.host import EngineHost
from app.models.library import ModelEntry
from tests.api_helpers import serving_one
from tests.conftest import HEARTH, REPO, free_port, made_models, made_once, run_hearth
from tests.gui_helpers import MARK, open_window, scripted_window, send_and_wait

pytestmark = pytest.mark.slow

# A tag split across deltas, as a tokenizer does it.
THINKING = MARK.join(["<thi", "nk>Two and", " two.</th", "ink>It is", " 4."])
# SmolLM2's ChatML template, ending the prompt with <think> as DeepSeek-R1's distills do.
OPENS_THINKING = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n<think>\n{% endif %}"
)
GREEDY = {"temperature": 0.0, "seed": 1, "max_tokens": 16}


@pytest.fixture(scope="session")
def thinking_model(starter: Path) -> Path:
    """The starter model with a template that opens <think> itself (made once, cached)."""
    target = made_models() / "smollm2-opens-thinking.gguf"
    with made_once(target):
        if not target.is_file():
            partial = target.with_suffix(".partial")
            # (on Windows: gguf-new-metadata.exe, beside the interpreter)
            tool = Path(
                shutil.which("gguf-new-metadata", path=str(Path(sys.executable).parent)) or ""
            )
            subprocess.run(
                [str(tool), str(starter), str(partial), "--chat-template", OPENS_THINKING],
                check=True,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=300,
            )
            partial.replace(target)
    return target


def cli_json(core: Core, entry: ModelEntry, prompt: str, *flags: str) -> list[dict[str, Any]]:
    """``hearth chat --json`` in this process, with ``entry`` as the model."""
    args = cli.parse(["chat", "--json", *flags, prompt])

    def find_model(_name: str | None = None, _models: object = None) -> ModelEntry:
        return entry

    core.find_model = find_model  # type: ignore[method-assign,assignment]
    out = io.StringIO()
    assert cmd_chat(core, args, out) == cli.EXIT_OK
    return [json.loads(line) for line in out.getvalue().splitlines()]


def split(events: list[dict[str, Any]]) -> tuple[str, str]:
    """(thinking, answer) as the deltas of ``hearth chat --json`` carry them."""
    deltas = [e for e in events if e["type"] == "delta"]
    return "".join(e.get("reasoning", "") for e in deltas), "".join(e["text"] for e in deltas)


@pytest.fixture
def served_script(core: Core, data_dir: Path) -> Iterator[tuple[str, Path]]:
    """hearth serve's app in this process, on a scripted model; yields (base URL, script)."""
    script = data_dir / "served.script.txt"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(THINKING, encoding="utf-8")
    entry = ModelEntry("Scripted", script, "synthetic", len(THINKING), "file")
    host = EngineHost(data_dir / "logs")
    with serving_one(host, core.model_spec(entry), "scripted") as url:
        yield f"{url}/v1", script
    host.close()


def served_reply(base: str, stream: bool, **params: Any) -> tuple[str, str]:
    """(reasoning_content, content) of one request, streamed or not."""
    body = {"model": "m", "messages": [{"role": "user", "content": "2+2?"}], **params}
    if not stream:
        response = httpx.post(f"{base}/chat/completions", json=body, timeout=120)
        message = response.json()["choices"][0]["message"]
        return message.get("reasoning_content", ""), message["content"]
    thinking, answer = [], []
    with httpx.stream(
        "POST", f"{base}/chat/completions", json={**body, "stream": True}, timeout=120
    ) as response:
        for line in response.iter_lines():
            if line.startswith("data: {"):
                for choice in json.loads(line[6:]).get("choices", []):
                    thinking.append(choice["delta"].get("reasoning_content") or "")
                    answer.append(choice["delta"].get("content") or "")
    return "".join(thinking), "".join(answer)


def test_a_scripted_reply_thinks_and_answers_alike_everywhere(
    qtbot: QtBot, core: Core, served_script: tuple[str, Path]
) -> None:
    expected = ("Two and two.", "It is 4.")
    window = scripted_window(qtbot, core, THINKING)
    result = send_and_wait(qtbot, window, "2+2?")
    saved = window.store.message(int(str(result["message_id"])))
    assert (saved.reasoning, saved.content) == expected
    assert "Thought for" in window.chat.transcript.toPlainText()  # folded once answered

    entry = ModelEntry("Scripted", served_script[1], "synthetic", len(THINKING), "file")
    assert split(cli_json(core, entry, "2+2?")) == expected
    hidden = cli_json(core, entry, "2+2?", "--hide-reasoning")
    assert split(hidden) == ("", "It is 4.")

    base, _script = served_script
    assert served_reply(base, stream=False) == expected
    assert served_reply(base, stream=True) == expected


def test_a_stop_string_split_across_deltas_is_never_shown(
    served_script: tuple[str, Path],
) -> None:
    """The script's last two deltas are "ink>It is" and " 4.": the stop string "s 4" spans
    them, and what came before it is all that the client receives."""
    base, _script = served_script
    for stream in (False, True):
        assert served_reply(base, stream, stop=["s 4", "never said"]) == ("Two and two.", "It i")


def streamed_chunks(base: str, **params: Any) -> list[dict[str, Any]]:
    body = {"model": "m", "messages": [{"role": "user", "content": "2+2?"}], "stream": True}
    with httpx.stream(
        "POST", f"{base}/chat/completions", json={**body, **params}, timeout=120
    ) as response:
        return [json.loads(line[6:]) for line in response.iter_lines() if line[6:7] == "{"]


def test_usage_is_streamed_when_asked_in_a_last_chunk_without_choices(
    served_script: tuple[str, Path],
) -> None:
    base, _script = served_script
    assert not any("usage" in chunk for chunk in streamed_chunks(base)), "not unasked"
    asked = streamed_chunks(base, stream_options={"include_usage": True})
    assert asked[-1]["choices"] == [] and asked[-1]["usage"]["completion_tokens"] == 5
    assert all(chunk["usage"] is None and chunk["choices"] for chunk in asked[:-1])
    two = streamed_chunks(base, n=2, stream_options={"include_usage": True})
    assert two[-1]["usage"]["completion_tokens"] == 10, "both choices counted"
    assert {c["choices"][0]["index"] for c in two[:-1]} == {0, 1}


def test_a_template_that_opens_thinking_gives_the_same_thinking_everywhere(
    qtbot: QtBot, core: Core, data_dir: Path, thinking_model: Path
) -> None:
    """llama.cpp with a template that ends the prompt with <think>: everything the model
    writes is thinking, the same in the window, on the command line and from the server."""
    flags = ["--temperature", "0", "--seed", "1", "--max-tokens", "16"]
    result = run_hearth("chat", "--json", "--model", str(thinking_model), *flags, "2+2?")
    assert result.returncode == 0, result.stderr
    thinking, answer = split([json.loads(line) for line in result.stdout.splitlines()])
    assert thinking.strip() and "<think>" not in thinking and answer == ""
    plain = run_hearth("chat", "--model", str(thinking_model), *flags, "2+2?")
    assert plain.stdout.strip() == "" and thinking.strip() in plain.stderr

    port = free_port()
    server = subprocess.Popen(
        [*HEARTH, "serve", "--model", str(thinking_model), "--port", str(port)],
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        assert any("Serving" in line for line in server.stderr), "the server did not start"
        base = f"http://127.0.0.1:{port}/v1"
        assert served_reply(base, stream=False, **GREEDY) == (thinking, "")
        assert served_reply(base, stream=True, **GREEDY) == (thinking, "")
        # JSON by grammar leaves no room to think: the whole reply is the answer.
        as_json = {**GREEDY, "max_tokens": 200, "response_format": {"type": "json_object"}}
        no_thinking, shaped = served_reply(base, stream=False, **as_json)
        assert no_thinking == "" and isinstance(json.loads(shaped), dict)
    finally:
        server.terminate()
        server.wait(15)
        if server.stderr:
            server.stderr.close()

    window = open_window(qtbot, open_core(data_dir))
    with qtbot.waitSignal(window.model_loaded, timeout=300_000):
        window.chat.model_bar.add_model_file(thinking_model)  # read in the background
    window.chat.sampling_overrides = dict(GREEDY)
    result_event = send_and_wait(qtbot, window, "2+2?")
    saved = window.store.message(int(str(result_event["message_id"])))
    assert (saved.reasoning, saved.content) == (thinking, "")


def test_what_hearth_chat_saves_the_window_shows_and_it_can_go_on(
    qtbot: QtBot, data_dir: Path
) -> None:
    first = run_hearth("chat", "--save", "--max-tokens", "8", "Name a colour.")
    assert first.returncode == 0, first.stderr
    assert "saved as conversation 1" in first.stderr
    again = run_hearth("chat", "--continue", "1", "--json", "--max-tokens", "8", "And another?")
    assert again.returncode == 0, again.stderr
    saved_event = json.loads(again.stdout.splitlines()[-1])
    assert saved_event["type"] == "saved" and saved_event["conversation_id"] == 1

    window = open_window(qtbot, open_core(data_dir))
    assert window.chat.conversation_list.titles() == ["Name a colour."]
    window.chat.conversation_list.select_id(1)
    messages = window.store.messages(1)
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    assert all(m.status in (st.COMPLETE, st.LENGTH) for m in messages)
    assert "And another?" in window.chat.transcript.toPlainText()

    missing = run_hearth("chat", "--continue", "7", "Hello?")
    assert missing.returncode == 1 and "no conversation 7" in missing.stderr
    assert "Traceback" not in missing.stderr
    unsaved = run_hearth("chat", "--max-tokens", "4", "Not kept.")
    assert unsaved.returncode == 0 and "saved" not in unsaved.stderr
    assert len(open_core(data_dir).open_store().conversations()) == 1
