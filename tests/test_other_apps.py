"""Models other apps downloaded are found in place, each app's layout in a temporary home."""

import json
from pathlib import Path

import pytest

from app.core import Core
from app.models.library import list_models
from app.models.other_apps import gpt4all_dir
from tests.gguf_files import build_checkpoint, build_gguf


def names(home: Path, source: str) -> dict[str, Path]:
    entries = list_models(None, home=home)
    return {e.name: e.path for e in entries if e.source == source}


def test_hugging_face_cache_latest_snapshot(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = home / ".cache/huggingface/hub/models--acme--tiny-GGUF"
    blob = build_gguf(repo / "blobs" / "abc123")
    snapshot = repo / "snapshots" / "rev1"
    snapshot.mkdir(parents=True)
    (snapshot / "tiny-Q4_K_M.gguf").symlink_to(blob)
    build_checkpoint(home / ".cache/huggingface/hub/models--acme--tiny-hf/snapshots/r")
    found = names(home, "hf-cache")
    assert found["acme/tiny-GGUF/tiny-Q4_K_M.gguf"] == snapshot / "tiny-Q4_K_M.gguf"
    assert "acme/tiny-hf" in found


def test_hf_home_moves_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "elsewhere"))
    build_gguf(tmp_path / "elsewhere/hub/models--a--b/snapshots/r/b.Q8_0.gguf")
    assert "a/b/b.Q8_0.gguf" in names(tmp_path / "home", "hf-cache")


def test_modelscope_cache(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build_gguf(home / ".cache/modelscope/hub/models/qwen/Qwen2___5-0___5B-GGUF/q4.gguf")
    build_checkpoint(home / ".cache/modelscope/hub/models/deepseek-ai/tiny")
    found = names(home, "modelscope-cache")
    assert "qwen/Qwen2.5-0.5B-GGUF/q4.gguf" in found
    assert "deepseek-ai/tiny" in found


def test_lm_studio(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build_gguf(home / ".lmstudio/models/lmstudio-community/gemma-GGUF/gemma-Q4_K_M.gguf")
    entries = [e for e in list_models(None, home=home) if e.source == "lmstudio"]
    assert entries[0].name == "lmstudio-community/gemma-GGUF/gemma-Q4_K_M.gguf"
    assert entries[0].repo_id == "lmstudio-community/gemma-GGUF"


def test_ollama_manifests_point_at_gguf_blobs(tmp_path: Path) -> None:
    root = tmp_path / "home/.ollama/models"
    blob = build_gguf(root / "blobs/sha256-0f1e2d")
    manifest = root / "manifests/registry.ollama.ai/library/smollm2/135m"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(
        json.dumps(
            {
                "layers": [
                    {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:aaaa"},
                    {"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:0f1e2d"},
                ]
            }
        )
    )
    broken = root / "manifests/registry.ollama.ai/library/gone/latest"
    broken.parent.mkdir(parents=True)
    broken.write_text("{not json")
    found = names(tmp_path / "home", "ollama")
    assert found == {"smollm2:135m": blob}


def test_gpt4all(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build_gguf(gpt4all_dir(home) / "Llama-3.2-1B-Instruct-Q4_0.gguf")
    assert "Llama-3.2-1B-Instruct-Q4_0" in names(home, "gpt4all")


def test_other_apps_can_be_turned_off_and_added_paths_are_used(core: Core, tmp_path: Path) -> None:
    home = Path.home()
    build_gguf(home / ".lmstudio/models/a/b/m.gguf")
    extra = build_gguf(tmp_path / "anywhere" / "mine.gguf")
    core.settings.set("models.added", str(extra))
    sources = {e.source for e in core.models()}
    assert {"starter", "lmstudio", "added"} <= sources
    core.settings.set("models.scan_other_apps", False)
    assert "lmstudio" not in {e.source for e in core.models()}


def test_checkpoints_in_the_models_folder_show_their_facts(core: Core) -> None:
    build_checkpoint(core.models_dir / "acme/tiny-hf")
    build_checkpoint(core.models_dir / "acme/pickled", pickle_only=True)
    entries = {e.name: e for e in core.models()}
    tiny = entries["acme/tiny-hf"]
    assert (tiny.format, tiny.architecture, tiny.context_length, tiny.parameters) == (
        "transformers",
        "LlamaForCausalLM",
        2048,
        32,
    )
    assert "pickle" in entries["acme/pickled"].warning

    chat = {m.name for m in core.chat_models(list(entries.values()))}
    assert ("acme/tiny-hf" in chat) == core.can_run("transformers")  # needs the PyTorch engine
