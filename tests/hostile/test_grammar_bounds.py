"""Class 17: a schema or grammar in a request cannot blow up the worker.

A pattern ``^[a-z]{0,1000000}$`` crashed the worker (llama.cpp's recursive grammar parser
overflowed its stack), ``minLength: 10^9`` or ``maxItems: 10^8`` grew it past 5 GiB in
seconds, an enum of 100,000 strings kept it busy for minutes, and repetitions nested in
one another (``((a{0,999}){0,999}){0,999}``, each count under the bound) wedged it with
every slot of its model.  Now each is refused
before the converter runs, with the bound named, in every dialect that carries a schema,
and the worker goes on serving.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.engine.host import EngineHost
from app.engine.seat import Seat
from app.engine.stuck import STALL_S
from backends.json_mode import grammar_for_schema
from backends.llama_loop import GrammarRefused
from backends.schema_bounds import SchemaTooLarge, check_grammar, check_schema
from tests.conftest import collect
from tests.hostile.test_api_edges import JSON, Served, serve
from wire import protocol
from wire.model_spec import ModelSpec

DEEP_PATTERN = {"type": "string", "pattern": "^[a-z]{0,1000000}$"}
HUGE_STRING = {"type": "string", "minLength": 10**9}
HUGE_ARRAY = {"type": "array", "items": {"type": "integer"}, "maxItems": 10**8}
HUGE_ENUM = {"enum": [f"choice {n}" for n in range(100_000)]}
# Each count under the bound, nested: a billion ways of reading it (it wedged the worker).
HI = [{"role": "user", "content": "Hi"}]
NESTED_PATTERN = {"type": "string", "pattern": "^(((a{0,999}){0,999}){0,999})$"}


@pytest.mark.parametrize(
    ("schema", "named"),
    [
        (DEEP_PATTERN, "{0,1000000}"),
        (HUGE_STRING, "minLength"),
        (HUGE_ARRAY, "maxItems"),
        (HUGE_ENUM, "100000 entries"),
        ({"type": "object", "properties": {"a": HUGE_STRING}}, "minLength"),
        (NESTED_PATTERN, "multiply to 1,000,000,000 ways"),
        ({"type": "string", "pattern": "^(a?){1000}$"}, "multiply to 2,002 ways"),
        ({"type": "string", "pattern": "^(?:x(b{0,99})){0,99}$"}, "multiply to 10,000 ways"),
    ],
)
def test_each_bound_is_named(schema: dict[str, Any], named: str) -> None:
    with pytest.raises(SchemaTooLarge, match="at most") as refused:
        check_schema(schema)
    assert named in str(refused.value)
    with pytest.raises(GrammarRefused):
        grammar_for_schema(schema)


def test_ordinary_schemas_still_become_grammars() -> None:
    nested: dict[str, Any] = {"type": "string"}
    for _ in range(200):
        nested = {"type": "object", "properties": {"a": nested}, "required": ["a"]}
    for schema in (
        nested,
        {"type": "string", "pattern": "^(a{1,30}){1,30}$"},
        {"type": "string", "pattern": "^a{0,1000}b{0,1000}(c|d){0,1000}$"},
        {"type": "string", "pattern": r"^([0-9]{1,3}\.){3}[0-9]{1,3}$"},
        {"type": "string", "maxLength": 1000},
        {"enum": [f"country {n}" for n in range(250)]},
    ):
        assert "root ::=" in grammar_for_schema(schema)


def test_a_raw_grammar_nested_too_deep_is_refused() -> None:
    with pytest.raises(SchemaTooLarge, match="nests"):
        check_grammar("root ::= " + "(" * 5000 + '"a"' + ")?" * 5000)
    check_grammar('root ::= "(((((" [(((] ("a")')  # brackets in strings and classes: no groups
    hidden = 'root ::= x # a "quote\nx ::= ' + "(" * 5000 + '"a"' + ")" * 5000
    with pytest.raises(SchemaTooLarge, match="nests"):
        check_grammar(hidden)  # a comment's quote does not hide the groups after it


@pytest.fixture
def server(data_dir: Path) -> Iterator[Served]:
    yield from serve(data_dir)


def _post(server: Served, path: str, body: dict[str, Any]) -> tuple[int, str]:
    status, _, answer = server.request("POST", path, json.dumps(body), JSON)
    return status, answer.decode("utf-8", "replace")


def _requests(schema: dict[str, Any], model: str) -> dict[str, tuple[str, dict[str, Any]]]:
    hi = [{"role": "user", "content": "Hi"}]
    tool = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": schema}, "required": ["a"]}}}  # fmt: skip
    return {
        "openai response_format": (
            "/v1/chat/completions",
            {
                "messages": hi,
                "max_tokens": 8,
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "x", "schema": schema},
                },
            },
        ),
        "openai forced tool call": (
            "/v1/chat/completions",
            {"messages": hi, "max_tokens": 8, "tools": [tool], "tool_choice": "required"},
        ),
        "ollama format": (
            "/api/chat",
            {"model": model, "messages": hi, "stream": False, "format": schema},
        ),
        "anthropic output format": (
            "/v1/messages",
            {
                "model": model,
                "max_tokens": 8,
                "messages": hi,
                "output_config": {"format": {"type": "json_schema", "schema": schema}},
            },
        ),
    }


@pytest.mark.slow
@pytest.mark.parametrize(
    "schema", [DEEP_PATTERN, HUGE_STRING, HUGE_ARRAY, HUGE_ENUM, NESTED_PATTERN]
)
def test_every_dialect_answers_400_and_the_worker_keeps_serving(
    server: Served, schema: dict[str, Any]
) -> None:
    _, _, listing = server.request("GET", "/v1/models")
    model = json.loads(listing)["data"][0]["id"]
    for name, (path, body) in _requests(schema, model).items():
        status, answer = _post(server, path, body)
        assert status == 400, f"{name}: {status} {answer[:300]}"
        assert "damaged" not in answer, f"{name}: {answer[:300]}"
        # 100,000 choices in a tool's parameters are first too long a prompt: also a 400
        fits_the_prompt = not (schema is HUGE_ENUM and "tool" in name)
        assert "at most" in answer or not fits_the_prompt, f"{name}: {answer[:300]}"
    status, answer = _post(
        server,
        "/v1/chat/completions",
        {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4},
    )
    assert status == 200, answer


# What a client's own grammar may still ask (a raw grammar is bounded by its size and
# depth, not by the ways of reading it): repetitions inside repetitions through rules.
# Four hundred to the third power: llama.cpp's sampler spins as it is made.
SPINNING_GRAMMAR = 'root ::= a{0,400}\na ::= b{0,400}\nb ::= "a"{0,400}'
# Ten to the third power: each token is drawn in about a second here.
SLOWING_GRAMMAR = 'root ::= a{0,9}\na ::= b{0,9}\nb ::= "a"{0,9}'


@pytest.mark.slow
def test_a_grammar_that_spins_without_writing_stops_its_worker_and_says_why(
    client: Seat, host: EngineHost, spec: ModelSpec, expect_error_logs: None
) -> None:
    """Busy is not progress: the worker spends its CPU on the grammar and writes nothing,
    so the host stops it (it used to wait forever, every slot of the model with it)."""
    host.stall_s = 3.0
    spinning = client.chat(spec, HI, {"grammar": SPINNING_GRAMMAR, "max_tokens": 4})
    assert spinning.wait(600) is not None and spinning.final is not None
    assert spinning.final["kind"] == protocol.ERR_WORKER_DIED, spinning.final
    assert "schema or grammar without writing anything" in spinning.final["message"]
    host.stall_s = STALL_S
    text, events = collect(client.chat(spec, HI, {"max_tokens": 4}))
    assert events[-1]["type"] == "done" and text, "the next request gets a new worker"


@pytest.mark.slow
def test_a_grammar_too_slow_to_follow_ends_its_request_alone(
    spec: ModelSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grammar whose tokens each take longer than the one before ends its own request
    once one takes past the bound (ten seconds; 0.3 s here), in words, and the same
    worker goes on."""
    monkeypatch.setenv("HEARTH_GRAMMAR_STEP_S", "0.3")  # read by the worker as it starts
    host = EngineHost()
    try:
        seat = Seat(host)
        _, events = collect(seat.chat(spec, HI, {"grammar": SLOWING_GRAMMAR, "max_tokens": 64}))
        assert events[-1]["type"] == protocol.ERROR, events[-1]
        assert events[-1]["kind"] == protocol.ERR_BAD_REQUEST
        assert "seconds to follow for one token" in events[-1]["message"]
        pid = seat.worker_pid
        text, events = collect(seat.chat(spec, HI, {"max_tokens": 4}))
        assert events[-1]["type"] == "done" and text and seat.worker_pid == pid
    finally:
        host.close()
