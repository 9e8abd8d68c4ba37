"""Class 25: what the server cannot do is refused in words that name it, and nothing is
fetched.

An image given by a ``file://`` or ``http://`` address, in each dialect, was refused as
"Input should be a valid string"; an unknown Anthropic block was not named.  Now the
refusal says images are not read here, or names the block's type, and no address is
ever asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from app.engine.host import EngineHost
from tests.api_helpers import serving_one
from tests.hostile.loopback import Answer, Hostile
from tests.hostile.test_network import empty_object
from wire.model_spec import ModelSpec


def test_images_and_unknown_blocks_are_refused_in_words(
    host: EngineHost, spec: ModelSpec, serve: Callable[[Answer], Hostile]
) -> None:
    listener = serve(empty_object)
    remote = listener.url() + "/cat.png"
    image_url = [{"type": "image_url", "image_url": {"url": remote}}]
    local_path = "file:///etc/passwd"
    local = [{"type": "image_url", "image_url": {"url": local_path}}]
    asked: dict[str, list[dict[str, Any]]] = {
        "/v1/chat/completions": [
            {"messages": [{"role": "user", "content": image_url}]},
            {"messages": [{"role": "user", "content": local}]},
        ],
        "/v1/responses": [
            {
                "model": "tiny",
                "input": [
                    {"role": "user", "content": [{"type": "input_image", "image_url": remote}]}
                ],
            }
        ],
        "/v1/messages": [
            {
                "model": "tiny",
                "max_tokens": 8,
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "image", "source": {"type": "url", "url": remote}}],
                    }
                ],
            }
        ],
        # Ollama's images hold base64: an address there is said to be one
        "/api/chat": [
            {"model": "tiny", "messages": [{"role": "user", "content": "x", "images": [where]}]}
            for where in (remote, local_path)
        ],
    }
    with serving_one(host, spec, "tiny") as url:
        for path, bodies in asked.items():
            for body in bodies:
                answer = httpx.post(url + path, json=body, timeout=120)
                assert answer.status_code == 400, answer.text
                assert "image" in answer.text and "valid string" not in answer.text, answer.text
                assert "never fetches an address" in answer.text, answer.text
        hologram = {
            "model": "tiny",
            "max_tokens": 8,
            "messages": [{"role": "user", "content": [{"type": "hologram", "data": "x"}]}],
        }
        answer = httpx.post(url + "/v1/messages", json=hologram, timeout=120)
        assert answer.status_code == 400 and "hologram" in answer.text, answer.text
    assert listener.requests == []  # no address was ever asked
