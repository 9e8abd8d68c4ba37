"""The catalogue checked on the hub: today's file names and sizes replace the shipped ones
(kept for later, offline too), only when the user asks or allowed a daily check; a hub
that cannot be reached, or a damaged facts file, loses nothing."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core import Core
from app.errors import HearthError
from app.hub.catalog import CatalogEntry, load_catalog
from app.hub.catalog_refresh import (
    FACTS_FILE,
    HubFacts,
    check_hub,
    current_catalog,
    due,
    load_facts,
    recommended_file,
    with_hub_facts,
)
from app.hub.repo_files import RepoFile
from app.hub.sources import HF, MODELSCOPE
from tests.conftest import run_hearth
from tests.fakehub import FakeHub, both_hubs
from tests.gui_helpers import open_window, wait_until

RENAMED = "qwen2.5-0.5b-instruct"  # its repository renamed the file (same quantization)
MISSING = "qwen3-4b"  # its repository is not on this hub


def _size_of(index: int) -> int:
    return 1_000 + 37 * index  # a different size for every entry


def _serve_catalogue(hub: FakeHub, entries: list[CatalogEntry]) -> dict[str, tuple[str, int]]:
    """Every entry's repository on the hub (one fake serves both hubs), at new sizes; what
    a check should find: name -> (file, size)."""
    expected = {}
    for index, entry in enumerate(entries):
        if entry.name == MISSING:
            continue
        name = entry.file
        if entry.name == RENAMED:
            name = f"renamed-{entry.quantization}.gguf"
        for repo in {entry.repo_hf, entry.repo_modelscope}:
            hub.add(repo, {name: b"x" * _size_of(index), "README.md": b"card"})
        expected[entry.name] = (name, _size_of(index))
    return expected


@pytest.fixture
def hub(core: Core) -> Iterator[FakeHub]:
    with both_hubs(core) as server:
        yield server


def test_a_check_keeps_todays_files_and_sizes_and_names_what_it_missed(
    core: Core, hub: FakeHub
) -> None:
    entries = load_catalog()
    assert any(e.name == MISSING for e in entries) and any(e.name == RENAMED for e in entries)
    expected = _serve_catalogue(hub, entries)
    facts = check_hub(core.settings, core.paths.data_dir, entries, HF)
    found = {name: (f.file, f.size_bytes) for name, f in facts.files.items()}
    assert found == expected
    assert set(facts.problems) == {MISSING}
    # Kept in the data folder, and laid over the shipped catalogue from now on (offline too).
    hub.stop()
    current, kept = current_catalog(core.paths.data_dir)
    assert kept.files == facts.files
    by_name = {e.name: e for e in current}
    assert by_name[RENAMED].file == expected[RENAMED][0]
    assert by_name[RENAMED].size_bytes == expected[RENAMED][1]
    shipped = {e.name: e for e in entries}
    assert by_name[MISSING] == shipped[MISSING], "what the check missed stays as shipped"


def test_the_check_sends_no_token_or_login(
    core: Core, hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf_the_users_own_token")
    monkeypatch.setenv("MODELSCOPE_API_TOKEN", "ms_the_users_own_token")
    entries = load_catalog()
    _serve_catalogue(hub, entries)
    for source in (HF, MODELSCOPE):
        check_hub(core.settings, core.paths.data_dir, entries, source)
    assert len(hub.requests) >= len(entries)
    assert hub.credentials == [], "the catalogue's check is anonymous"


def test_an_unreachable_hub_stops_the_check_at_once_and_keeps_the_last_facts(
    core: Core, hub: FakeHub
) -> None:
    entries = load_catalog()
    _serve_catalogue(hub, entries)
    first = check_hub(core.settings, core.paths.data_dir, entries, HF)
    stored = (core.paths.data_dir / FACTS_FILE).read_text(encoding="utf-8")
    hub.stop()  # the network is gone
    asked: list[int] = []
    with pytest.raises(HearthError, match="Hugging Face"):
        check_hub(
            core.settings,
            core.paths.data_dir,
            entries,
            HF,
            progress=lambda done, _total: asked.append(done),
        )
    assert asked == [], "no repository is tried against a hub that is not there"
    assert (core.paths.data_dir / FACTS_FILE).read_text(encoding="utf-8") == stored
    assert load_facts(core.paths.data_dir).files == first.files


def test_a_fact_about_an_entry_a_newer_hearth_changed_is_not_used(core: Core, hub: FakeHub) -> None:
    entries = load_catalog()
    expected = _serve_catalogue(hub, entries)
    facts = check_hub(core.settings, core.paths.data_dir, entries, HF)
    renamed = next(e for e in entries if e.name == RENAMED)
    assert with_hub_facts([renamed], facts)[0].file == expected[RENAMED][0]
    for changed in (
        dataclasses.replace(renamed, quantization="Q5_K_M"),
        dataclasses.replace(renamed, repo_hf="someone-else/Qwen2.5-0.5B-GGUF"),
        dataclasses.replace(renamed, file="other.gguf"),
    ):
        assert with_hub_facts([changed], facts) == [changed], "as shipped, until checked"


def test_the_recommended_file_is_one_file_or_the_shards_of_one() -> None:
    entry = next(e for e in load_catalog() if e.name == RENAMED)
    quant = entry.quantization

    def listing(*names_and_sizes: tuple[str, int]) -> list[RepoFile]:
        return [RepoFile(path=name, size=size) for name, size in names_and_sizes]

    assert recommended_file(entry, listing((entry.file.upper(), 5))) == (entry.file.upper(), 5)
    shards = listing((f"m-{quant}-00001-of-00002.gguf", 3), (f"m-{quant}-00002-of-00002.gguf", 4))
    assert recommended_file(entry, shards) == (f"m-{quant}-00001-of-00002.gguf", 7)
    variants = listing((f"m-{quant}.gguf", 3), (f"m-UD-{quant}.gguf", 4))
    assert recommended_file(entry, variants) is None, "two candidates: Hearth does not guess"
    assert recommended_file(entry, listing(("m-Q8_0.gguf", 9))) is None


def test_a_hub_that_has_none_of_the_models_changes_nothing(core: Core, hub: FakeHub) -> None:
    with pytest.raises(HearthError, match="none of the catalogue's models"):
        check_hub(core.settings, core.paths.data_dir, load_catalog(), HF)
    assert not (core.paths.data_dir / FACTS_FILE).exists()


@pytest.mark.parametrize(
    "damage",
    [
        b"{not json",
        b'{"version": 2, "checked_at": 1, "files": {"a": {"source": "hf", "repo": "r",'
        b' "file": "f.gguf", "size_bytes": -5, "against": ["a", "b", "c", "d"]}}}',
        b'{"version": 2, "checked_at": 1, "files": {"a": {"source": "hf", "repo": "r",'
        b' "file": "f.gguf", "size_bytes": 5, "against": "abcd"}}}',
        b'{"version": 2, "checked_at": "yesterday", "files": {}}',
    ],
)
def test_a_damaged_facts_file_is_set_aside_and_the_shipped_catalogue_used(
    core: Core, damage: bytes
) -> None:
    path = core.paths.data_dir / FACTS_FILE
    path.write_bytes(damage)
    entries, facts = current_catalog(core.paths.data_dir)
    assert facts.checked_at == 0 and entries == load_catalog()
    assert not path.exists() and list(core.paths.data_dir.glob(f"{FACTS_FILE}.damaged-*"))
    assert "could not be read" in facts.problem, "said, not only set aside"


def test_facts_from_before_they_named_their_entry_are_checked_again(core: Core) -> None:
    (core.paths.data_dir / FACTS_FILE).write_text(
        json.dumps(
            {
                "checked_at": time.time(),
                "files": {
                    RENAMED: {"source": "hf", "repo": "r/r", "file": "f.gguf", "size_bytes": 5}
                },
            }
        ),
        encoding="utf-8",
    )
    facts = load_facts(core.paths.data_dir)
    assert facts.files == {} and due(facts) and facts.problem == ""


def test_a_daily_check_is_due_once_a_day() -> None:
    now = 1_800_000_000.0
    assert due(HubFacts(), now=now), "never checked"
    assert not due(HubFacts(checked_at=now - 3600), now=now)
    assert due(HubFacts(checked_at=now - 25 * 3600), now=now)
    assert not due(HubFacts(checked_at=now - 25 * 3600), now - 600, now), "tried (offline)"
    assert due(HubFacts(checked_at=now + 3600), now=now), "a clock that went back"


def _hearth(hub: FakeHub, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(HF_ENDPOINT=hub.url, MODELSCOPE_ENDPOINT=hub.url, LANG="C.UTF-8")
    return run_hearth(*args, env=env, unset=("LC_ALL", "LC_MESSAGES"), timeout=300)


@pytest.mark.slow
def test_models_catalog_refresh_asks_the_hub_and_later_listings_keep_the_answer(
    tmp_path: Path,
) -> None:
    hub = FakeHub().start()
    try:
        expected = _serve_catalogue(hub, load_catalog())
        plain = json.loads(_hearth(hub, "models", "catalog", "--json").stdout)
        assert not hub.requests, "without --refresh nothing is asked of a hub"
        shipped = {e["name"]: e["size_bytes"] for e in plain}
        result = _hearth(hub, "models", "catalog", "--refresh", "--json")
        assert result.returncode == 0, result.stderr
        assert MISSING in result.stderr, "what could not be checked is said"
        refreshed = {e["name"]: (e["file"], e["size_bytes"]) for e in json.loads(result.stdout)}
        assert refreshed[RENAMED] == expected[RENAMED]
        assert refreshed[MISSING][1] == shipped[MISSING]
    finally:
        hub.stop()
    later = _hearth(hub, "models", "catalog")  # offline now
    assert later.returncode == 0 and "Checked on the hub on" in later.stdout


@pytest.mark.slow
def test_check_the_hub_updates_the_cards_and_a_failure_is_said_beside_the_button(
    qtbot: QtBot, core: Core, hub: FakeHub
) -> None:
    window = open_window(qtbot, core)
    panel = window.catalog_panel
    wait_until(qtbot, lambda: bool(panel.best))
    assert "as shipped" in panel.hub_note.text()
    assert not window.catalog_check.running, "nothing is asked of a hub unless the user asks"
    expected = _serve_catalogue(hub, load_catalog())
    panel.check_button.click()
    wait_until(qtbot, lambda: "Checked on the hub on" in panel.hub_note.text())
    assert panel.check_button.isEnabled()
    sizes = {item.entry.name: item.entry.size_bytes for item in panel.best}
    assert sizes[RENAMED] == expected[RENAMED][1]
    hub.stop()
    panel.check_button.click()
    wait_until(qtbot, lambda: "The check failed" in panel.hub_note.text())
    assert "Hugging Face" in panel.hub_note.text() and panel.check_button.isEnabled()
    sizes_after = {item.entry.name: item.entry.size_bytes for item in panel.best}
    assert sizes_after == sizes, "the last facts stay"


@pytest.mark.slow
def test_an_allowed_daily_check_runs_on_start(qtbot: QtBot, core: Core, hub: FakeHub) -> None:
    expected = _serve_catalogue(hub, load_catalog())
    core.settings.set("hub.refresh_catalog", True)
    window = open_window(qtbot, core)
    panel = window.catalog_panel
    wait_until(qtbot, lambda: "Checked on the hub on" in panel.hub_note.text())
    sizes = {item.entry.name: item.entry.size_bytes for item in panel.best}
    assert sizes[RENAMED] == expected[RENAMED][1]


@pytest.mark.slow
def test_a_daily_check_done_today_is_not_done_again(qtbot: QtBot, core: Core, hub: FakeHub) -> None:
    _serve_catalogue(hub, load_catalog())
    check_hub(core.settings, core.paths.data_dir, load_catalog(), HF)
    asked = len(hub.requests)
    core.settings.set("hub.refresh_catalog", True)
    window = open_window(qtbot, core)
    wait_until(qtbot, lambda: bool(window.catalog_panel.best))
    assert not window.catalog_check.running and len(hub.requests) == asked
    assert "Checked on the hub on" in window.catalog_panel.hub_note.text()
