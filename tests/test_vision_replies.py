"""Pictures in a conversation reach a llama.cpp model through the real worker, its slots
and its projector (``backends/llama_images.py``), with the tests' tiny vision model: the
prompt grows by the picture's tokens, two pictures give two greedy replies, a follow-up
reads only what is new, and a damaged picture or a text-only model is refused in words
while the worker keeps serving."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.seat import Seat
from tests.conftest import collect
from tests.vision_model import VisionModel, bomb, png
from wire import images, protocol
from wire.model_spec import TRANSFORMERS, ModelSpec

pytestmark = pytest.mark.slow

GREEDY = {"temperature": 0, "max_tokens": 8, "ignore_eos": True, "prompt_lookup": False}
RED, BLUE = png((255, 0, 0)), png((0, 0, 255))


@pytest.fixture
def vision_spec(vision_model: VisionModel) -> ModelSpec:
    return ModelSpec(
        str(vision_model.text), n_ctx=2048, threads=1, projector=str(vision_model.projector)
    )


def ask(client: Seat, spec: ModelSpec, messages: list[dict[str, Any]]) -> tuple[str, dict]:
    text, events = collect(client.chat(spec, messages, GREEDY))
    ending = events[-1]
    assert ending["type"] == "done", ending
    return text, next(e for e in events if e["type"] == protocol.STATS)


def user(text: str, *pictures: bytes) -> dict[str, Any]:
    return {"role": "user", "content": images.content(text, list(pictures))}


def test_a_picture_reaches_the_model(client: Seat, vision_spec: ModelSpec) -> None:
    _, plain = ask(client, vision_spec, [user("What is in this picture?")])
    red_text, red = ask(client, vision_spec, [user("What is in this picture?", RED)])
    # A 64 × 64 picture is 5 tiles of 16 tokens for this model (libmtmd says how many).
    assert red["image_tokens"] >= 16
    assert red["prompt_tokens"] >= plain["prompt_tokens"] + red["image_tokens"]
    blue_text, _ = ask(client, vision_spec, [user("What is in this picture?", BLUE)])
    assert red_text != blue_text, "the model saw which picture it was given"
    again, _ = ask(client, vision_spec, [user("What is in this picture?", RED)])
    assert again == red_text, "greedy decoding repeats itself for the same picture"


def test_a_follow_up_reads_only_what_is_new(client: Seat, vision_spec: ModelSpec) -> None:
    first = [user("Describe it.", RED)]
    reply, stats = ask(client, vision_spec, first)
    follow_up = [*first, {"role": "assistant", "content": reply}, user("And now?")]
    _, later = ask(client, vision_spec, follow_up)
    assert later["cached_prompt_tokens"] > stats["image_tokens"], (
        "the picture read for the first question is reused, not read again"
    )
    # Another picture in its place is read anew: nothing of the first is reused past it.
    other = [user("Describe it.", BLUE), {"role": "assistant", "content": reply}, user("And now?")]
    _, changed = ask(client, vision_spec, other)
    assert changed["cached_prompt_tokens"] < later["cached_prompt_tokens"]


def test_two_pictures_in_one_message(client: Seat, vision_spec: ModelSpec) -> None:
    _, one = ask(client, vision_spec, [user("Compare them.", RED)])
    _, two = ask(client, vision_spec, [user("Compare them.", RED, BLUE)])
    assert two["image_tokens"] == 2 * one["image_tokens"]


@pytest.mark.parametrize(
    ("picture", "words"),
    [
        (RED[: len(RED) // 2], "could not be read"),
        (b"GIF89a not really", "could not be read"),
        (bomb(50_000, 50_000), "too many pixels"),
    ],
    ids=["truncated", "not-a-picture", "decompression-bomb"],
)
def test_a_hostile_picture_is_refused_and_the_worker_goes_on(
    client: Seat, vision_spec: ModelSpec, picture: bytes, words: str
) -> None:
    _, events = collect(client.chat(vision_spec, [user("What is it?", picture)], GREEDY))
    error = events[-1]
    assert error["type"] == protocol.ERROR and error["kind"] == protocol.ERR_BAD_REQUEST
    assert words in error["message"]
    pid = client.worker_pid
    text, _ = ask(client, vision_spec, [user("And this one?", RED)])
    assert text and client.worker_pid == pid, "the same worker keeps reading pictures"


def test_pictures_past_a_requests_pixels_together_are_refused_before_decoding(
    client: Seat, vision_spec: ModelSpec
) -> None:
    """Six pictures of 36 megapixels each (each under the bound of one picture) are more
    than a request reads at once: refused in words that say so, from their headers, and
    the worker goes on."""
    six = [bomb(6000, 6000)] * 6
    _, events = collect(client.chat(vision_spec, [user("Compare them.", *six)], GREEDY))
    error = events[-1]
    assert error["type"] == protocol.ERROR and error["kind"] == protocol.ERR_BAD_REQUEST
    assert "216 million pixels together" in error["message"], error
    text, _ = ask(client, vision_spec, [user("And this one?", RED)])
    assert text


def test_a_text_model_says_it_cannot_see_pictures(client: Seat, spec: ModelSpec) -> None:
    _, events = collect(client.chat(spec, [user("What is it?", RED)], GREEDY))
    error = events[-1]
    assert error["type"] == protocol.ERROR and error["kind"] == protocol.ERR_BAD_REQUEST
    assert "reads text only" in error["message"]
    text, _ = ask(client, spec, [user("Hello")])
    assert text


def test_a_checkpoint_reads_the_picture_through_its_processor(
    client: Seat, vision_model: VisionModel
) -> None:
    """The same tiny model as a transformers checkpoint: the processor places the picture's
    tokens (as many as llama.cpp's, the same model), and the picture changes the reply."""
    spec = ModelSpec(str(vision_model.checkpoint), n_ctx=2048, threads=1, engine=TRANSFORMERS)
    _, plain = ask(client, spec, [user("What is in this picture?")])
    red_text, red = ask(client, spec, [user("What is in this picture?", RED)])
    blue_text, _ = ask(client, spec, [user("What is in this picture?", BLUE)])
    assert red["image_tokens"] >= 16
    assert red["prompt_tokens"] >= plain["prompt_tokens"] + red["image_tokens"]
    assert red_text != blue_text
    _, events = collect(client.chat(spec, [user("What is it?", bomb(50_000, 50_000))], GREEDY))
    assert events[-1]["kind"] == protocol.ERR_BAD_REQUEST
    assert "too many pixels" in events[-1]["message"]
