"""Ollama's and Anthropic's dialects of ``hearth serve``, with their official Python
clients: a scripted thinking model for the exact shapes (thinking apart from the answer,
the stop sequence named, NDJSON and named events), the real starter model for what only a
real engine shows (an answer, JSON held to a schema), and every refusal in its dialect's
own shape."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anthropic
import httpx
import ollama
import openai
import pytest

from app.core import Core
from app.engine.host import EngineHost
from app.models.library import ModelEntry
from tests.api_helpers import PIXEL, hearth_serve, serving_one
from tests.conftest import kill_hard
from tests.gui_helpers import MARK
from wire import protocol
from wire.model_spec import ModelSpec

pytestmark = pytest.mark.slow

THINKING = MARK.join(["<thi", "nk>Two and", " two.</th", "ink>It is", " 4."])
SCRIPTED = "scripted.Q4_K_M"
STARTER = "SmolLM2-135M-Instruct.Q4_1"  # hearth serve offers the library: requests name it


@contextmanager
def serving_script(core: Core, data_dir: Path, text: str) -> Iterator[str]:
    """hearth serve's app in this process on a scripted model that replays ``text``;
    yields its URL."""
    script = data_dir / "served.script.txt"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(text, encoding="utf-8")
    entry = ModelEntry(
        SCRIPTED, script, "synthetic", len(text), "file", "llama", quantization="Q4_K_M"
    )
    host = EngineHost(data_dir / "logs")
    try:
        with serving_one(host, core.model_spec(entry), SCRIPTED, entry.as_json()) as url:
            yield url
    finally:
        host.close()


@pytest.fixture
def scripted(core: Core, data_dir: Path) -> Iterator[str]:
    """A scripted thinking model that answers "It is 4." after thinking "Two and two."."""
    with serving_script(core, data_dir, THINKING) as url:
        yield url


@pytest.fixture
def served(data_dir: Path) -> Iterator[tuple[str, Path]]:
    """``hearth serve`` on the starter model; yields (URL, worker log)."""
    with hearth_serve(data_dir) as (port, log):
        yield f"http://127.0.0.1:{port}", log


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    """Closes the clients a test opens (their pooled sockets would be a ResourceWarning)."""
    with ExitStack() as opened:
        yield opened


def chat_requests(log: Path) -> int:
    """Chat requests the workers have received (none before a model was first loaded)."""
    return log.read_text().count("request chat") if log.exists() else 0


# -- Ollama ------------------------------------------------------------------------------


def test_ollama_lists_and_describes_the_model_as_ollama_does(
    stack: ExitStack, scripted: str
) -> None:
    client = stack.enter_context(ollama.Client(host=scripted))
    listed = client.list().models
    assert [m.model for m in listed] == ["scripted:q4_k_m"]
    assert listed[0].details is not None and listed[0].details.quantization_level == "Q4_K_M"
    assert listed[0].size == len(THINKING) and listed[0].digest
    shown = client.show("scripted:q4_k_m")
    assert shown.details is not None and shown.details.family == "llama"
    with pytest.raises(ollama.ResponseError) as missing:
        client.show("llama3:8b")
    assert missing.value.status_code == 404 and "scripted:q4_k_m" in missing.value.error
    assert httpx.get(f"{scripted}/api/version").json()["version"]
    client.chat(model="scripted:q4_k_m", messages=[{"role": "user", "content": "2+2?"}])
    running = client.ps().models
    assert [m.model for m in running] == ["scripted:q4_k_m"]
    assert running[0].size and running[0].size > 0, "the worker's memory"


def test_ollama_chat_and_generate_keep_thinking_apart_streamed_or_not(
    stack: ExitStack, scripted: str
) -> None:
    client = stack.enter_context(ollama.Client(host=scripted))
    asked = [{"role": "user", "content": "2+2?"}]
    whole = client.chat(model="scripted:q4_k_m", messages=asked, stream=False)
    assert (whole.message.thinking, whole.message.content) == ("Two and two.", "It is 4.")
    assert whole.done and whole.done_reason == "stop" and whole.eval_count == 5
    parts = list(client.chat(model="scripted:q4_k_m", messages=asked, stream=True))
    assert "".join(p.message.thinking or "" for p in parts) == "Two and two."
    assert "".join(p.message.content for p in parts) == "It is 4."
    assert [p.done for p in parts].count(True) == 1 and parts[-1].done
    generated = client.generate(model="scripted:q4_k_m", prompt="2+2?", stream=False)
    assert (generated.thinking, generated.response) == ("Two and two.", "It is 4.")
    pieces = client.generate(
        model="scripted:q4_k_m", prompt="2+2?", options={"stop": ["s 4"]}, stream=True
    )
    assert "".join(p.response for p in pieces) == "It i", "options reach the engine"
    loaded = client.generate(model="scripted:q4_k_m", prompt="")
    assert loaded.done_reason == "load", "an empty prompt only loads the model"


def test_a_body_without_a_content_type_is_read_as_json(scripted: str) -> None:
    """Ollama's own ``curl -d '{…}'`` examples, and litellm's Ollama providers, send no
    Content-Type (curl's default form type, or none): the body is JSON all the same; one
    that is not JSON is refused in the route's dialect."""
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "2+2?"}]})
    for headers in ({}, {"Content-Type": "application/x-www-form-urlencoded"}):
        answered = httpx.post(
            f"{scripted}/api/chat", content=body + "\n", headers=headers, timeout=60
        )
        assert answered.status_code == 200, answered.text
        lines = [json.loads(line) for line in answered.text.splitlines()]
        assert "".join(line["message"]["content"] for line in lines) == "It is 4."
    generated = httpx.post(
        f"{scripted}/api/generate", content=json.dumps({"prompt": "2+2?", "stream": False})
    )
    assert generated.json()["response"] == "It is 4."
    broken = httpx.post(f"{scripted}/api/chat", content="{not json")
    assert broken.status_code == 400 and "not valid JSON" in broken.json()["error"]
    openai_shape = httpx.post(f"{scripted}/v1/chat/completions", content="[1, 2]")
    assert openai_shape.status_code == 400 and openai_shape.json()["error"]["message"]


