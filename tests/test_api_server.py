"""hearth serve, used with the official openai client, and refusing what it must refuse."""

import http.client
import json
import math
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import BadRequestError, NotFoundError, OpenAI

from app.serve.capabilities import ollama_capabilities, refusal
from app.serve.openai_chat import ChatRequest
from tests.api_helpers import PIXEL, hearth_serve
from tests.conftest import HEARTH, HUB_VARIABLES, REPO, isolated_environment, made_models, made_once
from wire.model_spec import LLAMA_CPP, REMOTE, TRANSFORMERS, ModelSpec

pytestmark = pytest.mark.slow
# Without --model, hearth serve offers the library: requests name the model they want.
STARTER = "SmolLM2-135M-Instruct.Q4_1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def served(data_dir: Path) -> Iterator[tuple[int, Path]]:
    with hearth_serve(data_dir) as served:
        yield served


@pytest.fixture(scope="module")
def shared_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    """One ``hearth serve`` for the tests that only read from it (requests refused before
    the engine), with a profile of its own: starting one per test cost more than the
    tests themselves."""
    root = tmp_path_factory.mktemp("shared-serve")
    environment = isolated_environment(root)
    env = {k: v for k, v in os.environ.items() if k not in HUB_VARIABLES} | environment
    with hearth_serve(Path(environment["HEARTH_DATA_DIR"]), env) as served:
        yield served


@pytest.fixture
def client(served: tuple[int, Path]) -> Iterator[OpenAI]:
    """The official client, closed after the test (its pooled sockets would otherwise be
    left to the garbage collector, a ResourceWarning)."""
    port, _log = served
    with OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused") as opened:
        yield opened


def chat_requests(log: Path) -> int:
    """Chat requests the workers have received (none before a model was first loaded)."""
    return log.read_text().count("request chat") if log.exists() else 0


