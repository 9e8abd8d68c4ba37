"""What a runtime pack is, as its manifest says: read defensively (it comes from the
network or a stranger's folder), and where the manifest is looked for.

A **manifest** (``hearth-runtime-packs.json``, published with each release beside the
packs' archives; ``packaging/llama/make-pack.py`` writes it) lists packs, one per name,
system and processor::

    {"format": 1, "packs": [{
        "name": "cuda-12", "kind": "cuda", "version": "0.5.0" (the Hearth release),
        "llama_cpp_python": "0.3.36", "os": "linux", "arch": "x86_64",
        "cuda": "12.8", "min_cuda_driver": "12.0", "min_driver": "525.60.13",
        "compute_capabilities": ["7.5", "8.6"], "ptx": ["12.0"], "cpu_features": [],
        "archive": {"name": "….zip", "size": …, "sha256": "…"},
        "files": [{"path": "libggml-cuda.so", "size": …, "sha256": "…"}, …]}]}

The **recipes** (``resources/engines/llama-runtime-packs.json``) say what each pack the
release workflow builds needs (CUDA, driver, compute capabilities), so the app can say
whether a pack fits this machine before anything is downloaded; the build reads the same
file, so the two cannot disagree.
"""

from __future__ import annotations

import json
import platform
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from app import __version__
from app.json_document import Damaged, parse_json
from app.machine.hardware import SystemFacts
from app.packs.fetch import FetchError, local_path, read_small
from wire.phrases import Phrase

