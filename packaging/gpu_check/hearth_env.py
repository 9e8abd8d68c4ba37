"""Hearth's own code and the kit's packages on the path of this process and of the workers
it starts: the kit's llama-cpp-python first; the kit's copies of Hearth's other
dependencies only where the machine has none, so that what it has installed is used."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def use_kit(kit: Path, runtimes: Path, data: Path, links: Path) -> list[str]:
    """Puts the kit on the path of this process and its children; returns the packages
    taken from the kit's fallback copies.  Those are linked into ``links`` only when this
    Python cannot import them: a folder on PYTHONPATH comes before site-packages, so a
    copy on the path would shadow the machine's own version."""
    shutil.rmtree(links, ignore_errors=True)
    links.mkdir(parents=True)
    fallback = kit / "fallback"
    listed = fallback / "packages.json"
    manifest = json.loads(listed.read_text()) if listed.is_file() else {}
    taken = []
    for package, entries in manifest.items():
        if importlib.util.find_spec(package) is None:
            taken.append(package)
            for entry in entries:
                (links / entry).symlink_to(fallback / entry)
    first = [str(REPO), str(kit / "python")]
    present = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    ordered = [*first, *(p for p in present if p not in first), str(links)]
    os.environ["PYTHONPATH"] = os.pathsep.join(ordered)
    os.environ["HEARTH_RUNTIMES_DIR"] = str(runtimes)
    os.environ["HEARTH_DATA_DIR"] = str(data)
    for path in reversed(first):
        if path not in sys.path:
            sys.path.insert(0, path)
    sys.path.append(str(links))
    importlib.invalidate_caches()
    return taken
