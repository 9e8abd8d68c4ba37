"""Pictures in a conversation, through the chat session as ``hearth chat --image`` and the
window use it, with the tests' tiny vision model: the picture reaches the model, is kept
once in the data folder by its hash (and sent again on a follow-up), goes out with an
export and back in with an import, and is removed when no conversation names it; a text
model refuses a conversation with pictures before anything is written."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from app import picture_store as pictures_module
from app.chat.store import ChatStore
from app.chat.transfer import export_document, export_markdown, import_document
from tests.conftest import run_hearth
from tests.vision_model import VisionModel, png
from wire import images

pytestmark = pytest.mark.slow

RED, BLUE = png((255, 0, 0)), png((0, 0, 255))


def chat(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    done = run_hearth(
        "chat", "--json", "--temperature", "0", "--max-tokens", "6", "--ctx", "2048", *args
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.returncode, events, done.stderr


def said(events: list[dict[str, Any]]) -> str:
    return "".join(e.get("text", "") for e in events if e.get("type") == "delta")


def stats(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e.get("type") == "stats")


def test_hearth_chat_shows_the_model_a_picture(
    vision_model: VisionModel, tmp_path: Path, data_dir: Path
) -> None:
    red, blue = tmp_path / "red.png", tmp_path / "blue.webp"
    red.write_bytes(RED)
    blue.write_bytes(BLUE)  # a PNG named .webp: the kind is read from its bytes
    model = str(vision_model.text)
    code, plain, err = chat("--model", model, "What is this?")
    assert code == 0, err
    code, seen_red, err = chat("--model", model, "--image", str(red), "--save", "What is this?")
    assert code == 0, err
    assert stats(seen_red)["image_tokens"] >= 16
    assert stats(seen_red)["prompt_tokens"] >= (
        stats(plain)["prompt_tokens"] + stats(seen_red)["image_tokens"]
    )
    code, seen_blue, err = chat("--model", model, "--image", str(blue), "What is this?")
    assert code == 0, err
    assert said(seen_red) != said(seen_blue), "the model saw which picture it was given"
    kept = list((data_dir / "pictures").rglob("*.png"))
    assert [p.name for p in kept] == [images.digest(RED) + ".png"], "kept once, by its hash"
    saved = next(e for e in seen_red if e.get("type") == "saved")
    code, later, err = chat("--model", model, "--continue", str(saved["conversation_id"]), "And?")
    assert code == 0, err
    assert stats(later)["image_tokens"] == stats(seen_red)["image_tokens"], "sent again"


def test_a_text_model_refuses_pictures_before_anything_is_written(
    starter: Path, tmp_path: Path, data_dir: Path
) -> None:
    red = tmp_path / "red.png"
    red.write_bytes(RED)
    code, _events, err = chat("--model", str(starter), "--image", str(red), "--save", "What?")
    assert code != 0 and "reads text only" in err
    assert not (data_dir / "pictures").exists()
    drawing = tmp_path / "drawing.png"
    drawing.write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    missing = tmp_path / "none.png"
    for path, words in ((drawing, "SVG drawing"), (missing, "cannot be read")):
        code, _events, err = chat("--model", str(starter), "--image", str(path), "What?")
        assert code != 0 and words in err, err


def test_pictures_are_exported_imported_and_swept(tmp_path: Path, monkeypatch: Any) -> None:
    store = ChatStore(tmp_path / "chats.db")
    conversation = store.create_conversation(model="m")
    refs = [store.pictures.put(RED, "red.png"), store.pictures.put(BLUE, "blue.png")]
    store.add_message(conversation.id, "user", "Which is warmer?", images=refs)
    store.add_message(conversation.id, "assistant", "The red one.")
    exported = export_document(store, conversation.id)
    assert "*[picture: red.png]*" in export_markdown(store, conversation.id)
    (tmp_path / "elsewhere").mkdir()
    other = ChatStore(tmp_path / "elsewhere" / "chats.db")
    copy = import_document(other, json.loads(json.dumps(exported)))
    first = other.messages(copy)[0]
    assert [other.pictures.read(ref) for ref in first.images] == [RED, BLUE]
    # Deleted: its files go, once they are older than a message being saved could be.
    monkeypatch.setattr(pictures_module, "FRESH_S", 0.0)
    old = time.time() - 60
    for path in (tmp_path / "pictures").rglob("*.png"):
        os.utime(path, (old, old))
    store.delete_conversation(conversation.id)
    assert list((tmp_path / "pictures").rglob("*.png")) == []
    damaged = json.loads(json.dumps(exported))
    damaged["messages"][0]["images"][0]["data"] = "not base64!"
    again = import_document(other, damaged)
    assert len(other.messages(again)[0].images) == 1, "the damaged picture is left out"
    store.close()
    other.close()


def test_a_chat_deleted_in_the_window_takes_its_pictures_at_the_next_start(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The window moves a deleted chat to the trash (for Undo); the trash is emptied when
    the history is next opened, and the chat's pictures go with it."""
    store = ChatStore(tmp_path / "chats.db")
    kept = store.create_conversation(model="m")
    gone = store.create_conversation(model="m")
    store.add_message(kept.id, "user", "Mine", images=[store.pictures.put(RED, "red.png")])
    store.add_message(gone.id, "user", "Private", images=[store.pictures.put(BLUE, "b.png")])
    store.trash_conversation(gone.id)
    store.close()
    monkeypatch.setattr(pictures_module, "FRESH_S", 0.0)
    reopened = ChatStore(tmp_path / "chats.db")
    left = sorted(p.name for p in (tmp_path / "pictures").rglob("*.png"))
    assert left == [images.digest(RED) + ".png"], "the deleted chat's picture went, not others"
    reopened.close()


def test_a_template_that_prints_the_parts_gets_the_picture_in_its_text() -> None:
    """A template that writes a message's content as it is (most text models' ChatML)
    would print a list of parts as Python text: the pictures go inline instead."""
    from backends.llama_images import picture_text

    def prints_content(messages: list[dict[str, Any]]) -> str:
        return "".join(f"<|im_start|>user\n{m['content']}<|im_end|>\n" for m in messages)

    def reads_parts(messages: list[dict[str, Any]]) -> str:
        shown = []
        for m in messages:
            for part in m["content"]:
                shown.append("<image>" if part["type"] == "image" else part["text"])
        return "User:" + "".join(shown)

    assert picture_text(prints_content) == ""
    assert picture_text(reads_parts) == "<image>"