def test_the_official_client_streaming_and_not(client: OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["SmolLM2-135M-Instruct.Q4_1"]
    reply = client.chat.completions.create(
        model=STARTER,
        messages=[{"role": "user", "content": "What is 2+2?"}],
        temperature=0,
        max_tokens=30,
    )
    assert "4" in (reply.choices[0].message.content or "")
    assert reply.usage is not None and reply.usage.completion_tokens > 0
    pieces = [
        c.choices[0].delta.content or ""
        for c in client.chat.completions.create(
            model=STARTER,
            messages=[{"role": "user", "content": "Name three colors."}],
            max_tokens=24,
            temperature=0,  # a sampled reply may end after a few words
            stream=True,
        )
        if c.choices
    ]
    # The first words go out at once and the rest after them (how many pieces the rest
    # makes depends on this machine's speed: deltas are merged per 20 ms).
    assert len([p for p in pieces if p]) >= 2 and "".join(pieces).strip()


def raw(
    port: int,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.putrequest(method, path, skip_host=True)
    chosen = headers if headers is not None else {"Host": f"127.0.0.1:{port}"}
    for key, value in chosen.items():
        connection.putheader(key, value)
    data = json.dumps(body).encode() if body is not None else b""
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Content-Length", str(len(data)))
    connection.endheaders(data)
    response = connection.getresponse()
    raw_body = response.read()
    try:
        payload = json.loads(raw_body or b"{}")
    except ValueError:  # refused by the HTTP layer itself (no Host at all): plain text
        payload = {"error": {"message": raw_body.decode(errors="replace")}}
    connection.close()
    return response.status, payload


GOOD = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
TOOL: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city now",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "maxLength": 30}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}


@pytest.mark.parametrize(
    ("headers", "body", "status"),
    [
        ({"Host": "evil.example:80"}, GOOD, 400),  # DNS rebinding
        ({"Host": ""}, GOOD, 400),
        ({}, GOOD, 400),  # no Host at all
        ({"Host": "HOST", "Origin": "null"}, GOOD, 403),
        ({"Host": "HOST", "Origin": "https://evil.example"}, GOOD, 403),
        ({"Host": "HOST"}, {**GOOD, "max_tokens": -1}, 400),
        ({"Host": "HOST"}, {**GOOD, "max_tokens": 10**12}, 400),
        ({"Host": "HOST"}, {**GOOD, "temperature": 99}, 400),
        ({"Host": "HOST"}, {**GOOD, "top_k": -1}, 400),
        ({"Host": "HOST"}, {**GOOD, "repeat_penalty": 9}, 400),
        ({"Host": "HOST"}, {**GOOD, "n": 5}, 400),
        ({"Host": "HOST"}, {**GOOD, "stop": ""}, 400),
        ({"Host": "HOST"}, {**GOOD, "stop": ["a", "b", "c", "d", "e"]}, 400),
        ({"Host": "HOST"}, {**GOOD, "stop": 5}, 400),
        ({"Host": "HOST"}, {"messages": []}, 400),
        ({"Host": "HOST"}, {"messages": [{"role": "wizard", "content": "x"}]}, 400),
        ({"Host": "HOST"}, {**GOOD, "logit_bias": {"hello": 5}}, 400),
        ({"Host": "HOST"}, {**GOOD, "logit_bias": {"42": 101}}, 400),
        ({"Host": "HOST"}, {**GOOD, "logit_bias": {str(t): 1 for t in range(301)}}, 400),
        ({"Host": "HOST"}, {**GOOD, "frequency_penalty": 3}, 400),
        ({"Host": "HOST"}, {**GOOD, "response_format": {"type": "xml"}}, 400),
        ({"Host": "HOST"}, {**GOOD, "response_format": {"type": "json_schema"}}, 400),
        ({"Host": "HOST"}, {**GOOD, "tool_choice": "required"}, 400),
        (
            {"Host": "HOST"},
            {
                **GOOD,
                "tools": [TOOL],
                "tool_choice": {"type": "function", "function": {"name": "x"}},
            },
            400,
        ),
        (
            {"Host": "HOST"},
            {**GOOD, "tools": [{"type": "function", "function": {"name": "a b"}}]},
            400,
        ),
        ({"Host": "HOST"}, {"messages": [{"role": "tool", "tool_call_id": "c1"}]}, 400),
    ],
)
def test_bad_requests_are_refused_before_the_engine(
    shared_served: tuple[int, Path], headers: dict[str, str], body: dict[str, Any], status: int
) -> None:
    port, log = shared_served
    before = chat_requests(log)
    headers = {k: (f"127.0.0.1:{port}" if v == "HOST" else v) for k, v in headers.items()}
    got, payload = raw(port, "POST", "/v1/chat/completions", body, headers)
    assert got == status, payload
    assert "message" in payload["error"]
    if "n" in body:
        assert "less than or equal to 4" in payload["error"]["message"], "the limit is named"
    assert chat_requests(log) == before  # nothing reached the engine


def test_an_api_key_is_required_when_set_and_for_other_addresses(data_dir: Path) -> None:
    port = free_port()
    refused = subprocess.run(
        [*HEARTH, "serve", "--host", "0.0.0.0", "--port", str(port)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 1 and "requires an API key" in refused.stderr
    server = subprocess.Popen(
        [*HEARTH, "serve", "--port", str(port), "--api-key", "s3cret"],
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None and "Serving" in server.stderr.readline()
        said = server.stderr.readline()
        assert "An API key is required" in said and "--api-key" in said, said
        host = {"Host": f"127.0.0.1:{port}"}
        assert raw(port, "GET", "/v1/models", headers=host)[0] == 401
        wrong = {**host, "Authorization": "Bearer nope"}
        assert raw(port, "POST", "/v1/chat/completions", GOOD, wrong)[0] == 401
        right = {**host, "Authorization": "Bearer s3cret"}
        assert raw(port, "GET", "/v1/models", headers=right)[0] == 200
        with OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="s3cret") as client:
            reply = client.chat.completions.create(
                model=STARTER, messages=[{"role": "user", "content": "hi"}], max_tokens=4
            )
        assert reply.choices[0].message.content
        # Anthropic's clients send the key as x-api-key.
        assert raw(port, "GET", "/v1/models", headers={**host, "x-api-key": "s3cret"})[0] == 200
        assert raw(port, "GET", "/v1/models", headers={**host, "x-api-key": "nope"})[0] == 401
    finally:
        server.terminate()
        server.wait(15)
        if server.stderr:
            server.stderr.close()


def test_serve_says_where_its_key_comes_from_and_answers_that_it_runs(
    data_dir: Path,
) -> None:
    """A key made in the window's API panel is kept in the keyring and applies to every
    ``hearth serve`` of the account: the start says so, as it says when none is needed.
    ``GET /`` and ``HEAD /`` answer as Ollama does, for front ends that look first."""
    from app.secrets import set_token

    def started(*flags: str) -> tuple[int, subprocess.Popen[str], str]:
        port = free_port()
        server = subprocess.Popen(
            [*HEARTH, "serve", "--port", str(port), *flags],
            cwd=REPO,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert server.stderr is not None and "Serving" in server.stderr.readline()
        return port, server, server.stderr.readline()

    port, server, said = started()
    try:
        assert said.startswith("No API key is required"), said
        host = {"Host": f"127.0.0.1:{port}"}
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for method in ("GET", "HEAD"):
            connection.request(method, "/", headers=host)
            answer = connection.getresponse()
            body = answer.read()
            assert answer.status == 200, (method, body)
            assert body == (b"Hearth is running" if method == "GET" else b"")
        connection.close()
    finally:
        server.terminate()
        server.wait(15)
        assert server.stderr is not None
        server.stderr.close()
    set_token("serve", "made-in-the-panel")
    _, server, said = started()
    try:
        assert "An API key is required" in said and "the system keyring" in said, said
        assert "every hearth serve" in said
    finally:
        server.terminate()
        server.wait(15)
        assert server.stderr is not None
        server.stderr.close()


def ask(client: OpenAI, content: str, **options: Any) -> Any:
    return client.chat.completions.create(
        model=STARTER, messages=[{"role": "user", "content": content}], **options
    )


def test_stop_strings_end_the_reply_streaming_and_not(client: OpenAI) -> None:
    prompt = "Name the largest planet in the solar system."
    whole = ask(client, prompt, temperature=0, max_tokens=40).choices[0].message.content or ""
    words = whole.split()
    assert len(words) > 6, whole
    stop = words[len(words) // 2]
    cut = whole[: whole.index(stop)]
    reply = ask(client, prompt, temperature=0, max_tokens=40, stop=[stop, "never-said"])
    assert reply.choices[0].message.content == cut
    assert reply.choices[0].finish_reason == "stop"
    pieces = [
        c.choices[0].delta.content or ""
        for c in ask(client, prompt, temperature=0, max_tokens=40, stop=stop, stream=True)
        if c.choices
    ]
    assert "".join(pieces) == cut, "a stop string split across tokens is never shown"


def test_a_seed_serves_its_own_request_only(client: OpenAI) -> None:
    """Once a request sent a seed, later requests without one must not repeat its text."""
    prompt = "Write one sentence about the sea."
    options: dict[str, Any] = {"temperature": 1.0, "top_p": 1.0, "max_tokens": 24}

    def text(**seed: int) -> str:
        return str(ask(client, prompt, **options, **seed).choices[0].message.content)

    # If a seed left the generator where its reply ended, both unseeded replies would
    # start from that same state and be equal.
    seeded, first, again, second = text(seed=7), text(), text(seed=7), text()
    assert again == seeded
    assert first != second


def test_n_choices_are_generated_one_after_another(
    served: tuple[int, Path], client: OpenAI
) -> None:
    _port, log = served
    before = chat_requests(log)
    prompt = "Write one sentence about the sea."
    reply = ask(client, prompt, n=2, seed=3, temperature=1.0, max_tokens=16)
    assert [c.index for c in reply.choices] == [0, 1]
    assert chat_requests(log) == before + 2
    # Choice i is the reply to the same request with seed + i: reproducible, and different.
    alone = [ask(client, prompt, seed=seed, temperature=1.0, max_tokens=16) for seed in (3, 4)]
    assert [c.message.content for c in reply.choices] == [
        a.choices[0].message.content for a in alone
    ]
    assert reply.usage is not None and all(a.usage is not None for a in alone)
    assert reply.usage.completion_tokens == sum(a.usage.completion_tokens for a in alone if a.usage)
    first = alone[0].usage
    assert first is not None and reply.usage.prompt_tokens == first.prompt_tokens, "counted once"
    streamed: dict[int, str] = {0: "", 1: ""}
    for chunk in ask(client, prompt, n=2, seed=3, temperature=1.0, max_tokens=16, stream=True):
        for choice in chunk.choices:
            streamed[choice.index] += choice.delta.content or ""
    assert streamed == {i: c.message.content for i, c in enumerate(reply.choices)}


def test_content_parts_and_the_developer_role_mean_text_and_system(
    served: tuple[int, Path], client: OpenAI
) -> None:
    """What newer clients send is understood, not refused: the same greedy answer."""
    port, log = served
    greedy: dict[str, Any] = {"temperature": 0, "max_tokens": 24}

    def answer(messages: list[dict[str, Any]]) -> str:
        reply = client.chat.completions.create(model=STARTER, messages=messages, **greedy)  # type: ignore[arg-type]
        return reply.choices[0].message.content or ""

    plain = answer(
        [
            {"role": "system", "content": "You answer in one sentence."},
            {"role": "user", "content": "Name a large planet."},
        ]
    )
    parts = answer(
        [
            {"role": "developer", "content": "You answer in one sentence."},
            {"role": "user", "content": [{"type": "text", "text": "Name a large planet."}]},
        ]
    )
    assert plain and parts == plain
    before = chat_requests(log)
    image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PIXEL}"}}
    got, payload = raw(
        port,
        "POST",
        "/v1/chat/completions",
        {"messages": [{"role": "user", "content": [image]}], "max_tokens": 4},
    )
    assert got == 400 and "reads text only" in payload["error"]["message"]
    assert chat_requests(log) == before


CITY = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 30},
        "population": {"type": "integer"},
        "capital": {"type": "boolean"},
    },
    "required": ["city", "population", "capital"],
    "additionalProperties": False,
}


def matches_city(text: str) -> bool:
    value = json.loads(text)
    return (
        set(value) == {"city", "population", "capital"}
        and isinstance(value["city"], str)
        and isinstance(value["population"], int)
        and isinstance(value["capital"], bool)
    )


def test_json_output_follows_the_schema_even_from_the_starter_model(
    served: tuple[int, Path], client: OpenAI
) -> None:
    """Grammar-constrained decoding: a 135M model's reply is valid JSON of the asked shape,
    greedy and sampled, streamed and not; a schema with no grammar is a 400, before any
    token, in both forms."""
    _port, log = served
    wanted = {"type": "json_schema", "json_schema": {"name": "city", "schema": CITY}}
    prompt = "Tell me about Paris."
    for options in ({"temperature": 0}, {"temperature": 1.0, "seed": 5}):
        reply = ask(client, prompt, max_tokens=120, response_format=wanted, **options)
        assert reply.choices[0].finish_reason == "stop"
        assert matches_city(reply.choices[0].message.content or ""), reply
    pieces = [
        c.choices[0].delta.content or ""
        for c in ask(
            client,
            "Describe a cat.",
            max_tokens=200,
            temperature=0,
            stream=True,
            response_format={"type": "json_object"},
        )
        if c.choices
    ]
    assert isinstance(json.loads("".join(pieces)), dict)
    before = log.read_text().count(" ended (")
    broken = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"$ref": "#/no"}}}
    for stream in (False, True):
        with pytest.raises(BadRequestError) as refused:
            ask(client, prompt, max_tokens=8, stream=stream, response_format=broken)
        assert "cannot be turned into a grammar" in str(refused.value)
    assert log.read_text().count(" ended (") == before, "nothing was generated"


