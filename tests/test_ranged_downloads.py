"""Downloads as several ranges at once, from the fake hub (both hubs' URL layouts), through
the download queue a person's click or ``hearth pull`` starts: pieces at once, a busy
server, a dropped or stalled piece, a changed file, a resume of every piece, one cap for
every file, and the moving speed."""

import hashlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core import Core
from app.hub import huggingface, modelscope
from app.hub.downloads import DONE, FAILED, PAUSED, DownloadManager
from app.hub.link import Link, RateWindow
from app.hub.pieces import record_path
from app.hub.repo_files import RepoFile
from app.hub.sources import download_manager
from tests.fakehub import FakeHub

REPO = "acme/pieces-GGUF"
PIECE = 256 * 1024
DATA = os.urandom(12 * PIECE + 4321)  # 13 pieces, the last one short
NAME = "model-Q4_K_M.gguf"


@pytest.fixture(autouse=True)
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of 256 KiB, so a 3 MB file has the shape of a 10 GB one (13 pieces)."""
    monkeypatch.setattr("app.hub.pieces.MIN_PIECE", PIECE)
    monkeypatch.setattr("app.hub.pieces.MAX_PIECE", PIECE)
    monkeypatch.setattr("app.hub.ranged.BACKOFF_S", (0.05, 0.1, 0.2))


@pytest.fixture
def hub(core: Core) -> Iterator[FakeHub]:
    server = FakeHub().start()
    server.add(REPO, {NAME: DATA, "other-Q8_0.gguf": DATA[::-1]})
    core.settings.set("hub.huggingface_endpoint", server.url)
    core.settings.set("hub.modelscope_endpoint", server.url)
    yield server
    server.stop()


def listed(core: Core, source: str, name: str = NAME) -> RepoFile:
    if source == "hf":
        files = huggingface.list_files(
            REPO, endpoint_url=core.settings.get("hub.huggingface_endpoint")
        )
    else:
        files = modelscope.list_files(
            REPO, endpoint_url=core.settings.get("hub.modelscope_endpoint")
        )
    return next(f for f in files if f.path == name)


def fetched(core: Core, manager: DownloadManager, source: str = "hf", name: str = NAME) -> Path:
    item = manager.add(source, REPO, listed(core, source, name), core.models_dir / REPO)
    done = manager.wait(item.id, 120)
    assert done.state == DONE, done.error
    return Path(done.target)


@pytest.mark.parametrize("source", ["hf", "modelscope"])
def test_a_file_comes_as_several_ranges_at_once_and_is_verified(
    core: Core, hub: FakeHub, source: str
) -> None:
    hub.fault(REPO, NAME, bytes_per_s=1_000_000)  # each connection capped, as a CDN does
    manager = download_manager(core.settings, core.paths.data_dir)
    target = fetched(core, manager, source)
    assert target.read_bytes() == DATA
    assert hub.peak[NAME] >= 4, "the default setting opens several connections"
    ranges = [r for r in hub.requests if NAME in r and "bytes=" in r]
    assert len(ranges) == 13 and all(r.split("bytes=")[1].split("-")[1] for r in ranges)
    assert not record_path(target.with_name(NAME + ".part")).exists()
    manager.close()


def test_one_connection_set_while_hearth_runs_holds_for_the_next_file(
    core: Core, hub: FakeHub
) -> None:
    manager = download_manager(core.settings, core.paths.data_dir)
    core.settings.set("downloads.connections", 1)  # in Settings, with the queue running
    assert fetched(core, manager).read_bytes() == DATA
    assert manager.link.peak == 1, "one connection at a time"
    assert hub.peak[NAME] <= 1 + 1  # the server may see a closing one beside its successor
    manager.close()


def test_a_server_that_is_busy_past_two_connections_still_gives_a_verified_file(
    core: Core, hub: FakeHub
) -> None:
    hub.fault(REPO, NAME, bytes_per_s=2_000_000, busy_over=2)
    manager = download_manager(core.settings, core.paths.data_dir)
    assert fetched(core, manager).read_bytes() == DATA
    assert hub.busy_answers > 0, "the server did say it was busy"
    manager.close()


def test_a_download_paused_half_way_resumes_every_piece_to_the_same_bytes(
    core: Core, hub: FakeHub
) -> None:
    hub.fault(REPO, NAME, bytes_per_s=500_000)
    first = download_manager(core.settings, core.paths.data_dir)
    item = first.add("hf", REPO, listed(core, "hf"), core.models_dir / REPO)
    while first.get(item.id).received < len(DATA) // 3:
        time.sleep(0.02)
    first.pause(item.id)
    paused = first.wait(item.id, 30)
    assert paused.state == PAUSED and paused.received < len(DATA)
    assert record_path(Path(paused.part)).exists(), "the pieces' record is beside the part"
    first.close()
    hub.faults.clear()
    sent_before = hub.sent[NAME]
    again = download_manager(core.settings, core.paths.data_dir)  # as after a restart of Hearth
    assert again.get(item.id).received == paused.received
    again.resume(item.id)
    assert again.wait(item.id, 60).state == DONE
    assert Path(paused.target).read_bytes() == DATA
    # What was on disk was not asked for again: the resume fetched only what was missing.
    assert hub.sent[NAME] - sent_before <= len(DATA) - paused.received + 13 * 64 * 1024
    again.close()


def test_a_changed_etag_starts_the_file_again_cleanly(core: Core, hub: FakeHub) -> None:
    hub.fault(REPO, NAME, bytes_per_s=2_000_000, etag_after=3)
    manager = download_manager(core.settings, core.paths.data_dir)
    assert fetched(core, manager).read_bytes() == DATA
    assert hub.answers[NAME] > 13, "the file was started again"
    manager.close()


def test_ranges_the_server_misstates_twice_fail_in_words_and_leave_nothing(
    core: Core, hub: FakeHub, expect_error_logs: None
) -> None:
    hub.fault(REPO, NAME, wrong_range=True)
    manager = download_manager(core.settings, core.paths.data_dir)
    item = manager.add("hf", REPO, listed(core, "hf"), core.models_dir / REPO)
    failed = manager.wait(item.id, 60)
    assert failed.state == FAILED and "changed again" in failed.error
    assert not list((core.models_dir / REPO).glob(NAME + "*"))
    manager.close()


def test_a_piece_that_stalls_is_asked_again(
    core: Core, hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.hub.ranged.STALL_S", 1.0)
    hub.fault(REPO, NAME, stall_first_s=5.0)
    manager = download_manager(core.settings, core.paths.data_dir)
    assert fetched(core, manager).read_bytes() == DATA
    manager.close()


def test_a_server_that_closes_every_connection_early_still_completes(
    core: Core, hub: FakeHub
) -> None:
    hub.fault(REPO, NAME, close_every=100_000)
    manager = download_manager(core.settings, core.paths.data_dir)
    assert fetched(core, manager).read_bytes() == DATA
    assert hub.answers[NAME] >= len(DATA) // 100_000
    manager.close()


def test_files_at_once_share_one_cap_on_connections(core: Core, hub: FakeHub) -> None:
    core.settings.set("downloads.connections", 3)
    hub.fault(REPO, NAME, bytes_per_s=1_000_000)
    hub.fault(REPO, "other-Q8_0.gguf", bytes_per_s=1_000_000)
    manager = download_manager(core.settings, core.paths.data_dir)
    items = [
        manager.add("hf", REPO, listed(core, "hf", name), core.models_dir / REPO)
        for name in (NAME, "other-Q8_0.gguf")
    ]
    assert [manager.wait(i.id, 120).state for i in items] == [DONE, DONE]
    assert manager.link.peak == 3, "the two files drew from the same three connections"
    assert hub.peak_total <= 3 + 1  # the server may see a closing one beside its successor
    manager.close()


def test_a_speed_limit_holds_every_connection_together(core: Core, hub: FakeHub) -> None:
    manager = download_manager(core.settings, core.paths.data_dir)
    core.settings.set("downloads.limit_mb_s", 1.0)  # in Settings, without a restart
    started = time.monotonic()
    assert fetched(core, manager).read_bytes() == DATA
    # A floor, never a ceiling: a slow machine only takes longer.
    assert time.monotonic() - started >= (len(DATA) - 1_000_000) / 1_000_000
    manager.close()


def test_the_speed_is_the_rate_of_the_last_seconds() -> None:
    window = RateWindow(window_s=5.0)
    for second in range(10):
        window.add(10_000_000 if second < 5 else 1_000_000, now=float(second))
    assert window.rate(now=9.5) == pytest.approx(1_000_000, rel=0.25)
    assert window.rate(now=30.0) == 0.0, "a stall shows at once as no speed"


def test_a_connection_slot_waits_and_a_pause_frees_the_waiter() -> None:
    link = Link(1)
    stop = threading.Event()
    assert link.acquire(stop)
    got: list[bool] = []
    waiter = threading.Thread(target=lambda: got.append(link.acquire(stop)))
    waiter.start()
    stop.set()
    waiter.join(10)
    assert got == [False] and link.in_use == 1


def test_an_older_part_without_a_record_is_resumed_as_its_first_bytes(
    core: Core, hub: FakeHub
) -> None:
    part = core.models_dir / REPO / (NAME + ".part")
    part.parent.mkdir(parents=True)
    part.write_bytes(DATA[: 5 * PIECE + 10])
    manager = download_manager(core.settings, core.paths.data_dir)
    assert fetched(core, manager).read_bytes() == DATA
    assert hub.sent[NAME] == len(DATA) - (5 * PIECE + 10)
    assert hashlib.sha256(DATA).hexdigest() == listed(core, "hf").sha256
    manager.close()
