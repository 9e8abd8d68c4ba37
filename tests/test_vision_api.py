"""Pictures through Hearth's API, in each dialect, with the tests' tiny vision model on the
real worker: OpenAI's ``image_url`` data URLs (chat and responses), Ollama's ``images``
(chat and generate), Anthropic's base64 ``image`` blocks.  The picture reaches the model
(the prompt grows by its tokens, another picture gives another greedy reply), an address
is refused in words and never asked, and "vision" is listed for the model."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.engine.host import EngineHost
from app.serve.pictures import RequestPictures
from tests.api_helpers import serving_one
from tests.hostile.loopback import Hostile
from tests.hostile.test_network import empty_object
from tests.vision_model import VisionModel, png
from wire import images
from wire.model_spec import ModelSpec

pytestmark = pytest.mark.slow

RED = base64.b64encode(png((255, 0, 0))).decode()
BLUE = base64.b64encode(png((0, 0, 255))).decode()
GREEDY = {"temperature": 0, "max_tokens": 6, "ignore_eos": True}


@pytest.fixture
def kept(tmp_path: Path) -> RequestPictures:
    """Where the server keeps its requests' pictures, as ``hearth serve`` does."""
    return RequestPictures(tmp_path / "api-pictures")


@pytest.fixture
def served(host: EngineHost, vision_model: VisionModel, kept: RequestPictures) -> Iterator[str]:
    spec = ModelSpec(
        str(vision_model.text), n_ctx=2048, threads=1, projector=str(vision_model.projector)
    )
    with serving_one(host, spec, "tiny-vision", {"reads_images": True}, kept) as url:
        yield url


def post(url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(url + path, json=body, timeout=300)
    assert answer.status_code == 200, answer.text
    reply: dict[str, Any] = answer.json()
    return reply


def openai_chat(picture: str | None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": "What is this?"}]
    if picture:
        url = f"data:image/png;base64,{picture}"
        content.insert(0, {"type": "image_url", "image_url": {"url": url}})
    return {
        "model": "tiny-vision",
        "messages": [{"role": "user", "content": content}],
        "temperature": 0,
        "max_tokens": 6,
        "ignore_eos": True,
    }


def test_openai_chat_reads_the_picture(served: str) -> None:
    plain = post(served, "/v1/chat/completions", openai_chat(None))
    red = post(served, "/v1/chat/completions", openai_chat(RED))
    blue = post(served, "/v1/chat/completions", openai_chat(BLUE))
    grown = red["usage"]["prompt_tokens"] - plain["usage"]["prompt_tokens"]
    assert grown >= 16, "the prompt grows by the picture's tokens"
    said = [r["choices"][0]["message"]["content"] for r in (red, blue)]
    assert said[0] != said[1], "the model saw which picture it was given"


def test_a_picture_is_kept_once_and_reaches_the_worker_by_reference(
    served: str, kept: RequestPictures, lines_to_workers: list[bytes]
) -> None:
    """A client sends a conversation's picture again with every turn: it is kept once,
    and only its reference crosses the pipe to the worker."""
    lines = lines_to_workers
    first = post(served, "/v1/chat/completions", openai_chat(RED))
    again = post(served, "/v1/chat/completions", openai_chat(RED))
    assert first["choices"][0]["message"] == again["choices"][0]["message"]
    files = [p for p in (kept.store.folder or Path()).rglob("*.png")]
    assert [p.name for p in files] == [images.digest(base64.b64decode(RED)) + ".png"]
    chats = [line for line in lines if b'"type":"chat"' in line]
    assert len(chats) == 2
    assert all(RED[40:100].encode() not in line for line in chats), "no picture bytes"
    assert all(files[0].name[:64].encode() in line for line in chats), "by reference"


def test_responses_ollama_and_anthropic_read_it_too(served: str) -> None:
    def responses(picture: str) -> str:
        part = {"type": "input_image", "image_url": f"data:image/png;base64,{picture}"}
        reply = post(
            served,
            "/v1/responses",
            {
                "model": "tiny-vision",
                "input": [
                    {"role": "user", "content": [part, {"type": "input_text", "text": "What?"}]}
                ],
                "temperature": 0,
                "max_output_tokens": 6,
            },
        )
        return str(reply["output"][-1]["content"][0]["text"])

    def ollama_chat(picture: str) -> str:
        message = {"role": "user", "content": "What is this?", "images": [picture]}
        body = {"model": "tiny-vision", "messages": [message], "stream": False}
        reply = post(served, "/api/chat", {**body, "options": {"temperature": 0, "num_predict": 6}})
        return str(reply["message"]["content"])

    def ollama_generate(picture: str) -> str:
        body = {"model": "tiny-vision", "prompt": "What?", "images": [picture], "stream": False}
        reply = post(
            served, "/api/generate", {**body, "options": {"temperature": 0, "num_predict": 6}}
        )
        return str(reply["response"])

    def anthropic(picture: str) -> str:
        block = {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": picture},
        }
        reply = post(
            served,
            "/v1/messages",
            {
                "model": "tiny-vision",
                "max_tokens": 6,
                "temperature": 0,
                "messages": [
                    {"role": "user", "content": [block, {"type": "text", "text": "What?"}]}
                ],
            },
        )
        return "".join(b.get("text", "") for b in reply["content"])

    for dialect in (responses, ollama_chat, ollama_generate, anthropic):
        red, blue = dialect(RED), dialect(BLUE)
        assert red and blue and red != blue, f"{dialect.__name__} passed the picture on"


def test_an_address_is_refused_and_never_asked(served: str) -> None:
    listener = Hostile(empty_object)
    try:
        body = openai_chat(None)
        address = {"type": "image_url", "image_url": {"url": listener.url() + "/cat.png"}}
        body["messages"][0]["content"].append(address)
        answer = httpx.post(served + "/v1/chat/completions", json=body, timeout=60)
        assert answer.status_code == 400 and "never fetches an address (http:)" in answer.text
        assert listener.requests == []
    finally:
        listener.close()


def test_ollama_lists_vision(served: str) -> None:
    shown = post(served, "/api/show", {"model": "tiny-vision"})
    assert "vision" in shown["capabilities"]
