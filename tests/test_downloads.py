"""Downloads from the fake hub with the real huggingface_hub client: resume, verify, faults."""

import hashlib
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core import Core
from app.errors import HearthError
from app.hub import huggingface
from app.hub.downloads import CANCELLED, DONE, FAILED, PAUSED, DownloadManager
from app.hub.repo_files import RepoFile
from app.hub.sources import download_manager
from tests.fakehub import FakeHub
from wire import platforms

REPO = "acme/tiny-GGUF"
BIG = os.urandom(3 * 1024 * 1024 + 17)
SMALL = b'{"architectures": ["LlamaForCausalLM"]}'


@pytest.fixture
def hub(core: Core) -> Iterator[FakeHub]:
    server = FakeHub().start()
    server.add(
        REPO,
        {"tiny-Q4_K_M.gguf": BIG, "tiny-Q8_0.gguf": BIG[:2048], "config.json": SMALL},
        tags=["gguf"],
        downloads=10,
    )
    core.settings.set("hub.huggingface_endpoint", server.url)
    yield server
    server.stop()


@pytest.fixture
def manager(core: Core, hub: FakeHub) -> Iterator[DownloadManager]:
    downloads = download_manager(core.settings, core.paths.data_dir)
    yield downloads
    downloads.close()


def remote(name: str, core: Core) -> RepoFile:
    files = huggingface.list_files(REPO, endpoint_url=core.settings.get("hub.huggingface_endpoint"))
    return next(f for f in files if f.path == name)


def target_dir(core: Core) -> Path:
    return core.models_dir / REPO


def test_listing_reports_sizes_and_hashes(core: Core, hub: FakeHub) -> None:
    file = remote("tiny-Q4_K_M.gguf", core)
    assert file.size == len(BIG) and file.sha256 == hashlib.sha256(BIG).hexdigest()
    small = remote("config.json", core)
    assert small.sha256 == "" and small.git_sha1


def test_a_download_is_verified_and_recorded_as_ours(core: Core, manager: DownloadManager) -> None:
    item = manager.add("hf", REPO, remote("tiny-Q4_K_M.gguf", core), target_dir(core))
    done = manager.wait(item.id, 60)
    assert done.state == DONE, done.error
    target = target_dir(core) / "tiny-Q4_K_M.gguf"
    assert target.read_bytes() == BIG
    assert not Path(str(target) + ".part").exists()
    assert str(target) in manager.owned
    small = manager.add("hf", REPO, remote("config.json", core), target_dir(core))
    assert manager.wait(small.id, 60).state == DONE  # git blob id checked for small files


def test_a_dropped_connection_resumes_with_range(
    core: Core, hub: FakeHub, manager: DownloadManager
) -> None:
    hub.fault(REPO, "tiny-Q4_K_M.gguf", drop_after=1_000_000)
    item = manager.add("hf", REPO, remote("tiny-Q4_K_M.gguf", core), target_dir(core))
    assert manager.wait(item.id, 60).state == DONE
    assert (target_dir(core) / "tiny-Q4_K_M.gguf").read_bytes() == BIG
    ranged = [r for r in hub.requests if "tiny-Q4_K_M" in r]
    assert len(ranged) >= 2 and "bytes=1000000-" in ranged[1]  # picked up where it stopped


def test_a_server_that_ignores_range_restarts_cleanly(core: Core, hub: FakeHub) -> None:
    part = target_dir(core) / "tiny-Q4_K_M.gguf.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(BIG[:500_000])  # left by an earlier run
    hub.fault(REPO, "tiny-Q4_K_M.gguf", ignore_range=True)
    manager = download_manager(core.settings, core.paths.data_dir)
    item = manager.add("hf", REPO, remote("tiny-Q4_K_M.gguf", core), target_dir(core))
    assert manager.wait(item.id, 60).state == DONE
    assert (target_dir(core) / "tiny-Q4_K_M.gguf").read_bytes() == BIG
    manager.close()


def test_right_size_wrong_bytes_is_deleted_with_a_clear_error(
    core: Core, hub: FakeHub, manager: DownloadManager, expect_error_logs: None
) -> None:
    hub.fault(REPO, "tiny-Q4_K_M.gguf", corrupt=True)
    item = manager.add("hf", REPO, remote("tiny-Q4_K_M.gguf", core), target_dir(core))
    failed = manager.wait(item.id, 60)
    assert failed.state == FAILED and "damaged" in failed.error and "deleted" in failed.error
    assert not list(target_dir(core).glob("tiny-Q4_K_M.gguf*"))