@pytest.mark.parametrize(
    ("route", "body", "status", "says"),
    [
        ("/api/pull", {"model": "llama3"}, 403, "does not change its models"),
        ("/api/create", {"model": "x", "from": "y"}, 403, "does not change its models"),
        ("/api/delete", {"model": "x"}, 403, "does not change its models"),
        ("/api/copy", {"source": "x", "destination": "y"}, 403, "does not change its models"),
        ("/api/push", {"model": "x"}, 403, "does not change its models"),
        ("/api/embed", {"model": "x", "input": "hi"}, 400, "embeddings need a GGUF model"),
        ("/api/embed", {"model": "x", "input": []}, 400, "1 to 256 inputs"),
        ("/api/chat", {"model": "x", "messages": [{"role": "wizard"}]}, 400, "messages.0.role"),
        ("/api/chat", {"messages": [{"role": "user", "images": [PIXEL]}]}, 400, "images are not"),
        ("/api/chat", {"messages": [{"role": "user", "images": ["AA=="]}]}, 400, "not a PNG"),
        ("/api/generate", {"prompt": "hi", "options": {"temperature": 9}}, 400, "temperature"),
        ("/api/nothing", {}, 404, "Not Found"),
        ("/api/embed", {"model": "x", "input": "x" * 5_000_000}, 413, "4 MB"),
        ("/api/chat", {"messages": [{"role": "user", "content": "x" * 60_000_000}]}, 413, "57 MB"),
    ],
)
def test_ollama_refusals_come_in_ollamas_shape_and_reach_no_engine(
    scripted: str, data_dir: Path, route: str, body: dict[str, Any], status: int, says: str
) -> None:
    log = data_dir / "logs" / "worker.log"
    before = chat_requests(log) if log.exists() else 0
    response = httpx.post(f"{scripted}{route}", json=body, timeout=30)
    assert response.status_code == status
    assert says in response.json()["error"]
    assert (chat_requests(log) if log.exists() else 0) == before


def test_ollama_with_the_real_engine_answers_and_holds_json_to_the_format(
    stack: ExitStack,
    served: tuple[str, Path],
) -> None:
    base, _log = served
    client = stack.enter_context(ollama.Client(host=base))
    name = client.list().models[0].model
    assert name == "smollm2-135m-instruct:q4_1"
    greedy = {"temperature": 0, "num_predict": 30}
    reply = client.chat(
        model=name, messages=[{"role": "user", "content": "What is 2+2?"}], options=greedy
    )
    assert "4" in reply.message.content and reply.prompt_eval_count
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": 30}, "big": {"type": "boolean"}},
        "required": ["city", "big"],
        "additionalProperties": False,
    }
    shaped = client.generate(
        model=name,
        prompt="Tell me about Paris.",
        format=schema,
        options={"num_predict": 80, "temperature": 0},
    )
    value = json.loads(shaped.response)
    assert set(value) == {"city", "big"} and isinstance(value["big"], bool)
    anything = client.generate(
        model=name,
        prompt="Describe a cat.",
        format="json",
        options={"temperature": 0, "num_predict": 300},
    )
    assert anything.done_reason == "stop", "the grammar closed the object"
    assert isinstance(json.loads(anything.response), dict)
    raw = client.generate(model=name, prompt="The capital of France is", raw=True, options=greedy)
    assert "Paris" in raw.response, "a raw prompt is continued, not answered"
    embedded = client.embed(model=name, input=["The cat sat on the mat.", "A kitten slept."])
    assert len(embedded.embeddings) == 2 and len(embedded.embeddings[0]) == 576
    assert embedded.prompt_eval_count and embedded.prompt_eval_count > 4
    older = client.embeddings(model=name, prompt="The cat sat on the mat.")
    assert list(older.embedding) == pytest.approx(list(embedded.embeddings[0]), abs=1e-6)


