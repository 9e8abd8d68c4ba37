"""Changing the library: deleting only what Hearth itself downloaded (after ending the
workers that have it loaded: the library, the download record and the engine host meet
here, so this sits beside the core that assembles them)."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.core import Core
from app.errors import HearthError
from app.models.library import ModelEntry
from app.models.owned import owned_files
from wire.phrases import Phrase

APP_NAMES = {
    "hf-cache": "the Hugging Face cache",
    "modelscope-cache": "the ModelScope cache",
    "lmstudio": "LM Studio",
    "ollama": "Ollama",
    "gpt4all": "GPT4All",
    "starter": "Hearth itself (the starter model)",
    "added": "you (added by path)",
}


def delete_model(core: Core, entry: ModelEntry) -> int:
    """Delete a model Hearth downloaded; refuse anything another app or the user owns.

    Returns the number of bytes freed.
    """
    path = entry.path
    # Compared as paths, not text: "acme/tiny" is not inside "acme/tiny-GGUF", and a
    # folder's files were recorded with the platform's separator.
    mine = [p for p in owned_files(core.downloads_file) if Path(p).is_relative_to(path)]
    if entry.source != "models_dir" or not mine:
        owner = APP_NAMES.get(entry.source, "another program or you")
        raise HearthError(
            Phrase(
                "{0} belongs to {1}; Hearth only deletes models it downloaded itself.",
                entry.name,
                owner,
            )
        )
    _unload(core, entry)
    freed = 0
    try:
        if path.is_dir():
            freed = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
            shutil.rmtree(path)
        else:
            freed = path.stat().st_size
            path.unlink()
            freed += _projector_left(core, entry)
    except PermissionError as exc:  # Windows: a process (another Hearth?) has it open
        raise HearthError(
            Phrase(
                "{0} could not be deleted: another program has it open ({1}). Close the "
                "programs using it (another Hearth window or hearth serve) and try again.",
                entry.name,
                exc.strerror or exc,
            )
        ) from exc
    models_dir = core.models_dir.resolve()
    parent = path.parent
    while parent.resolve() != models_dir and models_dir in parent.resolve().parents:
        try:
            parent.rmdir()  # only empty folders
        except OSError:
            break
        parent = parent.parent
    return freed


def _projector_left(core: Core, entry: ModelEntry) -> int:
    """The projector Hearth downloaded with a vision model goes with it, unless another
    model beside it still uses it; the bytes freed."""
    projector = entry.projector
    owned = {Path(p) for p in owned_files(core.downloads_file)}
    if projector is None or projector not in owned or not projector.is_file():
        return 0
    others = [m for m in core.models() if m.projector == projector and m.path != entry.path]
    if others:
        return 0
    size = projector.stat().st_size
    projector.unlink()
    return size


def _unload(core: Core, entry: ModelEntry) -> None:
    """End the workers of this process that have the model loaded (idle ones: Windows
    cannot delete a file a process has mapped); refuse while one is in use."""
    host = core.engines
    for model in host.loaded():
        if not Path(model.spec.path).is_relative_to(entry.path):
            continue
        if not host.unload(model.spec, wait=True):
            raise HearthError(
                Phrase(
                    "{0} is in use (a chat, the API or documents): choose another model or "
                    "unload it in Loaded models, then delete it.",
                    entry.name,
                )
            )
