"""The person's files are never touched: Hearth deletes only the picture files it wrote
itself, in a folder it made, and never follows a link.

The audit found the picture sweep following a link planted in ``pictures/`` (and deleting
what it pointed to), and a ``--data-dir`` that already held ``pictures/holiday2024/``
losing the person's photo at the first ``hearth chat --save``.  Each case here is such a
folder, with files made hours old so that nothing is spared only for being fresh.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from app import picture_store as pictures_module
from app.chat.store import ChatStore
from app.picture_store import MARKER
from tests.conftest import run_hearth
from wire import images

RED = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082"
)
HOURS_AGO = time.time() - 7200


def aged(*paths: Path) -> None:
    for path in paths:
        os.utime(path, (HOURS_AGO, HOURS_AGO), follow_symlinks=False)


def a_chat_with_a_picture_deleted(store: ChatStore) -> None:
    conversation = store.create_conversation(model="m")
    store.add_message(conversation.id, "user", "Look", images=[store.pictures.put(RED, "r.png")])
    store.delete_conversation(conversation.id)


@pytest.fixture(autouse=True)
def _no_fresh_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pictures_module, "FRESH_S", 0.0)


def test_a_data_folder_with_the_persons_own_pictures_folder_keeps_every_photo(
    tmp_path: Path,
) -> None:
    """``hearth --data-dir`` naming a folder with ``pictures/holiday2024/IMG_0001.jpg``:
    the history's pictures go to a folder of Hearth's own, and the photo stays."""
    data = tmp_path / "chosen"
    album = data / "pictures" / "holiday2024"
    album.mkdir(parents=True)
    photo = album / "IMG_0001.jpg"
    photo.write_bytes(b"the person's photo")
    lookalike = data / "pictures" / "ab" / ("ab" + "0" * 62 + ".png")
    lookalike.parent.mkdir()
    lookalike.write_bytes(b"named like Hearth's, but not in a folder Hearth made")
    aged(photo, lookalike)

    said = run_hearth(
        "--data-dir", str(data), "chat", "--save", "--max-tokens", "2", "--temperature", "0", "hi"
    )
    assert said.returncode == 0, said.stderr
    store = ChatStore(data / "chats.sqlite3")
    a_chat_with_a_picture_deleted(store)
    kept_in = store.pictures.folder
    store.close()

    assert photo.read_bytes() == b"the person's photo"
    assert lookalike.exists(), "a folder Hearth did not make is never swept"
    assert kept_in == data / "hearth-pictures", "Hearth's pictures went to its own folder"
    assert (kept_in / MARKER).is_file()
    assert not (data / "pictures" / MARKER).exists(), "the person's folder is not marked"


def test_a_link_planted_in_the_pictures_folder_is_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    secrets = [victim / f"file{n}.txt" for n in range(3)]
    for path in secrets:
        path.write_text("keep me")
    named = victim / f"{BLUE_DIGEST}.png"  # named like Hearth's, outside the data folder
    named.write_bytes(BLUE)
    aged(*secrets, named)

    data = tmp_path / "data"
    data.mkdir()
    store = ChatStore(data / "chats.sqlite3")
    a_chat_with_a_picture_deleted(store)  # Hearth's own pictures folder, now empty
    folder = store.pictures.folder
    assert folder is not None
    (folder / "zz").symlink_to(victim, target_is_directory=True)
    (folder / BLUE_DIGEST[:2]).symlink_to(victim, target_is_directory=True)
    planted = folder / RED_DIGEST[:2] / f"{RED_DIGEST}.png"
    planted.parent.mkdir(exist_ok=True)
    planted.unlink(missing_ok=True)
    planted.symlink_to(secrets[0])
    store.close()

    reopened = ChatStore(data / "chats.sqlite3")  # the sweep runs at every open
    assert reopened.pictures.sweep(set()) == 0, "nothing Hearth wrote is left to sweep"
    reopened.pictures.put(RED, "r.png")  # the same picture again: the link is replaced
    reopened.close()
    assert all(path.read_text() == "keep me" for path in secrets)
    assert named.read_bytes() == BLUE
    assert os.stat(secrets[0]).st_mtime == pytest.approx(HOURS_AGO), "its time not touched"
    assert not planted.is_symlink() and planted.read_bytes() == RED


RED_DIGEST = images.digest(RED)
BLUE = RED.replace(b"\xf8\xcf\xc0", b"\xf8\xcf\xc1")  # another file (its CRC wrong)
BLUE_DIGEST = images.digest(BLUE)


def test_an_earlier_hearths_pictures_folder_is_recognised_and_swept_as_before(
    tmp_path: Path,
) -> None:
    """A ``pictures/`` written before Hearth marked its folders holds nothing but its
    hash-named files: it is Hearth's, and a picture no message names still goes."""
    data = tmp_path / "data"
    old = data / "pictures" / RED_DIGEST[:2] / f"{RED_DIGEST}.png"
    old.parent.mkdir(parents=True)
    old.write_bytes(RED)
    aged(old)
    store = ChatStore(data / "chats.sqlite3")
    assert store.pictures.folder == data / "pictures"
    assert (data / "pictures" / MARKER).is_file()
    store.close()
    assert not old.exists(), "no message names it: swept as before"


@pytest.mark.posix_only("POSIX file modes")
def test_the_pictures_folder_is_private_under_any_umask(tmp_path: Path) -> None:
    before = os.umask(0)
    try:
        (tmp_path / "data").mkdir()
        store = ChatStore(tmp_path / "data" / "chats.sqlite3")
        conversation = store.create_conversation(model="m")
        ref = store.pictures.put(RED, "r.png")
        store.add_message(conversation.id, "user", "Look", images=[ref])
        folder = store.pictures.folder
        assert folder is not None
        store.close()
    finally:
        os.umask(before)
    for path in (folder, folder / RED_DIGEST[:2]):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    assert stat.S_IMODE((folder / RED_DIGEST[:2] / f"{RED_DIGEST}.png").stat().st_mode) == 0o600