def test_pause_then_resume_after_a_restart(core: Core, hub: FakeHub) -> None:
    hub.fault(REPO, "tiny-Q4_K_M.gguf", bytes_per_s=2_000_000)
    first = download_manager(core.settings, core.paths.data_dir)
    item = first.add("hf", REPO, remote("tiny-Q4_K_M.gguf", core), target_dir(core))
    while first.get(item.id).received < 400_000:
        threading.Event().wait(0.05)
    first.pause(item.id)
    paused = first.wait(item.id, 10)
    assert paused.state == PAUSED and 0 < paused.received < len(BIG)
    first.close()
    hub.faults.clear()
    again = download_manager(
        core.settings, core.paths.data_dir
    )  # a new Hearth process reads the queue back
    restored = again.get(item.id)
    assert restored.state == PAUSED and restored.received == paused.received
    again.resume(item.id)
    assert again.wait(item.id, 60).state == DONE
    assert (target_dir(core) / "tiny-Q4_K_M.gguf").read_bytes() == BIG
    resumed = [r for r in hub.requests if "tiny-Q4_K_M" in r]
    assert len(resumed) == 2
    again.close()


def test_a_crash_mid_download_comes_back_paused_and_unlisted(core: Core, hub: FakeHub) -> None:
    """What kill -9 leaves behind: a part file and a queue entry still 'downloading'."""
    file = remote("tiny-Q4_K_M.gguf", core)
    part = target_dir(core) / "tiny-Q4_K_M.gguf.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(BIG[:123_456])
    state = {
        "version": 1,
        "owned": [],
        "items": [
            {
                "id": f"hf:{REPO}@main:tiny-Q4_K_M.gguf",
                "source": "hf",
                "repo_id": REPO,
                "path": "tiny-Q4_K_M.gguf",
                "size": file.size,
                "sha256": file.sha256,
                "git_sha1": "",
                "target": str(target_dir(core) / "tiny-Q4_K_M.gguf"),
                "state": "downloading",
                "received": 999,
            }
        ],
    }
    (core.paths.data_dir / "downloads.json").write_text(json.dumps(state))
    assert all(m.path.name != "tiny-Q4_K_M.gguf" for m in core.models())
    manager = download_manager(core.settings, core.paths.data_dir)
    item = manager.snapshot()[0]
    assert item.state == PAUSED and item.received == 123_456
    manager.resume(item.id)
    assert manager.wait(item.id, 60).state == DONE
    manager.close()


def test_cancel_removes_the_partial_file(
    core: Core, hub: FakeHub, manager: DownloadManager
) -> None:
    hub.fault(REPO, "tiny-Q4_K_M.gguf", bytes_per_s=1_000_000)
    item = manager.add("hf", REPO, remote("tiny-Q4_K_M.gguf", core), target_dir(core))
    while manager.get(item.id).received < 100_000:
        threading.Event().wait(0.05)
    manager.cancel(item.id)
    assert manager.wait(item.id, 10).state == CANCELLED
    assert not list(target_dir(core).glob("tiny-Q4_K_M.gguf*"))


def test_the_same_file_twice_is_one_download(
    core: Core, hub: FakeHub, manager: DownloadManager, expect_error_logs: None
) -> None:
    hub.fault(REPO, "tiny-Q4_K_M.gguf", bytes_per_s=4_000_000)
    file = remote("tiny-Q4_K_M.gguf", core)
    first = manager.add("hf", REPO, file, target_dir(core))
    second = manager.add("hf", REPO, file, target_dir(core))
    assert first.id == second.id and len(manager.snapshot()) == 1
    # Another Hearth process writing the same file is refused by the lock, not interleaved.
    other = download_manager(core.settings, core.paths.data_dir)
    other_item = other.add("hf", REPO, file, target_dir(core))
    results = [manager.wait(first.id, 60), other.wait(other_item.id, 60)]
    assert sorted(r.state for r in results) == [DONE, FAILED]
    loser = next(r for r in results if r.state == FAILED)
    assert "already being downloaded" in loser.error
    assert (target_dir(core) / "tiny-Q4_K_M.gguf").read_bytes() == BIG
    # Asking again finds the finished, verified file instead of fetching it a second time.
    retry = download_manager(core.settings, core.paths.data_dir)
    again = retry.add("hf", REPO, file, target_dir(core))
    assert retry.wait(again.id, 30).state == DONE
    other.close()
    retry.close()


