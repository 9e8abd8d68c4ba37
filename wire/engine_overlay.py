"""The PyTorch engine added after install: where its packages are, and how a child process
of Hearth imports them ahead of its own.

The installers carry no torch (it would triple their size).  ``hearth engines install
pytorch`` unpacks torch, transformers and accelerate, at the lock file's versions, into a
folder of the data folder (``app/packs/pytorch_engine.py``); the worker, the engine probe
and the capabilities probe of the frozen app then run them on the app's own interpreter
(docs/RUNTIMES.md, "The PyTorch engine after install", says why not a separate Python).

A worker is told the folder by its model's spec (``ModelSpec.engine_path``), a probe by
``OVERLAY_ENV``, and each calls ``use_overlay`` before it imports an engine: the folder
goes first on ``sys.path`` and a finder for it goes first among the import system's
finders, so its packages win over the frozen app's own copies of the same (a newer
huggingface_hub, numpy) in that process only.  The window's process never imports them.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import sys
from pathlib import Path
from typing import Any, ClassVar

OVERLAY_ENV = "HEARTH_ENGINE_PATH"
ENGINES_FOLDER = "engines"  # in the data folder
PYTORCH = "pytorch"
RECORD = "engine.json"  # in the engine's folder: what is installed and in use
SITE = "site-packages"


class _OverlayFinder(importlib.machinery.PathFinder):
    """The standard path finder, on the overlay's folders only (first among the import
    system's finders, before the frozen app's own)."""

    paths: ClassVar[list[str]] = []

    @classmethod
    def find_spec(cls, fullname: str, path: Any = None, target: Any = None) -> Any:
        if path is None:  # a top-level module: look in the overlay only
            path = cls.paths
        return super().find_spec(fullname, path, target)


def use_overlay(folder: str | None = None) -> str | None:
    """Import the engine packages in ``folder`` (by default the one ``OVERLAY_ENV`` names)
    ahead of this process's own (once; without one, the process is left as it is).  The
    folder, or None."""
    folder = folder or os.environ.get(OVERLAY_ENV)
    if not folder or not Path(folder).is_dir():
        return None
    if folder not in sys.path:
        sys.path.insert(0, folder)
    if _OverlayFinder not in sys.meta_path:
        _OverlayFinder.paths = [folder]
        sys.meta_path.insert(0, _OverlayFinder)
    return folder


def engine_folder(data_dir: Path, name: str = PYTORCH) -> Path:
    return data_dir / ENGINES_FOLDER / name


def record_of(data_dir: Path, name: str = PYTORCH) -> dict[str, Any]:
    """The engine's record (``{}`` when it is not installed or the record is unreadable)."""
    return record_in(engine_folder(data_dir, name))


def record_in(folder: Path) -> dict[str, Any]:
    """The record an engine's folder holds (``{}`` when there is none, or it is damaged)."""
    try:
        with (folder / RECORD).open(encoding="utf-8") as file:
            record = json.load(file)
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def installed_site(data_dir: Path, name: str = PYTORCH) -> Path | None:
    """The packages folder of the engine installed and checked, when it is there."""
    record = record_of(data_dir, name)
    current = record.get("current")
    if not isinstance(current, str) or not record.get("usable"):
        return None
    site = engine_folder(data_dir, name) / current / SITE
    return site if site.is_dir() else None
