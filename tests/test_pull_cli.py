"""``hearth pull`` and ``hearth models rm`` as a user runs them, against the fake hub."""

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import HEARTH, run_hearth
from tests.conftest import REPO as SOURCE_TREE
from tests.fakehub import FakeHub
from tests.gguf_files import build_gguf

pytestmark = pytest.mark.slow


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[FakeHub]:
    server = FakeHub().start()
    q4 = build_gguf(tmp_path / "src" / "q4.gguf", file_type=15).read_bytes()
    q8 = build_gguf(tmp_path / "src" / "q8.gguf", file_type=7).read_bytes()
    server.add(
        "acme/tiny-GGUF",
        {
            "tiny-Q8_0.gguf": q8 + b"\0" * 2000,
            "tiny-Q4_K_M.gguf": q4 + b"\0" * 1000,
            "README.md": b"hi",
        },
    )
    server.add("acme/only-readme", {"README.md": b"nothing here"})
    yield server
    server.stop()


def hearth(hub: FakeHub, *args: str) -> subprocess.CompletedProcess[str]:
    return run_hearth(
        *args, env=dict(os.environ, HF_ENDPOINT=hub.url, MODELSCOPE_ENDPOINT=hub.url), timeout=120
    )


def test_pull_picks_q4_k_m_and_it_appears_in_the_library(hub: FakeHub, data_dir: Path) -> None:
    result = hearth(hub, "pull", "acme/tiny-GGUF")
    assert result.returncode == 0, result.stderr
    assert "Q4_K_M" in result.stderr and "verified" in result.stderr
    target = data_dir / "models" / "acme/tiny-GGUF" / "tiny-Q4_K_M.gguf"
    assert target.is_file()
    listed = json.loads(hearth(hub, "models", "list", "--json").stdout)
    entry = next(m for m in listed if m["path"] == str(target))
    assert entry["source"] == "models_dir" and entry["owned"] is True
    assert entry["quantization"] == "Q4_K_M" and entry["repo_id"] == "acme/tiny-GGUF"


def test_pull_with_a_quantization_or_a_glob(hub: FakeHub, data_dir: Path) -> None:
    assert hearth(hub, "pull", "acme/tiny-GGUF", "--file", "q8_0").returncode == 0
    assert (data_dir / "models/acme/tiny-GGUF/tiny-Q8_0.gguf").is_file()
    assert hearth(hub, "pull", "acme/tiny-GGUF", "--file", "README*").returncode == 0
    assert (data_dir / "models/acme/tiny-GGUF/README.md").read_bytes() == b"hi"


def test_a_named_file_is_that_file_with_its_own_shards_and_nothing_else(
    hub: FakeHub, data_dir: Path, tmp_path: Path
) -> None:
    q4 = build_gguf(tmp_path / "src" / "q4_1.gguf", file_type=3).read_bytes()
    names = [
        "big-Q4_1.gguf",
        "capped-Q4_1.gguf",
        "split-Q4_1-00001-of-00002.gguf",
        "split-Q4_1-00002-of-00002.gguf",
    ]
    hub.add("acme/many-GGUF", {name: q4 + bytes([n]) * 1500 for n, name in enumerate(names)})
    folder = data_dir / "models/acme/many-GGUF"
    assert hearth(hub, "pull", "acme/many-GGUF", "--file", "big-Q4_1.gguf").returncode == 0
    assert sorted(p.name for p in folder.glob("*.gguf")) == ["big-Q4_1.gguf"]
    named = hearth(hub, "pull", "acme/many-GGUF", "--file", "split-Q4_1-00001-of-00002.gguf")
    assert named.returncode == 0, named.stderr
    assert sorted(p.name for p in folder.glob("*.gguf")) == ["big-Q4_1.gguf", *names[2:]]


def test_pull_from_modelscope(hub: FakeHub, data_dir: Path) -> None:
    result = hearth(hub, "pull", "acme/tiny-GGUF", "--source", "modelscope")
    assert result.returncode == 0, result.stderr
    assert (data_dir / "models/acme/tiny-GGUF/tiny-Q4_K_M.gguf").is_file()


@pytest.mark.parametrize(
    ("repo", "words"),
    [
        ("acme/does-not-exist", "not found"),
        ("acme/only-readme", "no GGUF file"),
    ],
)
def test_pull_failures_are_one_sentence(hub: FakeHub, repo: str, words: str) -> None:
    result = hearth(hub, "pull", repo)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert words in result.stderr


