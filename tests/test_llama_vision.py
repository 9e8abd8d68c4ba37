"""Images reach a llama.cpp model through its projector (backends/llama_vision.py), with
the tests' tiny vision model: the prompt grows by the image's tokens, two different images
give different greedy replies, and a file that is no picture is refused in words."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.vision_model import VisionModel, bomb, png
from wire import images

pytestmark = pytest.mark.slow

MARKER_PROMPT = "<|im_start|>User:{0}What is in this image?<end_of_utterance>\nAssistant:"


def files(*data: bytes) -> list[Any]:
    """Pictures as a worker holds them once read: their bytes and their hash."""
    from backends.picture_files import PictureFile

    return [PictureFile(images.digest(each), each) for each in data]


@pytest.fixture(scope="module")
def engine(vision_model: VisionModel) -> Iterator[tuple[Any, Any]]:
    import llama_cpp

    from backends.llama_vision import Projector

    model = llama_cpp.Llama(str(vision_model.text), n_ctx=2048, n_threads=1, verbose=False)
    projector = Projector(str(vision_model.projector), model.model, threads=1)
    yield model, projector
    projector.close()
    model.close()


def greedy(model: Any, projector: Any, prompt: str, images: list[bytes], n: int = 6) -> list[int]:
    import llama_cpp
    import numpy as np

    llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(model.ctx), True)
    read = projector.read(prompt, files(*images))
    try:
        position = projector.evaluate(read, model.ctx, seq_id=0, n_past=0, n_batch=512)
    finally:
        read.free()
    assert position > 0
    vocab = llama_cpp.llama_model_get_vocab(model.model)
    size = llama_cpp.llama_vocab_n_tokens(vocab)
    chosen: list[int] = []
    for _ in range(n):
        logits = llama_cpp.llama_get_logits_ith(model.ctx, -1)
        token = int(np.argmax(np.ctypeslib.as_array(logits, shape=(size,))))
        chosen.append(token)
        batch = (llama_cpp.llama_token * 1)(token)
        assert llama_cpp.llama_decode(model.ctx, llama_cpp.llama_batch_get_one(batch, 1)) == 0
    return chosen


def test_an_image_adds_its_tokens_to_the_prompt(engine: tuple[Any, Any]) -> None:
    _model, projector = engine
    plain = projector.read(MARKER_PROMPT.format(""), [])
    seen = projector.read(MARKER_PROMPT.format(projector.marker), files(png((255, 0, 0))))
    try:
        assert plain.image_tokens == 0
        assert seen.image_tokens >= 16, "at least one tile of 16 embeddings"
        assert seen.n_tokens >= plain.n_tokens + seen.image_tokens
    finally:
        plain.free()
        seen.free()


def test_two_images_give_two_replies(engine: tuple[Any, Any]) -> None:
    model, projector = engine
    prompt = MARKER_PROMPT.format(projector.marker)
    red = greedy(model, projector, prompt, [png((255, 0, 0))])
    blue = greedy(model, projector, prompt, [png((0, 0, 255))])
    assert red != blue, "the model saw the picture"
    assert greedy(model, projector, prompt, [png((255, 0, 0))]) == red, "greedy is repeatable"


def test_a_file_that_is_no_picture_is_refused_in_words(engine: tuple[Any, Any]) -> None:
    from backends.pictures import VisionError

    _model, projector = engine
    prompt = MARKER_PROMPT.format(projector.marker)
    with pytest.raises(VisionError, match="Picture 1 could not be read"):
        projector.read(prompt, files(b"\x89PNG\r\n\x1a\n truncated"))
    whole = png((0, 0, 255), (256, 256))
    with pytest.raises(VisionError, match="Picture 1 could not be read"):
        projector.read(prompt, files(whole[: len(whole) // 2]))  # cut off half-way
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>'
    with pytest.raises(VisionError, match="Picture 1 could not be read"):
        projector.read(prompt, files(svg))
    with pytest.raises(VisionError, match="do not match the prompt's image places"):
        projector.read(prompt, [])
    with pytest.raises(VisionError, match="has too many pixels"):
        projector.read(prompt, files(bomb(50_000, 50_000)))
    still = projector.read(prompt, files(png((0, 255, 0))))  # and it goes on reading pictures
    assert still.image_tokens > 0
    still.free()