# -- Anthropic ---------------------------------------------------------------------------


def test_anthropic_messages_give_thinking_and_text_blocks_streamed_or_not(
    stack: ExitStack, scripted: str
) -> None:
    client = stack.enter_context(anthropic.Anthropic(base_url=scripted, api_key="unused"))
    asked: Any = [{"role": "user", "content": "2+2?"}]
    message = client.messages.create(model="m", max_tokens=100, messages=asked)
    kinds = [
        (block.type, getattr(block, "thinking", getattr(block, "text", "")))
        for block in message.content
    ]
    assert kinds == [("thinking", "Two and two."), ("text", "It is 4.")]
    assert message.stop_reason == "end_turn" and message.usage.output_tokens == 5
    with client.messages.stream(model="m", max_tokens=100, messages=asked) as stream:
        events = [event.type for event in stream]
        final = stream.get_final_message()
    assert [
        (b.type, getattr(b, "thinking", getattr(b, "text", ""))) for b in final.content
    ] == kinds
    assert events[0] == "message_start" and events[-1] == "message_stop"
    assert events.count("content_block_start") == events.count("content_block_stop") == 2
    stopped = client.messages.create(
        model="m", max_tokens=100, messages=asked, stop_sequences=["never", "s 4"]
    )
    assert (stopped.stop_reason, stopped.stop_sequence) == ("stop_sequence", "s 4")
    assert stopped.content[-1].type == "text" and stopped.content[-1].text == "It i"
    cut = client.messages.create(model="m", max_tokens=2, messages=asked)
    assert cut.stop_reason == "max_tokens"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (
            {"tools": [{"name": "f"}], "tool_choice": {"type": "tool", "name": "g"}},
            "not among the tools",
        ),
        ({"tool_choice": {"type": "any"}}, "needs tools"),
        ({"max_tokens": 0}, "max_tokens"),
        (
            {"messages": [{"role": "user", "content": [{"type": "document"}]}]},
            "document blocks are not read here",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "image", "source": {"type": "base64", "data": PIXEL}}],
                    }
                ]
            },
            "images are not read by this server's model",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "hologram"}]}]},
            "'hologram'",
        ),
        ({"messages": [{"role": "system", "content": "x"}]}, "messages.0.role"),
        ({"stop_sequences": ["a", "b", "c", "d", "e"]}, "stop_sequences"),
    ],
)
def test_anthropic_refusals_come_in_anthropics_shape_and_reach_no_engine(
    stack: ExitStack, scripted: str, data_dir: Path, body: dict[str, Any], says: str
) -> None:
    client = stack.enter_context(anthropic.Anthropic(base_url=scripted, api_key="unused"))
    request: dict[str, Any] = {
        "model": "m",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}],
        **body,
    }
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.messages.create(**request)
    assert refused.value.body["type"] == "error"  # type: ignore[index]
    assert says in refused.value.body["error"]["message"]  # type: ignore[index]
    log = data_dir / "logs" / "worker.log"
    assert not log.exists() or chat_requests(log) == 0


