"""Hearth's curated catalogue: the shipped data is complete, ranked for the machine it
runs on, read in words when damaged, and pulled by name from the right hub."""

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.errors import HearthError
from app.hub.catalog import (
    PURPOSES,
    by_use,
    load_catalog,
    picks,
    preferred_source,
    ranked,
)
from app.machine.fit import FITS_GPU
from tests.conftest import recorded_machine as machine
from tests.conftest import run_hearth
from tests.fakehub import FakeHub
from tests.gguf_files import build_gguf


def test_the_shipped_catalogue_covers_every_use_with_files_on_both_hubs() -> None:
    entries = load_catalog()
    assert len(entries) >= 15
    assert {e.purpose for e in entries} == set(PURPOSES)
    assert sum("DeepSeek-R1" in e.title for e in entries) >= 3, "the R1 distills"
    for entry in entries:
        assert entry.repo_hf.count("/") == 1 and entry.repo_modelscope.count("/") == 1
        assert entry.file.endswith(".gguf")
        assert entry.quantization.lower() in entry.file.lower(), entry.name
        assert entry.size_bytes > 50_000_000 and entry.license and entry.summary
    sizes = sorted(e.size_bytes for e in entries if e.purpose != "embedding")
    assert sizes[0] < 1e9 and sizes[-1] > 8e9, "small and large models"


def test_a_laptop_gets_models_it_can_chat_with_at_a_comfortable_speed() -> None:
    best = ranked(machine("laptop"), 4096)
    cards = picks(best)
    assert [c.entry.purpose for c in cards] == ["chat", "reasoning", "multilingual", "coding"]
    chat = cards[0]
    assert chat.fits and chat.estimate.tokens_per_s >= 8, "a model that answers briskly"
    assert best[0].comfortable and best[-1].entry.purpose == "embedding"
    chinese = picks(best, language="zh_CN")
    assert chinese[0].entry.purpose == "multilingual", (
        "a Chinese window: a Chinese-strong model first"
    )
    big = next(r for r in best if r.entry.name == "deepseek-r1-distill-qwen-14b")
    assert best.index(big) > best.index(chat), "the 14B is not suggested before a small one"


def test_a_gpu_machine_gets_larger_models_that_fit_on_the_gpu() -> None:
    laptop = picks(ranked(machine("laptop"), 4096))
    gpu = picks(ranked(machine("rtx3060"), 4096))
    assert all(c.estimate.verdict == FITS_GPU for c in gpu)
    assert gpu[0].entry.size_bytes > laptop[0].entry.size_bytes
    assert gpu[1].entry.size_bytes >= 4e9, "a 7B/8B R1 distill for reasoning on 12 GB"


def test_the_whole_catalogue_and_the_recommendations_agree_on_what_comes_first() -> None:
    best = ranked(machine("laptop"), 4096)
    for language in ("en", "zh_CN"):
        cards = picks(best, language=language)
        everything = by_use(best, language)
        assert sorted(r.entry.name for r in everything) == sorted(r.entry.name for r in best)
        uses = [r.entry.purpose for r in everything]
        firsts = [everything[uses.index(card.entry.purpose)] for card in cards]
        assert firsts == cards, "each use's first model is the one recommended"
        assert [uses.index(c.entry.purpose) for c in cards] == sorted(
            uses.index(c.entry.purpose) for c in cards
        ), "in the same order as the recommendations"
        assert uses[-1] == "embedding"


def test_a_damaged_catalogue_is_reported_in_words(tmp_path: Path) -> None:
    broken = tmp_path / "catalog.json"
    broken.write_text('{"models": [{"name": "x"}]}')
    with pytest.raises(HearthError) as damaged:
        load_catalog(broken)
    assert "catalogue cannot be read" in str(damaged.value)
    assert "Reinstall" in str(damaged.value)


def test_modelscope_comes_first_on_a_chinese_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    assert preferred_source("zh_CN") == "modelscope"
    assert preferred_source("en") == "hf"
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert preferred_source("system") == "modelscope"
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    assert preferred_source("system") == "hf"


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[FakeHub]:
    server = FakeHub().start()
    q4 = build_gguf(tmp_path / "src" / "q4.gguf", file_type=15).read_bytes()
    # The repository renamed its files since the catalogue was written: found by quantization.
    server.add("Qwen/Qwen2.5-0.5B-Instruct-GGUF", {"Qwen2.5-0.5B-Instruct.Q4_K_M.gguf": q4})
    yield server
    server.stop()


def hearth(hub: FakeHub, *args: str, lang: str = "C.UTF-8") -> subprocess.CompletedProcess[str]:
    env = dict(HF_ENDPOINT=hub.url, MODELSCOPE_ENDPOINT=hub.url, LANG=lang)
    return run_hearth(*args, env=env, unset=("LC_ALL", "LC_MESSAGES"), timeout=120)


@pytest.mark.slow
def test_models_catalog_lists_the_contract_fields(hub: FakeHub) -> None:
    listed = json.loads(hearth(hub, "models", "catalog", "--json").stdout)
    assert len(listed) >= 15
    for field in ("name", "repo_hf", "repo_modelscope", "file", "size_bytes", "purpose"):
        assert all(field in entry for entry in listed), field
    assert {"license", "verdict"} <= set(listed[0])
    text = hearth(hub, "models", "catalog").stdout
    assert "qwen2.5-0.5b-instruct" in text and "hearth pull NAME" in text


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lang", "hub_name"), [("en_US.UTF-8", "hf"), ("zh_CN.UTF-8", "modelscope")]
)
def test_pull_a_catalogue_model_by_name(
    hub: FakeHub, data_dir: Path, lang: str, hub_name: str
) -> None:
    result = hearth(hub, "pull", "qwen2.5-0.5b-instruct", lang=lang)
    assert result.returncode == 0, result.stderr
    target = data_dir / "models/Qwen/Qwen2.5-0.5B-Instruct-GGUF/Qwen2.5-0.5B-Instruct.Q4_K_M.gguf"
    assert target.is_file()
    paths = [line for line in hub.requests if "Qwen2.5-0.5B" in line]
    from_modelscope = any("/api/v1/models/" in line for line in paths)
    assert from_modelscope == (hub_name == "modelscope"), paths


@pytest.mark.slow
def test_an_unknown_name_says_what_to_type(hub: FakeHub) -> None:
    result = hearth(hub, "pull", "gpt-5")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "hearth models catalog" in result.stderr
