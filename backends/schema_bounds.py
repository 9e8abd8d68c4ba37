"""What a request's JSON schema (or raw grammar) may ask of the grammar sampler, checked
before anything is built from it.

Why: llama-cpp-python's converter writes ``maxLength: n`` and a regex ``{0,n}`` as ``n``
nested optional groups and ``minLength``/``minItems: n`` as ``n`` copies, in one Python
operation that no watchdog can interrupt.  A body of a hundred bytes could then make the
worker allocate gigabytes (``minLength: 10**9``) or overflow llama.cpp's recursive grammar
parser's stack (``{0,1000000}``: a SIGSEGV).  llama.cpp itself refuses grammars nested
deeper than about a thousand groups, so a larger count could never be served anyway.  An
enum of 100,000 strings is legal, but each token then costs seconds.  Each bound is named
in the refusal, which the API answers as a 400.
"""

from __future__ import annotations

import re
from typing import Any

MAX_REPEAT = 1000  # minLength, maxLength, minItems, maxItems, properties, regex {m,n}
MAX_NESTED_REPEAT = 1024  # regex repetitions inside repetitions, multiplied (nested_repeats)
MAX_ENUM = 1000  # entries of one enum
MAX_SCHEMA_DEPTH = 1000  # objects and lists inside one another (the converter recurses)
MAX_SCHEMA_NODES = 20_000  # schemas, properties and entries, all counted
MAX_GRAMMAR_CHARS = 1_000_000  # the grammar's text, raw or converted
MAX_GRAMMAR_NESTING = 1000  # parenthesised groups inside one another

COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")
_QUANTIFIER = re.compile(r"\{\s*(\d+)\s*(?:,\s*(\d*)\s*)?\}")


class SchemaTooLarge(ValueError):
    """The schema or grammar asks for more than a bound; ``str()`` names it."""


def check_schema(schema: Any) -> None:
    """Raise SchemaTooLarge when ``schema`` asks for more than the bounds above."""
    stack: list[tuple[Any, int]] = [(schema, 0)]
    nodes = 0
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if nodes > MAX_SCHEMA_NODES:
            raise SchemaTooLarge(f"the schema has more than {MAX_SCHEMA_NODES} parts")
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaTooLarge(f"the schema is nested more than {MAX_SCHEMA_DEPTH} deep")
        if isinstance(node, dict):
            _check_keywords(node)
            stack.extend((value, depth + 1) for value in node.values())
        elif isinstance(node, list):
            stack.extend((value, depth + 1) for value in node)


def _check_keywords(node: dict[str, Any]) -> None:
    for key in COUNTS:
        value = node.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > MAX_REPEAT:
            raise SchemaTooLarge(f"{key} is {value:g}; at most {MAX_REPEAT} is allowed")
    enum = node.get("enum")
    if isinstance(enum, list) and len(enum) > MAX_ENUM:
        raise SchemaTooLarge(f"an enum has {len(enum)} entries; at most {MAX_ENUM} are allowed")
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        check_pattern(pattern)


def check_pattern(pattern: str) -> None:
    """A regex's repetition counts (``{m}``, ``{m,n}``) are at most ``MAX_REPEAT``, and
    what repetitions nested in one another multiply to at most ``MAX_NESTED_REPEAT``."""
    for match in _QUANTIFIER.finditer(pattern):
        counts = [int(group) for group in match.groups() if group]
        if counts and max(counts) > MAX_REPEAT:
            raise SchemaTooLarge(
                f"the pattern repeats {max(counts)} times ({match.group()}); "
                f"at most {MAX_REPEAT} is allowed"
            )
    nested = nested_repeats(pattern)
    if nested > MAX_NESTED_REPEAT:
        raise SchemaTooLarge(
            f"the pattern's repetitions inside repetitions multiply to {nested:,} ways of "
            f"reading it; at most {MAX_NESTED_REPEAT:,} are allowed"
        )