def test_anthropic_with_the_real_engine_answers_and_holds_output_to_the_schema(
    stack: ExitStack,
    served: tuple[str, Path],
) -> None:
    base, _log = served
    client = stack.enter_context(anthropic.Anthropic(base_url=base, api_key="unused"))
    reply = client.messages.create(
        model=STARTER,
        max_tokens=30,
        system="Answer briefly.",
        messages=[{"role": "user", "content": "What is 2+2?"}],
        extra_body={"temperature": 0},  # as older clients and other SDKs send it
    )
    assert reply.content[0].type == "text" and "4" in reply.content[0].text
    again = client.messages.create(
        model=STARTER,
        max_tokens=30,
        system="Answer briefly.",
        messages=[
            {"role": "user", "content": "What is 2+2?"},
            {"role": "assistant", "content": reply.content[0].text},
            {"role": "user", "content": "And 3+3?"},
        ],
        extra_body={"temperature": 0},
    )
    usage = again.usage
    assert (
        usage.cache_read_input_tokens and usage.cache_read_input_tokens >= reply.usage.input_tokens
    )
    assert usage.input_tokens < 30, "only the new turn was read, the rest came from the cache"
    short = client.messages.count_tokens(
        model=STARTER, messages=[{"role": "user", "content": "What is 2+2?"}]
    )
    long = client.messages.count_tokens(
        model=STARTER,
        system="Answer briefly.",
        messages=[{"role": "user", "content": "What is 2+2? " * 10}],
    )
    assert 0 < short.input_tokens < long.input_tokens, "what the model would read, counted"
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": 30}, "people": {"type": "integer"}},
        "required": ["city", "people"],
        "additionalProperties": False,
    }
    shaped = client.messages.create(
        model=STARTER,
        max_tokens=120,
        messages=[{"role": "user", "content": "Tell me about Paris."}],
        output_config={"format": {"type": "json_schema", "schema": schema}},
        extra_body={"temperature": 0},
    )
    assert shaped.content[0].type == "text"
    value = json.loads(shaped.content[0].text)
    assert set(value) == {"city", "people"} and isinstance(value["people"], int)


# -- OpenAI tools with the exact formats ---------------------------------------------------

WEATHER_TOOL: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city now",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "maxLength": 30}},
            "required": ["city"],
        },
    },
}
CALLS = MARK.join(
    [
        "Let me look",
        " that up.\n<tool",
        '_call>\n{"name": "get_weather", ',
        '"arguments": {"city": "Paris"}}\n</tool_call>',
    ]
)


def test_a_scripted_tool_call_comes_back_as_openai_tool_calls(
    core: Core, data_dir: Path, stack: ExitStack
) -> None:
    """Words before the call stay content; the call, split across deltas, is never shown
    as text; the reply ends with finish_reason tool_calls, streamed or not."""
    url = stack.enter_context(serving_script(core, data_dir, CALLS))
    client = stack.enter_context(openai.OpenAI(base_url=f"{url}/v1", api_key="unused"))
    asked: Any = [{"role": "user", "content": "Weather in Paris?"}]
    reply = client.chat.completions.create(model="m", messages=asked, tools=[WEATHER_TOOL])
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Let me look that up."
    assert choice.message.tool_calls is not None
    (call,) = choice.message.tool_calls
    assert call.type == "function" and call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    text, calls, finish = "", [], None
    for chunk in client.chat.completions.create(
        model="m",
        messages=asked,
        tools=[WEATHER_TOOL],
        stream=True,
    ):
        delta = chunk.choices[0].delta
        text += delta.content or ""
        calls += delta.tool_calls or []
        finish = chunk.choices[0].finish_reason or finish
    assert text == "Let me look that up.\n" and finish == "tool_calls"
    assert [(c.index, c.function.name) for c in calls if c.function] == [(0, "get_weather")]
    plain = client.chat.completions.create(model="m", messages=asked)
    assert "<tool_call>" in (plain.choices[0].message.content or ""), "no tools: only text"


def test_a_scripted_tool_call_in_ollamas_and_anthropics_shapes(
    core: Core, data_dir: Path, stack: ExitStack
) -> None:
    url = stack.enter_context(serving_script(core, data_dir, CALLS))
    asked: Any = [{"role": "user", "content": "Weather in Paris?"}]
    local = stack.enter_context(ollama.Client(host=url))
    reply = local.chat(model="m", messages=asked, tools=[WEATHER_TOOL])
    assert reply.message.content == "Let me look that up."
    assert [
        (c.function.name, dict(c.function.arguments)) for c in reply.message.tool_calls or []
    ] == [("get_weather", {"city": "Paris"})]
    lines = list(local.chat(model="m", messages=asked, tools=[WEATHER_TOOL], stream=True))
    assert "".join(line.message.content for line in lines) == "Let me look that up.\n"
    streamed = [c for line in lines for c in line.message.tool_calls or []]
    assert [c.function.name for c in streamed] == ["get_weather"] and lines[-1].done
    claude = stack.enter_context(anthropic.Anthropic(base_url=url, api_key="unused"))
    tool: Any = {
        "name": "get_weather",
        "description": "The weather in a city now",
        "input_schema": WEATHER_TOOL["function"]["parameters"],
    }
    message = claude.messages.create(model="m", max_tokens=100, messages=asked, tools=[tool])
    assert message.stop_reason == "tool_use"
    text, use = message.content
    assert text.type == "text" and text.text == "Let me look that up."
    assert use.type == "tool_use" and (use.name, use.input) == ("get_weather", {"city": "Paris"})
    with claude.messages.stream(model="m", max_tokens=100, messages=asked, tools=[tool]) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use"
    assert [b.type for b in final.content] == ["text", "tool_use"]
    assert final.content[1].type == "tool_use" and final.content[1].input == {"city": "Paris"}