def test_a_corrupt_download_fails_and_leaves_nothing(hub: FakeHub, data_dir: Path) -> None:
    hub.fault("acme/tiny-GGUF", "tiny-Q4_K_M.gguf", corrupt=True)
    result = hearth(hub, "pull", "acme/tiny-GGUF")
    assert result.returncode == 1 and "damaged" in result.stderr
    folder = data_dir / "models/acme/tiny-GGUF"
    assert not folder.exists() or not list(folder.iterdir())


def test_models_rm_deletes_only_what_hearth_downloaded(hub: FakeHub, data_dir: Path) -> None:
    assert hearth(hub, "pull", "acme/tiny-GGUF").returncode == 0
    lmstudio = build_gguf(Path.home() / ".lmstudio/models/a/b/theirs.gguf")
    refused = hearth(hub, "models", "rm", "a/b/theirs.gguf", "--yes")
    assert refused.returncode == 1 and "LM Studio" in refused.stderr and lmstudio.exists()
    starter = hearth(hub, "models", "rm", "SmolLM2-135M-Instruct.Q4_1", "--yes")
    assert starter.returncode == 1 and "only deletes" in starter.stderr
    removed = hearth(hub, "models", "rm", "tiny-Q4_K_M", "--yes")
    assert removed.returncode == 0, removed.stderr
    assert not (data_dir / "models/acme").exists()
    no_prompt = hearth(hub, "models", "rm", "tiny-Q4_K_M")
    assert no_prompt.returncode == 1


def test_a_folder_whose_name_starts_like_a_download_is_not_hearths(
    hub: FakeHub, data_dir: Path
) -> None:
    """``acme/tiny``, put there by hand, is not part of the download ``acme/tiny-GGUF``."""
    assert hearth(hub, "pull", "acme/tiny-GGUF").returncode == 0
    theirs = data_dir / "models/acme/tiny"
    theirs.mkdir(parents=True)
    (theirs / "config.json").write_text('{"model_type": "llama"}')
    (theirs / "model.safetensors").write_bytes(b"\0" * 64)
    listed = json.loads(hearth(hub, "models", "list", "--json").stdout)
    owned = {entry["repo_id"]: entry["owned"] for entry in listed if entry["repo_id"]}
    assert owned == {"acme/tiny-GGUF": True, "acme/tiny": False}
    refused = hearth(hub, "models", "rm", str(theirs), "--yes")
    assert refused.returncode == 1 and "only deletes" in refused.stderr
    assert (theirs / "model.safetensors").exists()


def test_kill_9_during_a_pull_then_pull_again_resumes(hub: FakeHub, data_dir: Path) -> None:
    import time

    big = os.urandom(3_000_000)
    hub.add("acme/slow-GGUF", {"slow-Q4_K_M.gguf": big})
    hub.fault("acme/slow-GGUF", "slow-Q4_K_M.gguf", bytes_per_s=1_000_000)
    env = dict(os.environ, HF_ENDPOINT=hub.url)
    child = subprocess.Popen(
        [*HEARTH, "pull", "acme/slow-GGUF"],
        cwd=SOURCE_TREE,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    part = data_dir / "models/acme/slow-GGUF/slow-Q4_K_M.gguf.part"
    record = part.with_name(part.name + ".pieces")  # what of the part is on disk, by piece

    def kept() -> int:
        try:
            return sum(json.loads(record.read_text())["done"])
        except (OSError, ValueError):  # not written yet, or being replaced
            return 0

    deadline = time.monotonic() + 300
    while kept() < 500_000 and time.monotonic() < deadline:
        time.sleep(0.05)
    child.kill()  # SIGKILL (TerminateProcess on Windows)
    child.wait(10)
    on_disk = kept()
    assert 0 < on_disk < len(big) and part.stat().st_size >= on_disk
    listed = json.loads(hearth(hub, "models", "list", "--json").stdout)
    assert all("slow" not in m["path"] for m in listed)  # never shown half-downloaded
    hub.faults.clear()
    requests_before = len(hub.requests)
    result = hearth(hub, "pull", "acme/slow-GGUF")
    assert result.returncode == 0, result.stderr
    assert (data_dir / "models/acme/slow-GGUF/slow-Q4_K_M.gguf").read_bytes() == big
    fetched = [r for r in hub.requests[requests_before:] if "resolve" in r]
    resumed = [r for r in fetched if "bytes=0-" not in r]  # (not the header for "fits?")
    assert len(resumed) == 1 and f"bytes={on_disk}-" in resumed[0]  # where it stopped
