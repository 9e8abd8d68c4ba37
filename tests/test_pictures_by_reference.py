"""Pictures travel from the chat to the worker by reference: the window process sends
their hash, kind, size and file, never their bytes; the worker reads the chat's picture
store, checks the hash, and keeps each picture by hash.  With the tests' tiny vision
model on the real worker and a real chat store."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest

from app.chat import store as st
from app.chat.listener import SessionListener
from app.chat.session import ChatSession
from app.chat.store import ChatStore
from app.core import Core
from app.engine.seat import Seat
from app.errors import HearthError
from app.models.library import describe, projector_beside
from app.picture_store import Pictures
from tests.conftest import collect
from tests.test_chat_session import finished, store  # noqa: F401 - a fixture
from tests.vision_model import VisionModel, png
from wire import images, protocol
from wire.model_spec import ModelSpec

pytestmark = pytest.mark.slow
ANSWERED = (st.COMPLETE, st.LENGTH)


class Ended(SessionListener):
    def __init__(self) -> None:
        self.notices: list[str] = []

    def notice(self, message: str) -> None:
        self.notices.append(message)


def noisy_png(seed: int, side: int = 96) -> bytes:
    """A photo-like picture: noise does not compress, so its file is tens of KB."""
    from PIL import Image

    chance = random.Random(seed)
    picture = Image.frombytes("RGB", (side, side), chance.randbytes(side * side * 3))
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def session(
    core: Core,
    store: ChatStore,  # noqa: F811 - the fixture
    client: Seat,
    vision_model: VisionModel,
) -> ChatSession:
    """A conversation with the tests' vision model, as the window and hearth chat hold it."""
    chat = ChatSession(core.settings, store, client, core.model_spec, Ended())
    chat.model = projector_beside(describe(vision_model.text, "added"))
    return chat


def test_a_follow_up_with_eight_pictures_sends_no_picture_bytes_to_the_worker(
    session: ChatSession, lines_to_workers: list[bytes]
) -> None:
    session.extra_params = {"temperature": 0, "max_tokens": 4, "ignore_eos": True}
    photos = [noisy_png(seed) for seed in range(images.MAX_IMAGES_PER_MESSAGE)]
    refs = [session.keep_picture(data, f"photo-{n}.png") for n, data in enumerate(photos)]
    first = finished(session, session.send("What is in these photos?", pictures=refs))
    assert first.status in ANSWERED and not first.error, first.error
    assert first.stats["image_tokens"] >= 8 * 16, "the model read all eight"
    lines_to_workers.clear()

    later = finished(session, session.send("And which one is the brightest?"))
    assert later.status in ANSWERED and not later.error, later.error
    assert later.stats["image_tokens"] == first.stats["image_tokens"], (
        "the follow-up shows the model the same eight pictures"
    )
    assert later.stats["cached_prompt_tokens"] > first.stats["image_tokens"]
    chats = [line for line in lines_to_workers if b'"type":"chat"' in line]
    assert chats, "the follow-up went to the worker"
    total = sum(map(len, photos))
    for line in chats:
        assert len(line) < total // 10, f"a request of {len(line)} bytes for {total} of pictures"
        for data in photos:
            encoded = images.image_part(data)["data"]
            assert encoded[100:160].encode() not in line, "a picture's bytes crossed the pipe"
    references = [ref["sha256"] for ref in refs]
    assert all(digest.encode() in chats[-1] for digest in references), "named by reference"


def test_a_picture_gone_from_the_store_is_said_before_anything_reaches_the_worker(
    session: ChatSession,
    store: ChatStore,  # noqa: F811 - the fixture
    lines_to_workers: list[bytes],
) -> None:
    ref = session.keep_picture(png((0, 128, 0)), "green.png")
    path = store.pictures.path(ref)
    assert path is not None
    path.unlink()  # removed by hand, or by another program, after it was attached
    with pytest.raises(HearthError, match=r"green\.png.*missing from Hearth's data folder"):
        session.send("What colour?", pictures=[ref])
    assert session.messages() == [], "nothing was written"
    assert not lines_to_workers, "nothing was sent"


def test_the_worker_refuses_a_picture_changed_on_disk_and_goes_on(
    client: Seat, vision_model: VisionModel, tmp_path: Any
) -> None:
    spec = ModelSpec(
        str(vision_model.text), n_ctx=2048, threads=1, projector=str(vision_model.projector)
    )
    kept = Pictures(tmp_path / "pictures")
    red = kept.put(png((255, 0, 0)), "red.png")
    path = kept.path(red)
    assert path is not None
    same_size = bytearray(path.read_bytes())
    same_size[-20] ^= 0xFF  # another picture of the same size, under the red one's name
    path.write_bytes(bytes(same_size))
    greedy = {"temperature": 0, "max_tokens": 4}
    asked = [{"role": "user", "content": images.with_parts("What?", [kept.part(red)])}]
    _, events = collect(client.chat(spec, asked, greedy))
    assert events[-1]["type"] == protocol.ERROR
    assert "changed on disk" in str(events[-1]["message"])
    blue = kept.put(png((0, 0, 255)), "blue.png")
    asked = [{"role": "user", "content": images.with_parts("What?", [kept.part(blue)])}]
    _, events = collect(client.chat(spec, asked, greedy))
    assert events[-1]["type"] == protocol.DONE, "the worker goes on reading pictures"
