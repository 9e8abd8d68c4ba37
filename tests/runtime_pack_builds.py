"""Runtime packs made here for the tests: a CPU runtime folder laid out as
``packaging/llama/unpack_runtime.py`` lays one out from a wheel (the installed llama.cpp's
libraries, so that its probe really runs), made a pack by ``packaging/llama/make-pack.py``
as the release makes one."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from app.packs import runtime_packs
from tests.conftest import REPO

MAKE_PACK = REPO / "packaging" / "llama" / "make-pack.py"
NAME = "cpu-pack"
_SPEC = importlib.util.find_spec("llama_cpp")
assert _SPEC is not None and _SPEC.origin is not None
LIB_DIR = Path(_SPEC.origin).parent / "lib"


def _keep() -> Callable[[str], object]:
    """Which of a wheel's libraries a runtime keeps: ``unpack_runtime.py``'s own rule."""
    spec = importlib.util.spec_from_file_location(
        "unpack_runtime", REPO / "packaging" / "llama" / "unpack_runtime.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.KEEP.fullmatch  # type: ignore[no-any-return]


def make_runtime(folder: Path, name: str = NAME, kind: str = "cpu") -> Path:
    """A CPU runtime folder as ``make runtimes`` lays one out, from the installed build."""
    keep = _keep()
    folder.mkdir(parents=True)
    for library in LIB_DIR.iterdir():
        if keep(library.name):
            shutil.copyfile(library, folder / library.name)
    label = {"name": name, "kind": kind, "llama_cpp_python": runtime_packs.llama_version()}
    (folder / "runtime.json").write_text(json.dumps(label))
    return folder


def make_pack(runtime: Path, out: Path, name: str = NAME) -> dict[str, object]:
    """The one-pack manifest ``make-pack.py`` writes for ``runtime`` (its archive in out)."""
    result = subprocess.run(
        [sys.executable, str(MAKE_PACK), "pack", str(runtime), str(out), "--name", name],
        capture_output=True,
        text=True,
        check=True,
    )
    manifest: dict[str, object] = json.loads(Path(result.stdout.strip()).read_text())
    return manifest


def the_pack(manifest: dict[str, object]) -> dict[str, object]:
    packs = manifest["packs"]
    assert isinstance(packs, list)
    pack: dict[str, object] = packs[0]
    return pack