def test_penalties_and_logit_bias_change_the_reply(client: OpenAI) -> None:
    greedy: dict[str, Any] = {"temperature": 0, "max_tokens": 60}

    def text(prompt: str, **options: Any) -> str:
        return str(ask(client, prompt, **greedy, **options).choices[0].message.content)

    counting = "List the numbers from 1 to 20, separated by commas."
    plain = text(counting)
    assert plain.count(",") >= 10, plain
    # Each comma makes the next one less likely: the list is cut short.
    assert text(counting, frequency_penalty=2.0).count(",") < plain.count(",") / 2
    # A negative penalty rewards repeating: one fruit comes back again and again.
    fruits = "Write a list of ten fruits."
    lines = [line for line in text(fruits, frequency_penalty=-2.0).splitlines() if line.strip()]
    assert len(lines) > len(set(lines)), lines
    zebra = 29106  # " zebra" in the starter model's vocabulary
    assert "zebra" not in text(counting)
    assert text(counting, logit_bias={str(zebra): 100}).count("zebra") >= 5
    comma = 28  # "," in the starter model's vocabulary
    assert "," not in text(counting, logit_bias={str(comma): -100}), "-100 bans a token"


def test_top_k_min_p_and_repeat_penalty_as_llama_server_takes_them(client: OpenAI) -> None:
    """Clients written for llama-server or vLLM send these beside OpenAI's fields."""
    prompt = "Write a poem about the sea."
    greedy = ask(client, prompt, temperature=0, max_tokens=24).choices[0].message.content

    def hot(seed: int, **extra: Any) -> str:
        reply = ask(client, prompt, temperature=1.5, seed=seed, max_tokens=24, extra_body=extra)
        return str(reply.choices[0].message.content)

    assert len({hot(seed) for seed in (1, 2, 3)}) > 1, "hot sampling varies with the seed"
    # Only the most likely word is kept: as greedy as temperature 0, whatever the seed.
    assert {hot(seed, top_k=1) for seed in (1, 2, 3)} == {greedy}
    assert {hot(seed, top_k=0, min_p=1.0) for seed in (1, 2)} == {greedy}
    counting = "List the numbers from 1 to 20, separated by commas."
    plain = ask(client, counting, temperature=0, max_tokens=60).choices[0].message.content
    penalized = (
        ask(client, counting, temperature=0, max_tokens=60, extra_body={"repeat_penalty": 2.0})
        .choices[0]
        .message.content
    )
    assert penalized != plain