def nested_repeats(pattern: str) -> int:
    """The most that repetitions nested in one another multiply to, along any nesting
    path: each bounded one ``{m,n}`` counts n + 1, each ``?``, ``*`` or ``+`` 2, a group
    the most of what is in it.  1 when nothing repeats inside a repetition.

    Why: llama.cpp's grammar sampler keeps one parse stack for each way of reading the
    text so far, and a repetition inside a repetition can be read in about as many ways as
    their counts multiply to (``((a{0,999}){0,999}){0,999}`` wedged a worker with each
    count under the single bound).  A single repetition costs one stack whatever its count,
    and so does one in sequence after another: only nesting multiplies.
    """
    # Each open group keeps (the most nested product in it so far, the current atom's).
    stack: list[int] = [1]
    atom = 1  # what the last atom holds nested (1: a character; a group: its most)
    deepest = 1
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            atom, index = 1, index + 2
            continue
        if char == "[":
            index = _class_end(pattern, index)
            atom = 1
            continue
        if char == "(":
            stack.append(1)
            index += 1
            if pattern.startswith("?", index):  # (?:  (?=  (?!  (?<name>: no quantifier
                index += 1
            continue
        if char == ")":
            atom = stack.pop() if len(stack) > 1 else 1
            stack[-1] = max(stack[-1], atom)  # what repeats in a group is in its parent too
            index += 1
            continue
        count, width = _quantifier_at(pattern, index)
        if width:
            product = atom * count
            if atom > 1:  # a repetition of something that repeats: nested
                deepest = max(deepest, product)
            stack[-1] = max(stack[-1], product)
            atom = 1
            index += width
            continue
        atom = 1
        index += 1
    return max(deepest, 1)


def _class_end(pattern: str, start: int) -> int:
    """The index after the character class that opens at ``start``."""
    index = start + 1
    if pattern.startswith("^", index):
        index += 1
    if pattern.startswith("]", index):
        index += 1
    while index < len(pattern) and pattern[index] != "]":
        index += 2 if pattern[index] == "\\" else 1
    return index + 1


def _quantifier_at(pattern: str, index: int) -> tuple[int, int]:
    """(what the quantifier at ``index`` counts for nesting, its width): ``{m,n}`` n + 1
    (m + 1 without n), ``?``, ``*`` and ``+`` 2; (1, 0) when there is none."""
    char = pattern[index]
    if char in "?*+":
        lazy = 1 if pattern.startswith("?", index + 1) else 0
        return 2, 1 + lazy
    match = _QUANTIFIER.match(pattern, index) if char == "{" else None
    if match is None:
        return 1, 0
    low, high = match.group(1), match.group(2)
    return int(high or low) + 1, len(match.group())


def check_grammar(grammar: str) -> None:
    """A grammar's text is at most ``MAX_GRAMMAR_CHARS`` long and its groups nested at
    most ``MAX_GRAMMAR_NESTING`` deep (outside quoted strings, character classes and
    comments, whose quotes would otherwise hide the groups after them)."""
    if len(grammar) > MAX_GRAMMAR_CHARS:
        raise SchemaTooLarge(
            f"the grammar is {len(grammar):,} characters; at most {MAX_GRAMMAR_CHARS:,} are allowed"
        )
    depth = deepest = 0
    quoted = bracketed = escaped = comment = False
    for character in grammar:
        if comment:
            comment = character not in "\r\n"
        elif escaped:
            escaped = False
        elif character == "\\":
            escaped = True
        elif quoted:
            quoted = character != '"'
        elif bracketed:
            bracketed = character != "]"
        elif character == "#":  # a comment, to the end of its line
            comment = True
        elif character == '"':
            quoted = True
        elif character == "[":
            bracketed = True
        elif character == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif character == ")":
            depth -= 1
    if deepest > MAX_GRAMMAR_NESTING:
        raise SchemaTooLarge(
            f"the grammar nests {deepest} groups; at most {MAX_GRAMMAR_NESTING} are allowed"
        )
