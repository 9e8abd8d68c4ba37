"""The prompt cache on disk: a conversation's KV state kept in a file comes back, and a
file that is damaged, cut short or another model's is ignored and removed, never
trusted; through the real worker, a conversation comes back from disk after another
took its slot, and a damaged file only costs reading the prompt again."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from app.engine.seat import Seat
from backends.slots.disk_cache import HEADER, SUFFIX, DiskShelf
from backends.slots.prompt_cache import Entry
from tests.conftest import collect
from wire.model_spec import ModelSpec

TOKENS = tuple(range(100, 400))
STATE = bytes(range(256)) * 40


def shelf_with_entry(folder: Path, model: Path) -> Path:
    DiskShelf(folder, str(model), 1 << 30).put(Entry(TOKENS, STATE))
    (path,) = folder.rglob(f"*{SUFFIX}")
    return path


def test_an_entry_on_disk_comes_back_for_a_prompt_that_starts_with_it(
    tmp_path: Path, starter: Path
) -> None:
    shelf_with_entry(tmp_path, starter)
    later = DiskShelf(tmp_path, str(starter), 1 << 30)  # after a restart
    prompt = [*TOKENS, 7, 8, 9]
    found, kept = later.best(prompt)
    assert (found, kept) == (TOKENS, len(TOKENS))
    assert later.take(TOKENS) == Entry(TOKENS, STATE)
    assert later.best(prompt) == (None, 0), "a slot holds it now"


@pytest.mark.parametrize("damage", ["flipped", "cut short", "emptied"])
def test_a_damaged_file_is_ignored_and_removed(tmp_path: Path, starter: Path, damage: str) -> None:
    path = shelf_with_entry(tmp_path, starter)
    data = bytearray(path.read_bytes())
    if damage == "flipped":
        data[len(data) // 2] ^= 0xFF
    elif damage == "cut short":
        del data[len(data) // 3 :]
    else:
        data.clear()
    path.write_bytes(bytes(data))
    shelf = DiskShelf(tmp_path, str(starter), 1 << 30)
    found, _ = shelf.best([*TOKENS, 1])
    assert found is None or shelf.take(found) is None
    assert not path.exists()


def test_another_models_file_is_never_used(tmp_path: Path, starter: Path) -> None:
    path = shelf_with_entry(tmp_path, starter)
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF")
    shelf = DiskShelf(tmp_path, str(other), 1 << 30)
    assert shelf.best([*TOKENS, 1]) == (None, 0), "another model has another folder"
    # Copied by hand into its folder, it is still another model's (its header says so).
    shelf.folder.mkdir(parents=True)
    path.rename(shelf.folder / path.name)
    fresh = DiskShelf(tmp_path, str(other), 1 << 30)
    assert fresh.best([*TOKENS, 1]) == (None, 0)
    assert not (shelf.folder / path.name).exists()


def test_the_model_file_changed_in_place_is_another_model(tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF one")
    shelf_with_entry(tmp_path / "cache", model)
    model.write_bytes(b"GGUF two, longer")
    assert DiskShelf(tmp_path / "cache", str(model), 1 << 30).best([*TOKENS, 1]) == (None, 0)


def test_the_oldest_files_leave_to_keep_within_the_budget(tmp_path: Path, starter: Path) -> None:
    entry_size = len(STATE) + 4 * len(TOKENS) + 100
    shelf = DiskShelf(tmp_path, str(starter), 2 * entry_size)
    seen: set[Path] = set()
    for age, first in enumerate((1000, 2000, 3000), start=1):
        shelf.put(Entry(tuple(range(first, first + len(TOKENS))), STATE))
        for new in set(shelf.folder.glob(f"*{SUFFIX}")) - seen:
            os.utime(new, (age, age))  # written in this order, whatever the clock's grain
            seen.add(new)
    assert len(list(shelf.folder.glob(f"*{SUFFIX}"))) == 2
    assert shelf.best(list(range(1000, 1400)))[0] is None, "the oldest left"
    assert shelf.best(list(range(3000, 3400)))[0] is not None


@pytest.mark.posix_only("FIFOs and POSIX file modes")
def test_a_fifo_or_a_link_on_the_shelf_is_never_opened_and_the_folders_are_private(
    tmp_path: Path, starter: Path
) -> None:
    """A FIFO named like an entry used to block the worker in ``open`` at every start,
    and a link was read through; the folders were as open as the umask."""
    before = os.umask(0)
    try:
        path = shelf_with_entry(tmp_path / "shelf", starter)
    finally:
        os.umask(before)
    shelf_folder = path.parent
    for folder in (tmp_path / "shelf", shelf_folder):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    outside = tmp_path / "elsewhere.kv"
    outside.write_bytes(path.read_bytes())
    fifo = shelf_folder / f"fifo{SUFFIX}"
    os.mkfifo(fifo)
    link = shelf_folder / f"link{SUFFIX}"
    link.symlink_to(outside)
    shelf = DiskShelf(tmp_path / "shelf", str(starter), 1 << 30)
    assert shelf.best([*TOKENS, 1]) == (TOKENS, len(TOKENS)), "the real entry, at once"
    assert not os.path.lexists(fifo) and not os.path.lexists(link)
    assert outside.read_bytes() == path.read_bytes(), "a link's target is not touched"


@pytest.mark.posix_only("symbolic links")
def test_trimming_the_shelf_never_deletes_through_a_link(tmp_path: Path, starter: Path) -> None:
    """The budget's trim counts and deletes only Hearth's own files in the shelf's real
    folders: a linked folder's files (named like entries, older than all) stay."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    precious = elsewhere / ("0" * 32 + SUFFIX)
    precious.write_bytes(b"not Hearth's" * 1000)
    os.utime(precious, (1, 1))
    (tmp_path / "shelf").mkdir()
    (tmp_path / "shelf" / "linked").symlink_to(elsewhere, target_is_directory=True)
    entry_size = HEADER.size + 4 * len(TOKENS) + 8 + len(STATE) + 32
    shelf = DiskShelf(tmp_path / "shelf", str(starter), entry_size)  # room for one entry
    shelf.put(Entry(TOKENS, STATE))
    assert precious.read_bytes() == b"not Hearth's" * 1000
    assert shelf.best([*TOKENS, 1]) == (TOKENS, len(TOKENS)), "the entry was kept"


