"""Models that other apps already downloaded, used where they are and never copied.

Each finder knows one app's folder layout and yields ``Found`` records: a GGUF file or a
transformers checkpoint folder, the name people know it by, and which app owns it.
Nothing here reads weights; missing folders are the normal case.

* Hugging Face cache: ``$HF_HUB_CACHE`` or ``$HF_HOME/hub`` (default
  ``~/.cache/huggingface/hub``), ``models--owner--name/snapshots/<revision>/…``.
* ModelScope cache: ``$MODELSCOPE_CACHE`` (default ``~/.cache/modelscope/hub``),
  ``models/owner/name`` (older releases put ``owner/name`` directly under the cache).
* LM Studio: ``~/.lmstudio/models/<publisher>/<repo>/*.gguf`` (older:
  ``~/.cache/lm-studio/models``).
* Ollama: ``$OLLAMA_MODELS`` (default ``~/.ollama/models``): manifests name the GGUF blob.
* GPT4All: its data folder's ``*.gguf`` (per platform).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from app.json_document import read_json_object
from wire import platforms

OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"


@dataclass(frozen=True)
class Found:
    path: Path
    name: str
    source: str  # "hf-cache", "modelscope-cache", "lmstudio", "ollama", "gpt4all"
    kind: str  # "gguf" or "checkpoint"
    repo_id: str = ""


def is_checkpoint(folder: Path) -> bool:
    try:
        return (folder / "config.json").is_file() and any(folder.glob("*.safetensors"))
    except OSError:
        return False


def _ggufs(folder: Path) -> Iterator[Path]:
    try:
        yield from sorted(p for p in folder.rglob("*.gguf") if p.is_file())
    except OSError:
        return


def _home(home: Path | None) -> Path:
    return home if home is not None else Path.home()


def huggingface_cache(home: Path | None = None) -> Iterator[Found]:
    hub = os.environ.get("HF_HUB_CACHE")
    root = (
        Path(hub)
        if hub
        else Path(os.environ.get("HF_HOME") or _home(home) / ".cache" / "huggingface") / "hub"
    )
    if not root.is_dir():
        return
    for repo in sorted(root.glob("models--*--*")):
        repo_id = repo.name[len("models--") :].replace("--", "/", 1)
        snapshots = sorted(
            (p for p in (repo / "snapshots").glob("*") if p.is_dir()),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
        if not snapshots:
            continue
        latest = snapshots[0]
        for file in _ggufs(latest):
            yield Found(file, f"{repo_id}/{file.relative_to(latest)}", "hf-cache", "gguf", repo_id)
        if is_checkpoint(latest):
            yield Found(latest, repo_id, "hf-cache", "checkpoint", repo_id)


def modelscope_cache(home: Path | None = None) -> Iterator[Found]:
    configured = os.environ.get("MODELSCOPE_CACHE")
    root = Path(configured) if configured else _home(home) / ".cache" / "modelscope" / "hub"
    for base in (root / "models", root):
        if not base.is_dir():
            continue
        for owner in sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")):
            if owner.name in ("models", "datasets", "hub"):
                continue
            for repo in sorted(p for p in owner.iterdir() if p.is_dir()):
                repo_id = f"{owner.name}/{repo.name}".replace("___", ".")
                for file in _ggufs(repo):
                    yield Found(
                        file,
                        f"{repo_id}/{file.relative_to(repo)}",
                        "modelscope-cache",
                        "gguf",
                        repo_id,
                    )
                if is_checkpoint(repo):
                    yield Found(repo, repo_id, "modelscope-cache", "checkpoint", repo_id)


def lm_studio(home: Path | None = None) -> Iterator[Found]:
    for root in (
        _home(home) / ".lmstudio" / "models",
        _home(home) / ".cache" / "lm-studio" / "models",
    ):
        if not root.is_dir():
            continue
        for file in _ggufs(root):
            relative = file.relative_to(root)
            repo_id = "/".join(relative.parts[:2]) if len(relative.parts) > 2 else ""
            yield Found(file, str(relative.as_posix()), "lmstudio", "gguf", repo_id)


def ollama(home: Path | None = None) -> Iterator[Found]:
    configured = os.environ.get("OLLAMA_MODELS")
    root = Path(configured) if configured else _home(home) / ".ollama" / "models"
    manifests = root / "manifests"
    if not manifests.is_dir():
        return
    for manifest in sorted(p for p in manifests.rglob("*") if p.is_file()):
        try:
            layers = read_json_object(manifest, max_bytes=1024 * 1024).get("layers", [])
            if not isinstance(layers, list):
                continue
        except (OSError, ValueError):
            continue
        digest = next(
            (
                layer.get("digest", "")
                for layer in layers
                if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL_LAYER
            ),
            "",
        )
        if not digest:
            continue
        blob = root / "blobs" / digest.replace(":", "-")
        if not blob.is_file():
            continue
        parts = manifest.relative_to(manifests).parts  # host/namespace/model/tag
        if len(parts) < 3:
            continue
        host, model, tag = parts[0], "/".join(parts[1:-1]), parts[-1]
        if model.startswith("library/"):
            model = model[len("library/") :]
        if host != "registry.ollama.ai":
            model = f"{host}/{model}"
        yield Found(blob, f"{model}:{tag}", "ollama", "gguf")


def gpt4all_dir(home: Path | None = None) -> Path:
    return platforms.app_data_dir(_home(home)) / "nomic.ai" / "GPT4All"


def gpt4all(home: Path | None = None) -> Iterator[Found]:
    root = gpt4all_dir(home)
    if not root.is_dir():
        return
    for file in sorted(root.glob("*.gguf")):
        yield Found(file, file.stem, "gpt4all", "gguf")


FINDERS = (huggingface_cache, modelscope_cache, lm_studio, ollama, gpt4all)


def find_all(home: Path | None = None) -> list[Found]:
    found: list[Found] = []
    for finder in FINDERS:
        try:
            found.extend(finder(home))
        except OSError:
            continue  # an unreadable folder hides that app's models, nothing else
    return found