def test_health_and_one_model_by_its_id(served: tuple[int, Path], client: OpenAI) -> None:
    port, _log = served
    name = "SmolLM2-135M-Instruct.Q4_1"
    assert client.models.retrieve(name).id == name
    assert client.models.retrieve("smollm2-135m-instruct:q4_1").id == name, "Ollama's name"
    with pytest.raises(NotFoundError) as missing:
        client.models.retrieve("gpt-4o")
    assert name in str(missing.value), "the server says what it has"
    status, payload = raw(port, "GET", "/health")
    assert (status, payload["status"]) == (200, "ok")
    status, payload = raw(port, "GET", "/v1/no-such-route")
    assert status == 404 and "message" in payload["error"], "errors in OpenAI's shape"


def test_json_output_for_a_transformers_model_is_refused_before_the_engine() -> None:
    """transformers has no grammar: the request is refused in words, naming what it asked
    (the engine catalogue says which engine can do what; the dialect only what it asks)."""
    messages = [{"role": "user", "content": "hi"}]
    asked = ChatRequest.model_validate(
        {"messages": messages, "response_format": {"type": "json_object"}}
    ).needs()
    on_torch, gguf = ModelSpec("m", engine=TRANSFORMERS), ModelSpec("m.gguf", engine=LLAMA_CPP)
    assert "json_object needs a GGUF model" in str(refusal(asked, on_torch))
    assert refusal(asked, gguf) is None
    plain = ChatRequest.model_validate({"messages": messages}).needs()
    assert refusal(plain, on_torch) is None


