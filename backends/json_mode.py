"""OpenAI's ``response_format`` as a GBNF grammar, for llama.cpp's grammar sampler.

``json_object`` is any JSON object; ``json_schema`` is the request's schema, turned into a
grammar by llama-cpp-python's converter (the one llama.cpp's own server uses), so even a
small model can only produce JSON that matches it.  Whitespace between tokens is limited
to one space (a model cannot run away in blank lines), and strings may not hold raw control
characters, which a JSON parser refuses.
"""

from __future__ import annotations

import json
from typing import Any

from backends.bounded import Exceeded, bounded
from backends.llama_loop import GrammarRefused
from backends.schema_bounds import SchemaTooLarge, check_grammar, check_schema

ANY_OBJECT: dict[str, Any] = {"type": "object"}
# The converter lets a string hold any character but the quote and backslash; JSON does
# not allow raw control characters (U+0000-U+001F) in a string.
LOOSE_CHAR = 'char ::= [^"\\\\]'
STRICT_CHAR = 'char ::= [^"\\\\\\x7F\\x00-\\x1F]'
# The converter is Python: past these the watchdog stops it (the bounds catch the rest first).
CONVERT_SECONDS = 10.0
CONVERT_BYTES = 512 * 1024 * 1024


def schema_of(response_format: Any) -> dict[str, Any] | None:
    """The JSON schema a ``response_format`` asks for; None for plain text."""
    if not isinstance(response_format, dict):
        return None
    kind = response_format.get("type")
    if kind == "json_object":
        return ANY_OBJECT
    if kind == "json_schema":
        wrapper = response_format.get("json_schema") or {}
        schema = wrapper.get("schema") if isinstance(wrapper, dict) else None
        return schema if isinstance(schema, dict) and schema else ANY_OBJECT
    return None


def grammar_for(response_format: Any) -> str | None:
    """The GBNF grammar for a ``response_format``; None when it asks for text."""
    schema = schema_of(response_format)
    return None if schema is None else grammar_for_schema(schema)


def grammar_for_schema(schema: dict[str, Any]) -> str:
    """The GBNF grammar of JSON that matches ``schema`` (its start rule is ``root``)."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    try:
        check_schema(schema)  # before the converter: its repetitions cannot be interrupted
    except SchemaTooLarge as exc:
        raise GrammarRefused(str(exc)) from exc
    try:
        with bounded(CONVERT_SECONDS, CONVERT_BYTES):
            grammar = json_schema_to_gbnf(json.dumps(schema))
    except Exceeded as exc:
        raise GrammarRefused(
            f"turning the JSON schema into a grammar took more {exc.what} than allowed"
        ) from None
    except Exception as exc:  # the converter raises whatever a schema provokes
        raise GrammarRefused(f"the JSON schema cannot be turned into a grammar ({exc})") from exc
    grammar = str(grammar).replace(LOOSE_CHAR, STRICT_CHAR)
    try:
        check_grammar(grammar)
    except SchemaTooLarge as exc:
        raise GrammarRefused(str(exc)) from exc
    return grammar
