"""Tool calls read out of replies in the formats open models write, whole and streamed."""

from __future__ import annotations

import pytest

from app.engine.seat import Seat
from app.tools.calls import ToolCallStream, parse_tool_calls
from backends.tool_prompt import engine_message, has_tool_parts, hermes_messages
from tests.conftest import collect
from wire import protocol
from wire.model_spec import ModelSpec

NAMES = {"get_weather", "add"}
WEATHER = '{"name": "get_weather", "arguments": {"city": "Paris"}}'


@pytest.mark.parametrize(
    ("reply", "text", "calls"),
    [
        # Hermes / Qwen, with words before and two calls
        (
            f"Let me check.\n<tool_call>\n{WEATHER}\n</tool_call>\n"
            '<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>',
            "Let me check.",
            [("get_weather", {"city": "Paris"}), ("add", {"a": 1, "b": 2})],
        ),
        # a Hermes call cut by the token limit before its closing tag
        (f"<tool_call>{WEATHER}", "", [("get_weather", {"city": "Paris"})]),
        # a closing tag inside an argument's string does not end the call (a model wrote it)
        (
            '<tool_call>\n{"name": "add", "arguments": {"a": ");}</tool_call> more", "b": 2}}'
            "\n</tool_call> Done.",
            "Done.",
            [("add", {"a": ");}</tool_call> more", "b": 2})],
        ),
        # Mistral
        (f"[TOOL_CALLS][{WEATHER}]", "", [("get_weather", {"city": "Paris"})]),
        # Llama 3.x: the whole reply, "parameters", after the python tag or not
        (
            '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}',
            "",
            [("get_weather", {"city": "Oslo"})],
        ),
        # arguments as a JSON string, as some models copy OpenAI's wire format
        (
            '{"name": "add", "arguments": "{\\"a\\": 2, \\"b\\": 3}"}',
            "",
            [("add", {"a": 2, "b": 3})],
        ),
        # JSON that is an answer, not a call: an unknown name, or no name
        ('{"name": "Paris", "population": 2}', '{"name": "Paris", "population": 2}', []),
        ("<tool_call>not json</tool_call>", "<tool_call>not json</tool_call>", []),
        # a model's malformed name, and JSON nested past the parser's depth
        (
            '{"name": ["get_weather"], "arguments": {}}',
            '{"name": ["get_weather"], "arguments": {}}',
            [],
        ),
        ("[" * 100_000 + "]" * 100_000, "[" * 100_000 + "]" * 100_000, []),
        ("It is sunny.", "It is sunny.", []),
    ],
)
def test_every_format_is_read_and_answers_are_left_alone(
    reply: str, text: str, calls: list[tuple[str, dict[str, object]]]
) -> None:
    rest, found = parse_tool_calls(reply, NAMES)
    assert rest == text
    assert [(call.name, call.arguments) for call in found] == calls
    assert len({call.id for call in found}) == len(found), "each call has its own id"


@pytest.mark.parametrize(
    ("reply", "text", "calls"),
    [
        # a call of an offered tool cut in its arguments: the whole ones kept, no markup
        (
            f"Checking.\n<tool_call>{WEATHER}</tool_call>\n"
            '<tool_call>{"name": "add", "arguments": {"a": 1',
            "Checking.",
            [("get_weather", {"city": "Paris"})],
        ),
        # cut in the name of an offered tool, or right after the marker
        ('<tool_call>\n{"name": "get_wea', "", []),
        ("Let me look that up.\n<tool_call>\n", "Let me look that up.", []),
        ('[{"name": "ad', "", []),
        # prose that mentions the markup, cut: an answer, kept whole
        (
            "A Hermes model writes <tool_call> followed by a JSON object with",
            "A Hermes model writes <tool_call> followed by a JSON object with",
            [],
        ),
        # a JSON answer whose name is no tool's, cut: an answer, kept whole
        ('{"name": "Alice", "age": 3', '{"name": "Alice", "age": 3', []),
        ('{"name": "add_more', '{"name": "add_more', []),
    ],
)
def test_a_reply_cut_short_drops_only_a_call_begun(
    reply: str, text: str, calls: list[tuple[str, dict[str, object]]]
) -> None:
    """A reply cut by its token limit: an unfinished call of an offered tool is the
    template's markup, never shown; an answer that merely looks like one is the answer."""
    rest, found = parse_tool_calls(reply, NAMES, cut=True)
    assert rest == text
    assert [(call.name, call.arguments) for call in found] == calls


def test_a_stream_shows_the_words_and_never_half_a_call() -> None:
    reply = f"Let me check the weather.\n<tool_call>\n{WEATHER}\n</tool_call>"
    stream = ToolCallStream(NAMES)
    shown = "".join(stream.feed(reply[i : i + 3]) for i in range(0, len(reply), 3))
    assert shown == "Let me check the weather.\n"
    rest, calls = stream.finish()
    assert rest == "" and [c.name for c in calls] == ["get_weather"]


def test_a_stream_without_a_call_is_the_whole_reply() -> None:
    for reply in ("Plain words, with a < sign and [brackets].", '{"an": "answer"}'):
        stream = ToolCallStream(NAMES)
        shown = "".join(stream.feed(piece) for piece in reply)
        rest, calls = stream.finish()
        assert shown + rest == reply and calls == []


def test_a_template_without_tools_still_sees_the_calls_and_results_of_the_history() -> None:
    """With tool_choice "none" no tool list is offered, but earlier calls and results are
    written the Hermes way rather than dropped."""
    history = [
        engine_message({"role": "user", "content": "Weather in Paris?"}),
        engine_message(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            }
        ),
        engine_message({"role": "tool", "tool_call_id": "call_1", "content": "sunny"}),
    ]
    assert has_tool_parts(history)
    written = hermes_messages(history, [])
    assert [m["role"] for m in written] == ["user", "assistant", "user"], "no tool list added"
    assert (
        '"name": "get_weather"' in written[1]["content"] and "<tool_call>" in written[1]["content"]
    )
    assert written[2]["content"] == "<tool_response>\nsunny\n</tool_response>"


@pytest.mark.slow
def test_a_prompt_that_the_tools_fill_names_the_tools_not_the_message(
    client: Seat, spec: ModelSpec
) -> None:
    """A server with ten thousand tools once made the sentence blame "your message": the
    tools' descriptions are what does not fit, and the sentence says so."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": f"tool_{n}",
                "description": f"Tool number {n}, which does one small thing.",
                "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
            },
        }
        for n in range(2000)
    ]
    hi = [{"role": "user", "content": "Hi"}]
    _, events = collect(client.chat(spec, hi, {"tools": tools, "max_tokens": 8}))
    said = events[-1]
    assert said["kind"] == protocol.ERR_CONTEXT_OVERFLOW, said
    assert "The 2000 tools offered to this reply need about" in said["message"]
    assert "Your message" not in said["message"]