MANIFEST_NAME = "hearth-runtime-packs.json"
RECIPES = Path("engines") / "llama-runtime-packs.json"  # under resources/
MAX_MANIFEST_BYTES = 4 * 2**20
_ARCHES = {"amd64": "x86_64", "x64": "x86_64", "aarch64": "arm64"}
_SYSTEMS = {"linux": "Linux", "windows": "Windows", "darwin": "macOS"}
_NAME = re.compile(r"[a-z0-9][a-z0-9.-]{0,40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
# What a manifest's words may hold: they are shown on the Engines page and in a terminal,
# so no markup, no control characters, no spaces.
_WORD = re.compile(r"[\w.+-]{0,64}", re.ASCII)
_PATH = re.compile(r"[\w.+/-]{1,200}", re.ASCII)


class PackError(Exception):
    """A pack cannot be listed, installed, rolled back or removed; ``args[0]`` is one
    sentence (a ``Phrase``) saying why, and nothing was changed."""


class PackCancelled(PackError):
    """Stopped by the caller: nothing was installed; a download's part is kept."""


@dataclass(frozen=True)
class PackFile:
    path: str  # relative, with forward slashes
    size: int
    sha256: str


@dataclass(frozen=True)
class Pack:
    """One pack for one system and processor (or, from the recipes, what it will need)."""

    name: str
    kind: str  # a runtime kind: cuda, vulkan, cpu…
    os: str  # platform.system() in lower case: linux, windows, darwin
    arch: str  # x86_64, arm64
    version: str = ""  # the Hearth release that built it
    llama_cpp_python: str = ""
    cuda: str = ""  # the CUDA toolkit it was built with
    min_cuda_driver: str = ""  # the lowest CUDA version the driver must support
    min_driver: str = ""  # the lowest NVIDIA driver
    compute_capabilities: tuple[str, ...] = ()  # kernels for these GPUs (and later minors)
    ptx: tuple[str, ...] = ()  # PTX the driver can compile for these and newer GPUs
    cpu_features: tuple[str, ...] = ()
    archive: str = ""  # its file name, beside the manifest
    archive_size: int = 0
    archive_sha256: str = ""
    files: tuple[PackFile, ...] = ()

    @property
    def installed_size(self) -> int:
        return sum(file.size for file in self.files)


@dataclass(frozen=True)
class Manifest:
    packs: tuple[Pack, ...]
    folders: tuple[str, ...] = ()  # where its archives are looked for, in order

    def offered(self, name: str) -> list[Pack]:
        return [pack for pack in self.packs if pack.name == name]


def this_platform() -> tuple[str, str]:
    """This computer as manifests name it: (``linux``, ``x86_64``)."""
    return platform.system().lower(), _arch(platform.machine())


def platform_of(facts: SystemFacts) -> tuple[str, str]:
    """The system and processor of ``facts`` (a recorded machine's, or this one's)."""
    system = facts.os.split(" ", 1)[0].lower() if facts.os else ""
    arch = _arch(facts.cpu.architecture)
    here = this_platform()
    return system or here[0], arch or here[1]


def describe(system: str, arch: str) -> str:
    return f"{_SYSTEMS.get(system, system)} ({arch})"


def _arch(machine: str) -> str:
    machine = machine.strip().lower()
    return _ARCHES.get(machine, machine)


# -- reading ---------------------------------------------------------------------------
def parse_manifest(raw: bytes, folders: tuple[str, ...] = ()) -> Manifest:
    """The packs ``raw`` lists; ``Damaged`` when it is not a manifest Hearth can trust."""
    document = parse_json(raw)
    if not isinstance(document, dict) or not isinstance(document.get("packs"), list):
        raise Damaged("it lists no packs")
    if document.get("format") != 1:
        raise Damaged(f"it is of format {document.get('format')!r}, which Hearth cannot read")
    return Manifest(tuple(_pack(item) for item in document["packs"]), folders)


def is_pack_name(name: str) -> bool:
    """Whether ``name`` can be a pack's (and so a folder's) name: lower-case letters,
    digits, dots and dashes, never starting with a dot, no separator."""
    return bool(_NAME.fullmatch(name))


def _pack(item: Any) -> Pack:
    if not isinstance(item, dict):
        raise Damaged("a pack is not an object")
    name = _text(item, "name")
    if not _NAME.fullmatch(name):
        raise Damaged(f"{name!r} is not a pack's name")
    archive = item.get("archive") or {}
    if not isinstance(archive, dict):
        raise Damaged(f"{name}: its archive is not an object")
    files = item.get("files") or []
    if not isinstance(files, list):
        raise Damaged(f"{name}: its files are not a list")
    return Pack(
        name=name,
        kind=_word(item, "kind"),
        os=_word(item, "os"),
        arch=_arch(_word(item, "arch")),
        version=_word(item, "version"),
        llama_cpp_python=_word(item, "llama_cpp_python"),
        cuda=_word(item, "cuda"),
        min_cuda_driver=_word(item, "min_cuda_driver"),
        min_driver=_word(item, "min_driver"),
        compute_capabilities=_texts(item, "compute_capabilities"),
        ptx=_texts(item, "ptx"),
        cpu_features=_texts(item, "cpu_features"),
        archive=_file_name(_text(archive, "name")) if archive else "",
        archive_size=_size(archive, "size") if archive else 0,
        archive_sha256=_sha(archive) if archive else "",
        files=tuple(_file(file, name) for file in files),
    )


def _file(item: Any, pack: str) -> PackFile:
    if not isinstance(item, dict):
        raise Damaged(f"{pack}: a file is not an object")
    path = _text(item, "path")
    parts = path.split("/")
    if not _PATH.fullmatch(path) or path.startswith("/") or ".." in parts or "" in parts:
        raise Damaged(f"{pack}: {path!r} is not a path inside a pack")
    return PackFile(path, _size(item, "size"), _sha(item))


def _file_name(name: str) -> str:
    if not name or not _WORD.fullmatch(name) or name.startswith("."):
        raise Damaged(f"{name!r} is not a file name")
    return name


def _text(item: dict[str, Any], key: str) -> str:
    value = item.get(key, "")
    if not isinstance(value, str) or len(value) > 200:
        raise Damaged(f"{key} is not a short text")
    return value.strip()


def _word(item: dict[str, Any], key: str) -> str:
    value = _text(item, key)
    if not _WORD.fullmatch(value):
        raise Damaged(f"{key} holds characters a pack's {key} cannot have")
    return value


def _texts(item: dict[str, Any], key: str) -> tuple[str, ...]:
    values = item.get(key) or []
    if not isinstance(values, list) or not all(
        isinstance(v, str) and _WORD.fullmatch(v) for v in values
    ):
        raise Damaged(f"{key} is not a list of short words")
    return tuple(values)


def _size(item: dict[str, Any], key: str) -> int:
    value = item.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Damaged(f"{key} is not a size")
    return value


def _sha(item: dict[str, Any]) -> str:
    value = _text(item, "sha256").lower()
    if not _SHA256.fullmatch(value):
        raise Damaged("sha256 is not a SHA-256")
    return value


# -- where the manifest is -------------------------------------------------------------
def manifest_sources(manifest_setting: str, resources: Path) -> list[str]:
    """Where the manifest is read from: the setting's address, file or folder, else the
    list published with this version on its release page (none for a build from a
    checkout).  Never a mirror: the manifest holds the hashes every pack is checked
    against, so it comes only from where the release (or the person) put it."""
    from app.updates import release_repository

    if manifest_setting.strip():
        return [manifest_setting.strip()]
    repository = release_repository(resources)
    if repository is None:
        return []
    return [f"https://github.com/{repository}/releases/download/v{__version__}/{MANIFEST_NAME}"]


def archive_mirrors(mirror_setting: str) -> list[str]:
    """The mirror's folder (web or local), where the packs' archives are looked for
    before the manifest's own folder; [] without one."""
    mirror = mirror_setting.strip()
    if not mirror:
        return []
    if urlsplit(mirror).scheme.lower() in ("http", "https"):
        return [mirror if mirror.endswith("/") else mirror + "/"]
    return [mirror]


def load_manifest(sources: list[str], mirrors: Sequence[str] = ()) -> Manifest:
    """The manifest from the first of ``sources`` that has one (an ``https://`` address,
    or a file or folder on this computer, a folder holding ``MANIFEST_NAME``); its
    archives are then looked for in ``mirrors``, beside the manifest, and beside the other
    sources, in that order.  A list over plain ``http://`` is refused (anyone on the way
    could change its hashes), except from this computer itself."""
    if not sources:
        raise PackError(
            Phrase(
                "This build of Hearth does not know where its runtime packs are published; "
                "set where they are listed in Settings › Engines."
            )
        )
    folders = tuple(_manifest_folder(source) for source in sources)
    reasons: list[str] = []
    for source, folder in zip(sources, folders, strict=True):
        location = _manifest_location(source)
        if not _trusted(location):
            reasons.append(
                Phrase(
                    "{0} is a plain http address; a list of packs is read only over https "
                    "or from this computer",
                    location,
                )
            )
            continue
        try:
            raw = read_small(location, MAX_MANIFEST_BYTES)
        except FetchError as exc:
            reasons.append(str(exc.args[0]))
            continue
        others = tuple(f for f in folders if f != folder)
        try:
            return parse_manifest(raw, tuple(dict.fromkeys((*mirrors, folder, *others))))
        except Damaged as exc:
            reasons.append(Phrase("the list at {0} cannot be used ({1})", location, exc))
    raise PackError(Phrase("The list of runtime packs could not be read: {0}", reasons[-1]))


def _trusted(location: str) -> bool:
    """https, a file on this computer, or http to this computer (a loopback server)."""
    parts = urlsplit(location)
    if parts.scheme.lower() != "http":
        return True
    return (parts.hostname or "") in ("127.0.0.1", "localhost", "::1")


def _manifest_location(source: str) -> str:
    if urlsplit(source).scheme.lower() in ("http", "https"):
        return source + MANIFEST_NAME if source.endswith("/") else source
    path = _local(source)
    return str(path / MANIFEST_NAME) if path.is_dir() else str(path)


def _manifest_folder(source: str) -> str:
    """The folder a source's archives are in: the manifest's own."""
    if urlsplit(source).scheme.lower() in ("http", "https"):
        return source if source.endswith("/") else source.rsplit("/", 1)[0] + "/"
    path = _local(source)
    return str(path if path.is_dir() else path.parent)


def _local(source: str) -> Path:
    path = local_path(source)
    assert path is not None, source
    return path


def archive_sources(manifest: Manifest, pack: Pack) -> list[str]:
    """Where ``pack``'s archive is fetched from, in the manifest's order of folders."""
    found = []
    for folder in manifest.folders:
        if urlsplit(folder).scheme.lower() in ("http", "https"):
            found.append(folder + pack.archive)
        else:
            found.append(str(Path(folder) / pack.archive))
    return found


# -- recipes ---------------------------------------------------------------------------
def recipes(resources: Path, system: str, arch: str) -> list[Pack]:
    """What each pack of the release will need on ``system`` and ``arch`` where it is built
    for them (else on the first system it is built for, which the fit then refuses)."""
    try:
        document = json.loads((resources / RECIPES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    found = []
    for item in document.get("packs", []):
        platforms = [tuple(p.split("-", 1)) for p in item.get("platforms", [])]
        chosen = (system, arch) if (system, arch) in platforms else platforms[0]
        found.append(
            Pack(
                name=item["name"],
                kind=item["kind"],
                os=chosen[0],
                arch=chosen[1],
                cuda=item.get("cuda", ""),
                min_cuda_driver=item.get("min_cuda_driver", ""),
                min_driver=(item.get("min_driver") or {}).get(chosen[0], ""),
                compute_capabilities=tuple(item.get("compute_capabilities", [])),
                ptx=tuple(item.get("ptx", [])),
            )
        )
    return found
