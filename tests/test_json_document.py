"""Hearth's JSON state files all load, repair and migrate the same way."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.chat.presets import Preset, PresetStore
from app.hub.downloads import DownloadManager
from app.json_document import JsonDocument
from app.models.endpoints import Endpoints
from app.models.overrides import ModelChoice, ModelOverrides
from app.models.owned import owned_files
from app.settings import Settings

DAMAGED = [
    b"{ not json",
    b"\xff\xfe{\x00}\x00",  # UTF-16
    b'{"version": 1, "values": {"engine.context_length": Infinity}}',
    b'{"version": 1, "values": {"engine.context_length": 1e999}}',
    b"[" * 100_000 + b"]" * 100_000,
    b'["a list, not an object"]',
    b'{"version": "one"}',
]


@pytest.mark.parametrize("content", DAMAGED, ids=range(len(DAMAGED)))
def test_a_damaged_file_is_set_aside_with_a_sentence(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "state.json"
    path.write_bytes(content)
    document = JsonDocument(path, "settings")
    assert document.load(lambda d: d["values"]) is None
    assert "could not be read" in document.problem and "state.json.damaged-" in document.problem
    assert not path.exists()
    assert [p.read_bytes() for p in tmp_path.glob("state.json.damaged-*")] == [content]


def test_older_versions_are_migrated_and_saved_with_the_current_one(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"version": 1, "old": 3}))
    document = JsonDocument(path, "settings", 2, {1: lambda d: {"new": d["old"] * 2}})
    assert document.load(lambda d: d) == {"new": 6}
    document.save({"new": 6})
    assert json.loads(path.read_text()) == {"version": 2, "new": 6}
    assert JsonDocument(tmp_path / "missing.json", "x").load(lambda d: d) is None


def test_the_files_of_model_settings_without_a_version_still_load(tmp_path: Path) -> None:
    path = tmp_path / "model_settings.json"
    path.write_text(json.dumps({"/models/a.gguf": {"threads": 3}}))  # as Hearth 0.1 wrote it
    overrides = ModelOverrides(path)
    assert overrides.get("/models/a.gguf").threads == 3
    overrides.set("/models/b.gguf", ModelChoice(n_ctx=2048))
    saved = json.loads(path.read_text())
    assert saved["version"] == 1 and set(saved["models"]) == {"/models/a.gguf", "/models/b.gguf"}
    with pytest.raises(ValueError, match="between 256"):
        overrides.set("/models/c.gguf", ModelChoice(n_ctx=100))
    with pytest.raises(ValueError, match="unknown engine"):
        overrides.set("/models/c.gguf", ModelChoice(engine="warp-drive"))


Opener = Callable[[Path], Any]

OWNERS: dict[str, tuple[str, Opener]] = {
    "settings": ("settings.json", lambda p: Settings(p).get("engine.context_length")),
    "presets": ("presets.json", lambda p: [x.name for x in PresetStore(p).presets()][:1]),
    "model settings": ("model_settings.json", lambda p: ModelOverrides(p).get("x").threads),
    "endpoints": ("endpoints.json", lambda p: Endpoints(p).all()),
    "downloads": ("downloads.json", lambda p: (owned_files(p), DownloadManager(p, {}).owned)),
}


@pytest.mark.parametrize("owner", OWNERS)
def test_every_state_file_survives_damage_with_its_defaults(tmp_path: Path, owner: str) -> None:
    name, open_with = OWNERS[owner]
    path = tmp_path / name
    path.write_bytes(
        b'{"version": 1, "owned": 5, "items": 7, "values": 3, "presets": 1, "endpoints": 2,'
        b' "models": 4}'
    )
    defaults = {
        "settings": 4096,
        "presets": ["Default"],
        "model settings": None,
        "endpoints": [],
        "downloads": ([], []),
    }
    assert open_with(path) == defaults[owner]
    assert any(tmp_path.glob(f"{name}.damaged-*"))


def test_what_is_saved_comes_back(tmp_path: Path) -> None:
    presets = PresetStore(tmp_path / "presets.json")
    presets.save(Preset("Pirate", "Arr.", {"sampling.temperature": 1.2}))
    assert PresetStore(tmp_path / "presets.json").get("Pirate") is not None
    endpoints = Endpoints(tmp_path / "endpoints.json")
    endpoints.add("lab", "http://10.0.0.2:8000")
    endpoints.add("home", "http://127.0.0.1:11434")
    endpoints.remove("lab")
    assert [e.name for e in Endpoints(tmp_path / "endpoints.json").all()] == ["home"]
    assert json.loads((tmp_path / "endpoints.json").read_text())["version"] == 1
