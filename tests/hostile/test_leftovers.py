"""Class 7: a failed download leaves nothing useless behind, and every message is in words
a user understands (no client library's advice, no unexplained margins)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core import Core
from app.hub import huggingface, modelscope, ranged
from app.hub.downloads import FAILED, DownloadManager
from app.hub.repo_files import RepoFile
from app.hub.sources import download_manager
from tests.conftest import REPO
from tests.fakehub import FakeHub
from tests.test_downloads import REPO as HF_REPO
from tests.test_downloads import hub, manager  # noqa: F401 - fixtures
from tests.test_modelscope import DATA as MS_DATA
from tests.test_modelscope import REPO as MS_REPO

pytestmark = pytest.mark.usefixtures("expect_error_logs")


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


def test_a_refused_hugging_face_download_leaves_no_empty_part(
    core: Core,
    hub: FakeHub,  # noqa: F811
    manager: DownloadManager,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every ask is answered 500: asked again TRIES times, at once rather than after the
    # minute of pauses a person's download would wait through.
    monkeypatch.setattr(ranged, "BACKOFF_S", (0.0,))
    hub.fault(HF_REPO, "tiny-Q4_K_M.gguf", status=500)
    files = huggingface.list_files(HF_REPO, endpoint_url=hub.url)
    file = next(f for f in files if f.path == "tiny-Q4_K_M.gguf")
    item = manager.add("hf", HF_REPO, file, core.models_dir / HF_REPO)
    failed = manager.wait(item.id, 120)
    assert failed.state == FAILED and failed.error
    assert "force_download" not in failed.error
    assert _leftovers(core.models_dir / HF_REPO) == []


@pytest.fixture
def ms_hub(core: Core, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    monkeypatch.setenv("MODELSCOPE_HOME", str(tmp_path / "ms-home"))
    monkeypatch.setenv("MODELSCOPE_CACHE", str(tmp_path / "ms-cache"))
    server = FakeHub().start()
    server.add(MS_REPO, {"qwen-tiny-q4_k_m.gguf": MS_DATA}, downloads=5)
    core.settings.set("hub.modelscope_endpoint", server.url)
    yield server
    server.stop()


def test_a_failed_modelscope_download_leaves_no_staging_folder(core: Core, ms_hub: FakeHub) -> None:
    ms_hub.fault(MS_REPO, "qwen-tiny-q4_k_m.gguf", corrupt=True)
    downloads = download_manager(core.settings, core.paths.data_dir)
    try:
        file = next(
            f
            for f in modelscope.list_files(MS_REPO, endpoint_url=ms_hub.url)
            if f.path.endswith(".gguf")
        )
        item = downloads.add("modelscope", MS_REPO, file, core.models_dir / MS_REPO, "master")
        failed = downloads.wait(item.id, 120)
        assert failed.state == FAILED
        assert _leftovers(core.models_dir / MS_REPO) == []
    finally:
        downloads.close()


def test_the_disk_check_names_its_margin(
    core: Core,
    hub: FakeHub,  # noqa: F811
    manager: DownloadManager,  # noqa: F811
) -> None:
    huge = RepoFile("tiny-Q4_K_M.gguf", 10**15, "0" * 64)
    item = manager.add("hf", HF_REPO, huge, core.models_dir / HF_REPO)
    failed = manager.wait(item.id, 30)
    assert failed.state == FAILED
    assert "67 MB that Hearth keeps free" in failed.error
    # No amount is rounded away to nothing ("80.00 GB are free" is not "0.00 GB").
    assert not re.search(r"(?<![\d.])0\.00 GB", failed.error), failed.error


@pytest.mark.slow
@pytest.mark.posix_only("a file size limit needs POSIX rlimits")
def test_a_reply_that_cannot_save_a_setting_still_succeeds(data_dir: Path) -> None:
    """No file may grow (as on a full disk): the reply is given, the note says what was
    not saved, and no logging traceback reaches the terminal."""
    import resource  # POSIX only: imported here, so that Windows collects the other tests

    data_dir.mkdir(parents=True)
    result = subprocess.run(
        [sys.executable, "-m", "hearth", "chat", "--max-tokens", "4", "--seed", "1", "Hi"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
        check=False,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0)),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    assert "could not save" in result.stderr and "Logging error" not in result.stderr