@pytest.mark.parametrize(
    "name",
    ["../escape.gguf", "/etc/passwd", "C:/Windows/evil.gguf", "a/../../b.gguf", "dir\\file.gguf"],
)
def test_unsafe_file_names_are_refused_before_touching_the_disk(
    core: Core, manager: DownloadManager, name: str
) -> None:
    with pytest.raises(HearthError, match="will not write"):
        manager.add("hf", REPO, RepoFile(name, 10, "0" * 64), target_dir(core))
    assert not target_dir(core).exists()


def test_gated_and_missing_repos_say_what_to_do(
    core: Core, hub: FakeHub, manager: DownloadManager, expect_error_logs: None
) -> None:
    hub.add("acme/gated", {"m-Q4_0.gguf": BIG[:5000]}, gated=True)
    endpoint = core.settings.get("hub.huggingface_endpoint")
    files = huggingface.list_files("acme/gated", endpoint_url=endpoint)
    item = manager.add("hf", "acme/gated", files[0], core.models_dir / "acme/gated")
    failed = manager.wait(item.id, 30)
    assert failed.state == FAILED and "token" in failed.error
    with pytest.raises(HearthError, match="not found"):
        huggingface.list_files("acme/nothing-here", endpoint_url=endpoint)


def test_not_enough_disk_space_is_refused_before_starting(
    core: Core, hub: FakeHub, manager: DownloadManager, expect_error_logs: None
) -> None:
    huge = RepoFile("tiny-Q4_K_M.gguf", 10**15, "0" * 64)
    item = manager.add("hf", REPO, huge, target_dir(core))
    failed = manager.wait(item.id, 30)
    assert failed.state == FAILED and "Not enough disk space" in failed.error
    assert not any(r for r in hub.requests if "resolve" in r)


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MB file system (tmpfs), so that writing really fails with ENOSPC."""
    mount_point = tmp_path / "tiny-disk"
    mount_point.mkdir()
    if not platforms.reads_every_file():
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount_point)], check=True)
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], check=False)


@pytest.mark.linux_only("a tmpfs of 1 MB is mounted")
def test_a_disk_that_fills_up_mid_download_stops_in_words_and_resumes_once_there_is_room(
    core: Core,
    hub: FakeHub,
    tiny_disk: Path,
    monkeypatch: pytest.MonkeyPatch,
    expect_error_logs: None,
) -> None:
    monkeypatch.setattr("app.hub.downloads.DISK_MARGIN", 0)
    hub.add("acme/two", {"a.gguf": BIG[:700_000], "b.gguf": BIG[700_000:1_400_000]})
    hub.fault("acme/two", "a.gguf", bytes_per_s=3_000_000)
    hub.fault("acme/two", "b.gguf", bytes_per_s=3_000_000)
    endpoint = core.settings.get("hub.huggingface_endpoint")
    manager = download_manager(core.settings, core.paths.data_dir)
    items = [
        manager.add("hf", "acme/two", f, tiny_disk)
        for f in huggingface.list_files("acme/two", endpoint_url=endpoint)
    ]
    results = [manager.wait(i.id, 60) for i in items]
    failed = [r for r in results if r.state == FAILED]
    assert failed, [r.state for r in results]
    assert all("disk is full" in r.error and "Free some space" in r.error for r in failed)
    # What arrived is kept; once there is room (the other file given up), it resumes.
    kept = failed[0]
    assert Path(kept.part).exists() and 0 < manager.get(kept.id).received < kept.size
    for other in (i for i in items if i.id != kept.id):
        manager.cancel(other.id)
        manager.wait(other.id, 60)
    hub.faults.clear()
    manager.resume(kept.id)
    assert manager.wait(kept.id, 60).state == DONE
    assert Path(kept.target).read_bytes() == hub.repos["acme/two"].files[kept.path]
    manager.close()
