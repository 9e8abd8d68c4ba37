"""A llama.cpp runtime folder made into a runtime pack: its archive and its manifest
(``app/packs/pack_manifest.py`` reads them; docs/RUNTIMES.md, "Packs").

    python packaging/llama/make-pack.py pack RUNTIME OUT --name cuda-12 [--os linux --arch x86_64]
    python packaging/llama/make-pack.py merge OUT.json MANIFEST...

``pack`` writes ``OUT/hearth-runtime-NAME-OS-ARCH-LLAMA.zip`` (every file of RUNTIME, links
followed, in a fixed order and date) and ``OUT/hearth-runtime-NAME-OS-ARCH.json`` (a manifest
of that one pack: its files with size and SHA-256, the archive's own, and what it needs,
from the recipe of its name in ``resources/engines/llama-runtime-packs.json``).  The
runtime must be built for the llama-cpp-python that Hearth pins (``packaging/lib.sh``).
``merge`` joins one-pack manifests into the release's ``hearth-runtime-packs.json``.
Only the standard library: it runs on the release's build machines and in the tests.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
RECIPES = REPO / "resources" / "engines" / "llama-runtime-packs.json"
MANIFEST_NAME = "hearth-runtime-packs.json"
ARCHES = {"amd64": "x86_64", "x64": "x86_64", "aarch64": "arm64"}
FIXED_TIME = (2020, 1, 1, 0, 0, 0)  # the same files make the same archive


def pinned(name: str) -> str:
    """A pin of ``packaging/lib.sh`` (``LLAMA_VERSION``) or Hearth's own version."""
    if name == "HEARTH_VERSION":
        text = (REPO / "app" / "__init__.py").read_text(encoding="utf-8")
        return re.search(r'__version__ = "(.*)"', text).group(1)  # type: ignore[union-attr]
    text = (REPO / "packaging" / "lib.sh").read_text(encoding="utf-8")
    return re.search(rf'^{name}="(.*)"', text, re.M).group(1)  # type: ignore[union-attr]


def digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def recipe(name: str) -> dict[str, Any]:
    document = json.loads(RECIPES.read_text(encoding="utf-8"))
    return next((item for item in document["packs"] if item["name"] == name), {})


def make_pack(runtime: Path, out: Path, name: str, system: str, arch: str) -> Path:
    """The pack's archive and one-pack manifest in ``out``; the manifest's path."""
    label = json.loads((runtime / "runtime.json").read_text(encoding="utf-8"))
    llama = pinned("LLAMA_VERSION")
    if label.get("llama_cpp_python") != llama:
        sys.exit(
            f"{runtime} is built for llama-cpp-python {label.get('llama_cpp_python')}, "
            f"but Hearth pins {llama} (packaging/lib.sh)"
        )
    if label.get("name") != name:  # the runtime is known by the pack's name
        sys.exit(f"{runtime}/runtime.json names {label.get('name')!r}, not the pack's {name!r}")
    wanted = recipe(name)
    if wanted and wanted["kind"] != label.get("kind"):
        sys.exit(f"{runtime} is a {label.get('kind')} runtime; the {name} pack is {wanted['kind']}")
    files = sorted(p for p in runtime.rglob("*") if p.is_file())
    out.mkdir(parents=True, exist_ok=True)
    archive = out / f"hearth-runtime-{name}-{system}-{arch}-{llama}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as packed:
        for path in files:
            info = zipfile.ZipInfo(path.relative_to(runtime).as_posix(), FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with path.open("rb") as source, packed.open(info, "w", force_zip64=True) as target:
                for block in iter(lambda: source.read(1 << 20), b""):
                    target.write(block)
    pack = {
        "name": name,
        "kind": label["kind"],
        "version": pinned("HEARTH_VERSION"),
        "llama_cpp_python": llama,
        "os": system,
        "arch": arch,
        "cuda": wanted.get("cuda", ""),
        "min_cuda_driver": wanted.get("min_cuda_driver", ""),
        "min_driver": (wanted.get("min_driver") or {}).get(system, ""),
        "compute_capabilities": wanted.get("compute_capabilities", []),
        "ptx": wanted.get("ptx", []),
        "cpu_features": label.get("cpu_features", []),
        "archive": {
            "name": archive.name,
            "size": archive.stat().st_size,
            "sha256": digest(archive),
        },
        "files": [
            {
                "path": p.relative_to(runtime).as_posix(),
                "size": p.stat().st_size,
                "sha256": digest(p),
            }
            for p in files
        ],
    }
    manifest = out / f"hearth-runtime-{name}-{system}-{arch}.json"
    manifest.write_text(
        json.dumps({"format": 1, "packs": [pack]}, indent=1) + "\n", encoding="utf-8"
    )
    return manifest


def merge(out: Path, manifests: list[Path]) -> None:
    packs = []
    for path in manifests:
        packs += json.loads(path.read_text(encoding="utf-8"))["packs"]
    packs.sort(key=lambda pack: (pack["name"], pack["os"], pack["arch"]))
    out.write_text(json.dumps({"format": 1, "packs": packs}, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    pack = commands.add_parser("pack", help="a runtime folder into a pack")
    pack.add_argument("runtime", type=Path)
    pack.add_argument("out", type=Path)
    pack.add_argument("--name", required=True)
    pack.add_argument("--os", default=platform.system().lower())
    pack.add_argument(
        "--arch", default=ARCHES.get(platform.machine().lower(), platform.machine().lower())
    )
    joined = commands.add_parser("merge", help="one-pack manifests into the release's")
    joined.add_argument("out", type=Path)
    joined.add_argument("manifests", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "pack":
        print(make_pack(args.runtime, args.out, args.name, args.os, args.arch))
    else:
        merge(args.out, args.manifests)
        print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