def test_pictures_need_a_model_that_reads_them() -> None:
    """A GGUF model reads pictures with its projector; without one the request is refused
    in words before the engine, and Ollama's listing says "vision" only for the first."""
    image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PIXEL}"}}
    asked = ChatRequest.model_validate(
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "What?"}, image]}]}
    ).needs()
    text_only = ModelSpec("m.gguf", engine=LLAMA_CPP)
    vision = ModelSpec("m.gguf", engine=LLAMA_CPP, projector="mmproj-m.gguf")
    assert "reads text only" in str(refusal(asked, text_only))
    assert refusal(asked, vision) is None
    assert "reads text only" in str(refusal(asked, ModelSpec("m", engine=TRANSFORMERS)))
    assert refusal(asked, ModelSpec("m", engine=TRANSFORMERS, vision=True)) is None
    assert "not read by this server's model" in str(refusal(asked, ModelSpec("m", engine=REMOTE)))
    assert "vision" in ollama_capabilities(LLAMA_CPP, pictures=True)
    assert "vision" not in ollama_capabilities(LLAMA_CPP, pictures=False)


def test_a_required_tool_call_from_the_real_engine_is_a_valid_call(client: OpenAI) -> None:
    """With tool_choice required (or naming the tool) a grammar makes even the starter
    model call the tool with arguments that match its schema, streamed or not; the call
    and its result then go back in the history and the model answers."""
    create: Any = client.chat.completions.create  # plain dicts, as a script sends them
    asked = [{"role": "user", "content": "What is the weather in Paris?"}]
    named = {"type": "function", "function": {"name": "get_weather"}}
    for choice in ("required", named):
        reply = create(
            model=STARTER,
            messages=asked,
            tools=[TOOL],
            tool_choice=choice,
            max_tokens=80,
        )
        assert reply.choices[0].finish_reason == "tool_calls"
        assert reply.choices[0].message.tool_calls is not None
        (call,) = reply.choices[0].message.tool_calls
        assert call.function.name == "get_weather"
        arguments = json.loads(call.function.arguments)
        assert set(arguments) == {"city"} and isinstance(arguments["city"], str)
    streamed = [
        tool_call
        for chunk in create(
            model=STARTER,
            messages=asked,
            tools=[TOOL],
            tool_choice="required",
            max_tokens=80,
            stream=True,
        )
        if chunk.choices
        for tool_call in chunk.choices[0].delta.tool_calls or []
    ]
    assert [c.function.name for c in streamed if c.function] == ["get_weather"]
    history = [
        *asked,
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": '{"sky": "sunny", "temp_c": 21}'},
    ]
    answer = create(
        model=STARTER, messages=history, tools=[TOOL], tool_choice="none", max_tokens=40
    )
    assert answer.choices[0].finish_reason in ("stop", "length")
    assert answer.choices[0].message.content and not answer.choices[0].message.tool_calls