def test_anthropic_tool_choice_any_makes_the_real_engine_call_and_take_the_result(
    stack: ExitStack, served: tuple[str, Path]
) -> None:
    base, _log = served
    claude = stack.enter_context(anthropic.Anthropic(base_url=base, api_key="unused"))
    tool: Any = {
        "name": "get_weather",
        "description": "The weather in a city now",
        "input_schema": WEATHER_TOOL["function"]["parameters"],
    }
    asked: Any = [{"role": "user", "content": "What is the weather in Paris?"}]
    called = claude.messages.create(
        model=STARTER, max_tokens=80, messages=asked, tools=[tool], tool_choice={"type": "any"}
    )
    assert called.stop_reason == "tool_use"
    use = called.content[-1]
    assert use.type == "tool_use" and use.name == "get_weather"
    assert set(use.input) == {"city"} and isinstance(use.input["city"], str)
    result: Any = {"type": "tool_result", "tool_use_id": use.id, "content": "sunny, 21 C"}
    history: Any = [
        *asked,
        {"role": "assistant", "content": [block.model_dump() for block in called.content]},
        {"role": "user", "content": [result]},
    ]
    answer = claude.messages.create(
        model=STARTER,
        max_tokens=30,
        messages=history,
        tools=[tool],
        tool_choice={"type": "none"},
        extra_body={"temperature": 0},
    )
    assert answer.content[0].type == "text" and answer.content[0].text


# -- OpenAI's Responses API --------------------------------------------------------------


def test_responses_give_a_reasoning_item_then_the_message_streamed_or_not(
    scripted: str, stack: ExitStack
) -> None:
    client = stack.enter_context(openai.OpenAI(base_url=f"{scripted}/v1", api_key="unused"))
    response = client.responses.create(model="m", input="2+2?")
    assert response.status == "completed" and response.output_text == "It is 4."
    kinds = [item.type for item in response.output]
    assert kinds == ["reasoning", "message"]
    reasoning = response.output[0]
    assert reasoning.type == "reasoning" and reasoning.content
    assert reasoning.content[0].text == "Two and two."
    assert response.usage is not None and response.usage.output_tokens == 5
    with client.responses.stream(model="m", input="2+2?") as stream:
        events = [event.type for event in stream]
        final = stream.get_final_response()
    assert final.output_text == "It is 4."
    assert events[0] == "response.created" and events[-1] == "response.completed"
    assert events.index("response.reasoning_text.delta") < events.index(
        "response.output_text.delta"
    )
    assert (
        events.count("response.output_item.added") == events.count("response.output_item.done") == 2
    )
    cut = client.responses.create(model="m", input="2+2?", max_output_tokens=2)
    assert cut.status == "incomplete" and cut.incomplete_details is not None
    assert cut.incomplete_details.reason == "max_output_tokens"


def test_a_reply_cut_by_a_dying_worker_says_what_it_cost_and_how_it_ended(
    host: EngineHost, spec: ModelSpec, expect_error_logs: None
) -> None:
    """The usage of a stream whose worker died counts the prompt and the tokens that were
    sent, and the choice ends with a finish reason, before the error itself."""
    no_end = {"0": -100, "2": -100}  # the starter's end tokens: it cannot end by itself
    body = {
        "messages": [{"role": "user", "content": "Tell me a long story."}],
        "max_tokens": 4000,
        "stream": True,
        "stream_options": {"include_usage": True},
        "logit_bias": no_end,
    }
    chunks: list[dict[str, Any]] = []
    killed: list[int] = []
    with (
        serving_one(host, spec, "starter") as url,
        httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=300) as response,
    ):
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunks.append(json.loads(line.removeprefix("data: ")))
            texts = [
                c for c in chunks if c.get("choices") and c["choices"][0]["delta"].get("content")
            ]
            if len(texts) == 5 and not killed:
                (loaded,) = host.loaded()
                kill_hard(loaded.pid)
                killed.append(loaded.pid)
    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c.get("choices")]
    assert finishes[-1] == "error", finishes[-3:]
    usage = next(c["usage"] for c in chunks if c.get("usage"))
    assert usage["prompt_tokens"] > 5 and usage["completion_tokens"] >= 5, usage
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert chunks[-1]["error"]["type"] == protocol.ERR_WORKER_DIED
