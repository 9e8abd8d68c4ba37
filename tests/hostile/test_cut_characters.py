"""Class 21: a reply cut by its token limit in the middle of a character never ends in
U+FFFD.

Chinese characters and emoji take several tokens of a byte-level vocabulary; a token
limit can fall between them.  The incomplete bytes at the end are held back and dropped,
in the text streamed (which every front end and API dialect shows) and in the reply
decoded in one piece.
"""

from __future__ import annotations

import itertools

import pytest

from app.engine.seat import Seat
from backends.text_stream import TextAssembler, complete_text
from tests.conftest import collect
from wire.model_spec import ModelSpec


def test_the_half_of_a_character_at_the_end_is_dropped() -> None:
    data = "好的，熊猫".encode()
    assembler = TextAssembler(strip_leading=False)
    shown = assembler.feed(data[:-2]) + assembler.finish()  # the last character cut
    assert shown == "好的，熊" and assembler.text == "好的，熊"
    assert complete_text(data[:-1]) == "好的，熊"
    assert complete_text(b"ok \xff then") == "ok \ufffd then"  # not at the end: still said


@pytest.mark.slow
def test_no_token_limit_leaves_a_replacement_character(client: Seat, spec: ModelSpec) -> None:
    prompt = [{"role": "user", "content": "用中文写一首关于熊猫和竹子的短诗。🐼🎋"}]
    texts = []
    for limit in range(1, 41):
        params = {"temperature": 0, "max_tokens": limit, "final_text": True}
        text, events = collect(client.chat(spec, prompt, params))
        final = next(e["text"] for e in events if e.get("kind") == "final_text")
        assert "\ufffd" not in text, f"max_tokens {limit}: {text!r}"
        assert text == final
        if events[-1].get("finish_reason") == "length":
            texts.append(text)
    # One more token that adds no text: the limit before it fell inside a character.
    assert any(a == b and a for a, b in itertools.pairwise(texts)), texts