def test_a_forced_call_cut_by_max_tokens_is_never_markup_in_the_answer(
    served: tuple[int, Path], client: OpenAI
) -> None:
    """A forced call that reaches ``max_tokens`` before it closes gives no call and no
    content (the template's ``<tool_call>`` markup is no answer), finish reason length:
    OpenAI streamed and not, and Anthropic's ``any``."""
    create: Any = client.chat.completions.create
    asked = [{"role": "user", "content": "What is the weather in Paris?"}]
    named = {"type": "function", "function": {"name": "get_weather"}}
    cut = create(model=STARTER, messages=asked, tools=[TOOL], tool_choice=named, max_tokens=8)
    (choice,) = cut.choices
    assert choice.finish_reason == "length"
    assert not choice.message.content and not choice.message.tool_calls
    chunks = list(
        create(
            model=STARTER,
            messages=asked,
            tools=[TOOL],
            tool_choice="required",
            max_tokens=8,
            stream=True,
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "", "nothing of the call streamed as text"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"
    assert not any(c.choices[0].delta.tool_calls for c in chunks if c.choices)
    status, message = raw(
        served[0],
        "POST",
        "/v1/messages",
        {
            "model": STARTER,
            "max_tokens": 8,
            "messages": [{"role": "user", "content": "Weather in Paris?"}],
            "tool_choice": {"type": "any"},
            "tools": [
                {
                    "name": "get_weather",
                    "description": "Get weather",
                    "input_schema": TOOL["function"]["parameters"],
                }
            ],
        },
    )
    assert status == 200, message
    assert message["stop_reason"] == "max_tokens"
    assert not any("<tool_call>" in str(block) for block in message["content"]), message
    assert all(b["text"] for b in message["content"] if b["type"] == "text"), "none empty"


def test_completions_continue_a_raw_prompt_streamed_or_not(client: OpenAI) -> None:
    greedy: dict[str, Any] = {"model": STARTER, "temperature": 0, "max_tokens": 12}
    prompt = "The capital of France is"
    whole = client.completions.create(prompt=prompt, **greedy)
    text = whole.choices[0].text
    assert "Paris" in text and whole.choices[0].finish_reason == "length"
    assert whole.usage is not None and whole.usage.completion_tokens == 12
    streamed = "".join(
        c.choices[0].text for c in client.completions.create(prompt=prompt, stream=True, **greedy)
    )
    assert streamed == text
    echoed = client.completions.create(prompt=prompt, echo=True, **greedy)
    assert echoed.choices[0].text == prompt + text
    stop = text.split()[1]  # a word after "Paris"
    cut = client.completions.create(prompt=prompt, stop=[stop], **greedy)
    assert cut.choices[0].text == text[: text.index(stop)]
    with pytest.raises(BadRequestError) as no_fim:
        client.completions.create(prompt="def f(", suffix="    return x\n", **greedy)
    assert "fill-in-the-middle" in str(no_fim.value)
    with pytest.raises(BadRequestError):
        client.completions.create(prompt=["one", "two"], **greedy)


@pytest.fixture(scope="session")
def fim_model(starter: Path) -> Path:
    """The starter model with fill-in-the-middle tokens named (three of its own special
    tokens stand in), made once and cached."""
    target = made_models() / "smollm2-fim.gguf"
    with made_once(target):
        if not target.is_file():
            partial = target.with_suffix(".partial")
            # (on Windows: gguf-new-metadata.exe, beside the interpreter)
            tool = Path(
                shutil.which("gguf-new-metadata", path=str(Path(sys.executable).parent)) or ""
            )
            names = [("fim_pre", 12), ("fim_suf", 13), ("fim_mid", 14)]
            flags = [
                item for name, id_ in names for item in ("--special-token-by-id", name, str(id_))
            ]
            subprocess.run(
                [str(tool), *flags, str(starter), str(partial)],
                check=True,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=300,
            )
            partial.replace(target)
    return target


def test_a_suffix_is_filled_in_the_middle_with_the_models_tokens(
    data_dir: Path, fim_model: Path
) -> None:
    """Prefix, suffix and the three FIM tokens are the whole prompt: its token count says
    the suffix reached the model in the fill-in-the-middle form."""
    port = free_port()
    server = subprocess.Popen(
        [*HEARTH, "serve", "--port", str(port), "--ctx", "2048", "--model", str(fim_model)],
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None and "Serving" in server.stderr.readline()
        with OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused") as client:
            greedy: dict[str, Any] = {"model": STARTER, "temperature": 0, "max_tokens": 8}
            alone = client.completions.create(prompt="def add(a, b):", **greedy)
            suffix = client.completions.create(prompt="", suffix="    return a + b\n", **greedy)
            both = client.completions.create(
                prompt="def add(a, b):", suffix="    return a + b\n", **greedy
            )
        assert alone.usage and suffix.usage and both.usage
        assert both.usage.prompt_tokens == alone.usage.prompt_tokens + suffix.usage.prompt_tokens
        assert both.choices[0].text.strip(), "the middle was written"
    finally:
        server.terminate()
        server.wait(15)
        if server.stderr:
            server.stderr.close()


def test_embeddings_are_unit_vectors_that_place_like_texts_together(client: OpenAI) -> None:
    """The starter model in embedding mode (mean pooling): the official client's default
    base64 and plain floats agree, a batch equals its inputs one by one, a paraphrase is
    nearer than an unrelated sentence, and what cannot be embedded is refused in words."""
    texts = ["The cat sat on the mat.", "A kitten rested on the rug.", "Stock markets fell."]
    batch = client.embeddings.create(model=STARTER, input=texts)  # base64 on the wire
    vectors = [item.embedding for item in batch.data]
    assert [len(v) for v in vectors] == [576, 576, 576]
    assert batch.usage.prompt_tokens > len(texts)
    floats = client.embeddings.create(model=STARTER, input=texts[0], encoding_format="float")
    assert floats.data[0].embedding == pytest.approx(vectors[0], abs=1e-6)

    def dot(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert dot(vectors[0], vectors[0]) == pytest.approx(1.0, abs=1e-4)
    assert dot(vectors[0], vectors[1]) > dot(vectors[0], vectors[2])
    with pytest.raises(BadRequestError) as too_long:
        client.embeddings.create(model=STARTER, input="word " * 9000)
    assert "at most" in str(too_long.value)
    with pytest.raises(BadRequestError) as wrong_size:
        client.embeddings.create(model=STARTER, input="hello", dimensions=3)
    assert "576 dimensions" in str(wrong_size.value)


def test_responses_answer_statelessly_in_text_or_json(client: OpenAI) -> None:
    answer = client.responses.create(
        model=STARTER,
        instructions="Answer briefly.",
        input=[{"role": "user", "content": "What is 2+2?"}],
        temperature=0,
        max_output_tokens=30,
    )
    assert "4" in answer.output_text
    shaped = client.responses.create(
        model=STARTER,
        input="Tell me about Paris.",
        max_output_tokens=120,
        text={"format": {"type": "json_schema", "name": "city", "schema": CITY}},
    )
    assert matches_city(shaped.output_text)
    with pytest.raises(BadRequestError) as stateless:
        client.responses.create(model=STARTER, input="And then?", previous_response_id="resp_1")
    assert "stateless" in str(stateless.value)


def test_logprobs_are_the_models_own_and_match_the_text(client: OpenAI) -> None:
    asked: Any = {
        "model": STARTER,
        "messages": [{"role": "user", "content": "What is 2+2?"}],
        "temperature": 0,
        "max_tokens": 8,
        "logprobs": True,
        "top_logprobs": 3,
    }
    reply = client.chat.completions.create(**asked)
    choice = reply.choices[0]
    assert choice.logprobs is not None and choice.logprobs.content
    entries = choice.logprobs.content
    assert "".join(e.token for e in entries).strip() == choice.message.content
    assert len(entries) == 8 and all(e.logprob <= 0 for e in entries)
    for entry in entries:
        ranked = [t.logprob for t in entry.top_logprobs]
        assert len(ranked) == 3 and ranked == sorted(ranked, reverse=True)
        assert sum(math.exp(v) for v in ranked) <= 1.0 + 1e-6
    first = entries[0]
    assert first.logprob == pytest.approx(first.top_logprobs[0].logprob), "greedy: the likeliest"
    assert bytes(first.bytes or []).decode() == first.token
    streamed = [
        e.token
        for chunk in client.chat.completions.create(**asked, stream=True)
        if chunk.choices and chunk.choices[0].logprobs
        for e in chunk.choices[0].logprobs.content or []
    ]
    assert streamed == [e.token for e in entries]
    with pytest.raises(BadRequestError):
        client.chat.completions.create(**{**asked, "logprobs": False})  # top_logprobs alone


def test_a_request_answers_from_a_document_collection(
    client: OpenAI, data_dir: Path, tmp_path: Path
) -> None:
    from app.docs.library import Documents

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "ferry.md").write_text("# Ferries\n\nThe ferry to Tarn leaves at 7:40.\n")
    documents = Documents(data_dir)
    documents.add("notes", [folder])  # made while the server runs: found at once
    documents.index.close()
    options = {"hearth": {"collections": ["notes"], "k": 3}}
    question: Any = [{"role": "user", "content": "When does the ferry to Tarn leave?"}]
    reply = client.chat.completions.create(
        model=STARTER,
        messages=question,
        max_tokens=8,
        extra_body=options,
    )
    sources = (reply.model_extra or {})["sources"]
    assert sources[0]["file"].endswith("ferry.md") and "7:40" in sources[0]["text"]
    assert sources[0]["section"] == "Ferries" and sources[0]["n"] == 1
    stream = client.chat.completions.create(
        model=STARTER,
        messages=question,
        max_tokens=4,
        stream=True,
        extra_body=options,
    )
    extras: list[dict[str, Any]] = [chunk.model_extra or {} for chunk in stream]
    assert extras[0]["sources"] == sources
    assert all("sources" not in extra for extra in extras[1:])
    with pytest.raises(BadRequestError, match="no collection named nope"):
        client.chat.completions.create(
            model=STARTER,
            messages=question,
            max_tokens=4,
            extra_body={"hearth": {"collections": ["nope"]}},
        )
