"""Tools (function calling) in the prompt, and a grammar that makes a model call one.

A chat template that knows tools (Qwen, Llama 3.x, Mistral, Hermes…) receives them as
``tools`` and renders the history's tool calls and results itself.  A template that does
not (the starter model's) gets them the Hermes way, which small models follow best: a
system message that lists the tools as JSON and asks for ``<tool_call>{…}</tool_call>``,
earlier calls written in that form and results as ``<tool_response>`` user turns.

``tool_choice`` ``"required"`` or a named function is enforced by a grammar: the reply is
one ``<tool_call>`` whose JSON names a given tool and whose arguments match its parameter
schema.  The server parses calls out of the reply in every format (``app.serve``).
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from backends.context_budget import ContextOverflow
from backends.json_mode import grammar_for_schema
from wire import images
from wire.phrases import Phrase, message_of

TOOL_CALL_OPEN, TOOL_CALL_CLOSE = "<tool_call>", "</tool_call>"
CHARACTERS_PER_TOKEN = 3  # JSON schemas tokenize densely; a rough count is enough here
HERMES_SYSTEM = (
    "You may call one or more functions to answer the user. The functions are given as "
    "JSON schemas inside <tools></tools>:\n<tools>\n{tools}\n</tools>\n"
    "To call a function, answer with a JSON object naming it and its arguments inside "
    '<tool_call></tool_call> tags:\n<tool_call>\n{{"name": "<function-name>", '
    '"arguments": {{<args-json-object>}}}}\n</tool_call>'
)


def chosen_tools(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's tools that the model may call (none for ``tool_choice: "none"``)."""
    tools = params.get("tools")
    if not isinstance(tools, list) or params.get("tool_choice") == "none":
        return []
    return [t for t in tools if isinstance(t, dict) and isinstance(t.get("function"), dict)]


def engine_message(message: dict[str, Any]) -> dict[str, Any]:
    """A message as templates expect it: text content, and an assistant's tool calls with
    their arguments as an object (OpenAI sends them as a JSON string)."""
    content = message.get("content")
    normal: dict[str, Any] = {
        "role": str(message.get("role", "user")),
        # A message with pictures keeps its parts (``wire.images``); the engine that
        # reads pictures places them.
        "content": content if images.images_of(message) else images.text_of(content),
    }
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        normal["tool_calls"] = [
            _call_for_template(call) for call in calls if isinstance(call, dict)
        ]
    for key in ("tool_call_id", "name"):
        if isinstance(message.get(key), str):
            normal[key] = message[key]
    return normal


def _call_for_template(call: dict[str, Any]) -> dict[str, Any]:
    inner = call.get("function")
    function: dict[str, Any] = inner if isinstance(inner, dict) else call
    arguments = function.get("arguments", {})
    if isinstance(arguments, str):
        with contextlib.suppress(ValueError):  # a template that prints it gets the text
            arguments = json.loads(arguments)
    return {
        "id": str(call.get("id", "")),
        "type": "function",
        "function": {"name": str(function.get("name", "")), "arguments": arguments},
    }


def has_tool_parts(messages: list[dict[str, Any]]) -> bool:
    """Whether the history holds tool calls or results (with the tools offered or not)."""
    return any(m["role"] == "tool" or m.get("tool_calls") for m in messages)


def hermes_messages(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Tools, earlier calls and results written into the conversation for a template that
    does not take them (the tool list only when tools are offered)."""
    listed = "\n".join(json.dumps(tool, ensure_ascii=False) for tool in tools)
    instruction = HERMES_SYSTEM.format(tools=listed) if tools else ""
    written: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "tool":
            result = f"<tool_response>\n{message.get('content', '')}\n</tool_response>"
            written.append({"role": "user", "content": result})
        elif role == "assistant" and message.get("tool_calls"):
            calls = "\n".join(
                f"{TOOL_CALL_OPEN}\n{json.dumps(call['function'], ensure_ascii=False)}\n"
                f"{TOOL_CALL_CLOSE}"
                for call in message["tool_calls"]
            )
            text = f"{message.get('content') or ''}\n{calls}".strip()
            written.append({"role": "assistant", "content": text})
        else:
            written.append({"role": role, "content": message.get("content", "")})
    if not instruction:
        return written
    if written and written[0]["role"] == "system":
        first = written[0]
        return [{"role": "system", "content": f"{first['content']}\n\n{instruction}"}, *written[1:]]
    return [{"role": "system", "content": instruction}, *written]


def overflow_message(exc: ContextOverflow, params: dict[str, Any]) -> str:
    """The sentence for a prompt that does not fit: the tools' when their descriptions
    take most of the room (ten thousand tools from one server once said "Your message
    needs 599004 tokens"), else the message's."""
    tools = chosen_tools(params)
    described = len(json.dumps(tools, ensure_ascii=False)) // CHARACTERS_PER_TOKEN
    if tools and described * 2 >= exc.needed:
        return Phrase(
            "The {0} tools offered to this reply need about {1} tokens, more than this "
            "model's context leaves ({2}). Offer fewer tools (the Tools menu, or --tools "
            "SERVER/TOOL) or raise the context length.",
            len(tools),
            described,
            exc.available,
        )
    return message_of(exc)


def forces_call(params: dict[str, Any]) -> bool:
    """``tool_choice`` ``"required"`` or a named function, with tools to call."""
    return bool(chosen_tools(params)) and params.get("tool_choice") not in (None, "auto", "none")


def tool_call_grammar(params: dict[str, Any]) -> str | None:
    """The grammar for ``tool_choice`` ``"required"`` or a named function; None when the
    model may answer in words (``"auto"``, the default)."""
    if not forces_call(params):
        return None
    tools = chosen_tools(params)
    choice = params.get("tool_choice")
    if isinstance(choice, dict):
        wanted = str((choice.get("function") or {}).get("name", ""))
        tools = [t for t in tools if t["function"].get("name") == wanted]
    calls = [
        {
            "type": "object",
            "properties": {
                "name": {"const": tool["function"].get("name", "")},
                "arguments": tool["function"].get("parameters") or {"type": "object"},
            },
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for tool in tools
    ]
    schema = calls[0] if len(calls) == 1 else {"anyOf": calls}
    call = grammar_for_schema(schema)
    call = re.sub(r"^root ::=", "tool-call ::=", call, count=1, flags=re.MULTILINE)
    return f'root ::= "{TOOL_CALL_OPEN}\\n" tool-call "\\n{TOOL_CALL_CLOSE}"\n{call}'
