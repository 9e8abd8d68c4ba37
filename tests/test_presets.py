"""Presets, and where a conversation's reply settings come from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.chat.presets import (
    Preset,
    PresetStore,
    effective_values,
    engine_params,
    recommended_sampling,
)
from app.models.library import ModelEntry
from app.settings import Settings
from tests.gguf_files import build_gguf


def test_recommended_sampling_comes_from_the_model_file(tmp_path: Path) -> None:
    gguf = build_gguf(
        tmp_path / "r1.gguf",
        floats={"general.sampling.temp": 0.6, "general.sampling.top_p": 0.95},
    )
    entry = ModelEntry("r1", gguf, "gguf", gguf.stat().st_size, "file")
    advice = recommended_sampling(entry)
    assert advice == {"sampling.temperature": 0.6, "sampling.top_p": 0.95}
    folder = tmp_path / "checkpoint"
    folder.mkdir()
    (folder / "generation_config.json").write_text(
        json.dumps({"do_sample": True, "temperature": 0.7, "top_k": 20, "repetition_penalty": 9})
    )
    checkpoint = ModelEntry("qwen", folder, "transformers", 1, "file")
    # A value outside Hearth's ranges (repeat penalty 9) is ignored, not an error.
    assert recommended_sampling(checkpoint) == {
        "sampling.temperature": 0.7,
        "sampling.top_k": 20,
    }
    plain = build_gguf(tmp_path / "plain.gguf")
    assert recommended_sampling(ModelEntry("p", plain, "gguf", 1, "file")) == {}


def test_the_conversation_overrides_the_model_which_overrides_the_settings(
    tmp_path: Path,
) -> None:
    settings = Settings(tmp_path / "settings.json")
    settings.set("sampling.top_k", 50)
    values = effective_values(
        settings,
        {"sampling.temperature": 0.6, "sampling.top_k": 20},
        {"sampling.temperature": 0.1, "preset": "Coding helper"},
    )
    assert values["sampling.temperature"] == 0.1  # the conversation's own choice
    assert values["sampling.top_k"] == 20  # the model's advice beats the global setting
    assert values["sampling.top_p"] == settings.get("sampling.top_p")
    params = engine_params(values)
    assert params["temperature"] == 0.1 and "seed" not in params and "max_tokens" not in params


def test_user_presets_are_saved_checked_and_kept_safe(tmp_path: Path) -> None:
    store = PresetStore(tmp_path / "presets.json")
    store.save(Preset("Pirate", "Talk like a pirate.", {"sampling.temperature": 1.2}))
    assert PresetStore(tmp_path / "presets.json").get("Pirate") == Preset(
        "Pirate", "Talk like a pirate.", {"sampling.temperature": 1.2}
    )
    with pytest.raises(ValueError, match="built-in"):
        store.save(Preset("Default", "x"))
    with pytest.raises(ValueError, match="at most"):
        store.save(Preset("Hot", "x", {"sampling.temperature": 9.0}))
    store.delete("Pirate")
    assert store.get("Pirate") is None
    (tmp_path / "presets.json").write_text("{broken", encoding="utf-8")
    damaged = PresetStore(tmp_path / "presets.json")
    assert next(p.name for p in damaged.presets()) == "Default"  # built-ins still there
    assert "could not be read" in damaged.problem
    assert list(tmp_path.glob("presets.json.damaged-*"))  # the file kept, not deleted