def test_only_entries_under_the_name_of_their_contents_are_kept(
    tmp_path: Path, starter: Path
) -> None:
    """A copy of an entry under another name (damaged or not) is never indexed in place
    of the real one and left for good; a temporary file a killed worker left goes once it
    is stale, one being written stays."""
    path = shelf_with_entry(tmp_path, starter)
    copy = path.with_name(f"aaaa_damaged{SUFFIX}")
    damaged = bytearray(path.read_bytes())
    damaged[-100] ^= 0xFF
    copy.write_bytes(bytes(damaged))
    stale = path.with_name("tmpold.tmp")
    stale.write_bytes(b"half an entry")
    os.utime(stale, (1, 1))
    writing = path.with_name("tmpnew.tmp")
    writing.write_bytes(b"being written")
    shelf = DiskShelf(tmp_path, str(starter), 1 << 30)
    assert shelf.best([*TOKENS, 1]) == (TOKENS, len(TOKENS))
    assert shelf.take(TOKENS) == Entry(TOKENS, STATE)
    assert not copy.exists() and not stale.exists() and writing.exists()


def test_the_budget_holds_for_every_models_entries_together(tmp_path: Path, starter: Path) -> None:
    entry_size = len(STATE) + 4 * len(TOKENS) + 100
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF another model")
    first = DiskShelf(tmp_path / "shelf", str(other), 2 * entry_size)
    first.put(Entry(TOKENS, STATE))
    (older,) = first.folder.glob(f"*{SUFFIX}")
    os.utime(older, (1, 1))
    second = DiskShelf(tmp_path / "shelf", str(starter), 2 * entry_size)
    for start in (1000, 2000):
        second.put(Entry(tuple(range(start, start + len(TOKENS))), STATE))
    kept = list((tmp_path / "shelf").glob(f"*/*{SUFFIX}"))
    assert len(kept) == 2 and older not in kept, "the oldest, another model's, left"


@pytest.mark.slow
def test_a_conversation_comes_back_from_disk_and_a_damaged_file_only_costs_time(
    client: Seat, spec: ModelSpec, tmp_path: Path
) -> None:
    """One slot, no RAM for the cache: the first conversation's state goes to disk when
    the second takes the slot, and comes back for its follow-up."""
    on_disk = replace(spec, parallel=1, prompt_cache_mb=0, prompt_cache_dir=str(tmp_path))
    greedy = {"temperature": 0, "max_tokens": 12}
    facts = " ".join(f"Box {i} is {['red', 'blue', 'green'][i % 3]}." for i in range(80))
    first = [{"role": "user", "content": f"{facts} Which colour is box 7?"}]

    def ask(messages: list[dict[str, str]]) -> tuple[str, dict[str, int]]:
        text, events = collect(client.chat(on_disk, messages, greedy))
        assert events[-1]["type"] == "done", events[-1]
        return text, next(e for e in events if e["type"] == "stats")

    def other_conversation() -> None:
        ask([{"role": "user", "content": "Tell me a joke."}])

    reply, _ = ask(first)
    other_conversation()
    assert list(tmp_path.rglob(f"*{SUFFIX}")), "the first conversation went to disk"
    follow_up = [
        *first,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": "And box 8?"},
    ]
    answer, stats = ask(follow_up)
    assert stats["prompt_tokens"] - stats["cached_prompt_tokens"] < 40, stats
    assert answer.strip(), "answered from the state read back from disk"

    # Again, with the file damaged on the way: the prompt is read whole, and a reply still
    # comes.  Not compared to the letter (nor by its content): llama.cpp's logits for a
    # prompt read in other slices differ in the last bits, and this small model's greedy
    # words can turn on them (the pacer sizes slices by time).
    other_conversation()
    (path,) = tmp_path.rglob(f"*{SUFFIX}")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    again, stats = ask(follow_up)
    assert stats["cached_prompt_tokens"] < 40, "nothing came from the damaged file"
    assert again.strip(), "a whole reply, from the prompt read again"
    assert not path.exists()
