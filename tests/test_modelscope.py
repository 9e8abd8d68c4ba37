"""ModelScope with the real modelscope_hub client against the fake hub."""

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core import Core
from app.hub import modelscope
from app.hub.downloads import DONE, FAILED, PAUSED
from app.hub.sources import download_manager
from tests.fakehub import FakeHub

REPO = "qwen/Qwen-tiny-GGUF"
DATA = os.urandom(2 * 1024 * 1024)


@pytest.fixture
def hub(core: Core, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    monkeypatch.setenv("MODELSCOPE_HOME", str(tmp_path / "ms-home"))
    monkeypatch.setenv("MODELSCOPE_CACHE", str(tmp_path / "ms-cache"))
    server = FakeHub().start()
    server.add(REPO, {"qwen-tiny-q4_k_m.gguf": DATA, "README.md": b"# tiny"}, downloads=5)
    core.settings.set("hub.modelscope_endpoint", server.url)
    yield server
    server.stop()


def test_search_and_list_files(core: Core, hub: FakeHub) -> None:
    found = modelscope.search("qwen", endpoint_url=hub.url)
    assert [r.repo_id for r in found] == [REPO]
    files = {f.path: f for f in modelscope.list_files(REPO, endpoint_url=hub.url)}
    assert files["qwen-tiny-q4_k_m.gguf"].size == len(DATA)
    assert len(files["qwen-tiny-q4_k_m.gguf"].sha256) == 64


def test_download_is_verified_and_lands_in_the_library(core: Core, hub: FakeHub) -> None:
    manager = download_manager(core.settings, core.paths.data_dir)
    file = next(
        f for f in modelscope.list_files(REPO, endpoint_url=hub.url) if f.path.endswith(".gguf")
    )
    item = manager.add("modelscope", REPO, file, core.models_dir / REPO, revision="master")
    done = manager.wait(item.id, 60)
    assert done.state == DONE, done.error
    target = core.models_dir / REPO / "qwen-tiny-q4_k_m.gguf"
    assert target.read_bytes() == DATA
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]  # no part, no record
    manager.close()


def test_wrong_bytes_from_modelscope_fail_and_leave_nothing(
    core: Core, hub: FakeHub, expect_error_logs: None
) -> None:
    hub.fault(REPO, "qwen-tiny-q4_k_m.gguf", corrupt=True)
    manager = download_manager(core.settings, core.paths.data_dir)
    file = next(
        f for f in modelscope.list_files(REPO, endpoint_url=hub.url) if f.path.endswith(".gguf")
    )
    item = manager.add("modelscope", REPO, file, core.models_dir / REPO, revision="master")
    failed = manager.wait(item.id, 120)
    assert failed.state == FAILED
    assert not (core.models_dir / REPO / "qwen-tiny-q4_k_m.gguf").exists()
    manager.close()


def test_pause_and_resume(core: Core, hub: FakeHub) -> None:
    hub.fault(REPO, "qwen-tiny-q4_k_m.gguf", bytes_per_s=1_000_000)
    manager = download_manager(core.settings, core.paths.data_dir)
    file = next(
        f for f in modelscope.list_files(REPO, endpoint_url=hub.url) if f.path.endswith(".gguf")
    )
    item = manager.add("modelscope", REPO, file, core.models_dir / REPO, revision="master")
    while manager.get(item.id).received < 200_000:
        time.sleep(0.02)
    manager.pause(item.id)
    assert manager.wait(item.id, 30).state == PAUSED
    hub.faults.clear()
    manager.resume(item.id)
    assert manager.wait(item.id, 60).state == DONE
    assert (core.models_dir / REPO / "qwen-tiny-q4_k_m.gguf").read_bytes() == DATA
    manager.close()
