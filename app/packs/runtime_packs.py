"""llama.cpp runtime packs (CUDA 12, CUDA 13): listed, installed, rolled back and removed,
for the ``hearth engines`` command and the Engines page.  Qt-free and blocking: the caller
runs them off the UI thread.

Where they live: the data folder's ``runtimes/`` (where ``backends/runtimes.py`` finds
runtimes), a pack in ``runtimes/<name>/`` like any runtime folder; beside them
``runtimes/.packs/`` holds what is not a runtime: the state (``packs.json``), each pack's
previous version (``<name>.previous``, for rollback), the staging folder of an install
and the downloads.  An install:

1. refuses, before any download, a pack the manifest does not offer for this system and
   processor, one built for another llama-cpp-python, and one that does not fit this
   machine (``pack_fit``: the driver, the GPUs) unless forced;
2. downloads the archive (``fetch``: resumable, verified, from the mirror first);
3. unpacks it into ``.packs/<name>.staging`` checking every file (``pack_archive``);
4. probes the staging folder in a child (``wire.runtime_check``, the same judgement the
   worker applies): its libraries load, it was built for this llama-cpp-python, it sees
   a GPU of its kind;
5. only then makes it current: the current one becomes ``<name>.previous`` (the one before
   that is removed) and the staging folder becomes ``runtimes/<name>``.

A failure at any step leaves what was there as it was and says why in one sentence.  One
install, rollback or removal at a time, across Hearth's processes.  Nothing updates by
itself.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from app.files import bytes_under
from app.json_document import Damaged, JsonDocument
from app.machine.hardware import SystemFacts
from app.packs import pack_fit
from app.packs.fetch import FetchCancelled, FetchError, Transfer, amount, exclusive, fetch
from app.packs.pack_archive import unpack_verified
from app.packs.pack_manifest import (
    Manifest,
    Pack,
    PackCancelled,
    PackError,
    archive_mirrors,
    archive_sources,
    describe,
    is_pack_name,
    load_manifest,
    manifest_sources,
    platform_of,
    recipes,
)
from app.settings import Settings
from wire import runtime_check
from wire.phrases import Phrase

RUNTIMES = "runtimes"
AFFAIRS = ".packs"  # under runtimes/: no runtime.json, so never taken for a runtime
STATE_FILE = "packs.json"
RUNTIME_FILE = "runtime.json"
TRASH = "trash"  # under .packs/: what a removal moved aside, deleted once it is out of use
ARCHIVE_PREFIX = "hearth-runtime-"  # a pack's archive: hearth-runtime-NAME-SYSTEM-ARCH-….zip
UNPACK_MARGIN = 64 * 2**20
# Test hook: the llama-cpp-python version this Hearth has, instead of the installed one's.
LLAMA_VERSION_ENV = "HEARTH_TEST_LLAMA_VERSION"

AVAILABLE, INSTALLED, MISSING = "available", "installed", "missing"


@dataclass(frozen=True)
class PackRow:
    """One pack as the Engines page and ``hearth engines list`` show it."""

    name: str
    kind: str
    state: str  # AVAILABLE, INSTALLED or MISSING (its folder was removed by hand)
    installed_version: str  # the llama-cpp-python version of the installed pack, or ""
    installed_release: str  # the Hearth release that published it, or ""
    usable: bool  # it fits this machine (and, installed, its folder is there)
    why_not: str  # a sentence when not usable, "" when it is
    size: int  # the download, in bytes (0: not known until the list is read)
    installed_size: int  # on disk now, the previous version included
    source: str  # where the installed pack came from
    cuda: str  # the CUDA version it was built with ("" for other kinds)
    recommended: bool  # the one to offer this machine
    can_roll_back: bool  # a previous version is kept
    kept: int = 0  # a download of it left by a cancelled or failed install, in bytes

    def as_json(self) -> dict[str, Any]:
        """The row for ``hearth engines list --json``, with the keys every engine's row has
        (``installed``, ``reason``, ``version``)."""
        return {
            **asdict(self),
            "installed": self.state != AVAILABLE,
            "reason": str(self.why_not),
            "version": self.installed_version,
        }


def runtimes_dir(data_dir: Path) -> Path:
    return data_dir / RUNTIMES


def _affairs(data_dir: Path) -> Path:
    return runtimes_dir(data_dir) / AFFAIRS


def llama_version() -> str:
    """The llama-cpp-python this Hearth carries (a pack must be built for exactly it)."""
    forced = os.environ.get(LLAMA_VERSION_ENV)
    if forced:
        return forced
    try:
        return version("llama_cpp_python")
    except PackageNotFoundError:
        return ""


# -- the state -------------------------------------------------------------------------
def _document(data_dir: Path) -> JsonDocument:
    return JsonDocument(_affairs(data_dir) / STATE_FILE, Phrase("list of runtime packs"))


def _state(data_dir: Path) -> dict[str, dict[str, Any]]:
    """{name: {"current": record, "previous": record | None}}; a record is what the
    manifest said of the installed pack, with where it came from."""

    def check(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
        packs = document.get("packs", {})
        if not isinstance(packs, dict) or not all(isinstance(v, dict) for v in packs.values()):
            raise Damaged("not a list of packs")
        return packs

    return _document(data_dir).load(check) or {}


def _save(data_dir: Path, state: dict[str, dict[str, Any]]) -> None:
    _document(data_dir).save({"packs": state})


def _record(pack: Pack, source: str) -> dict[str, Any]:
    return {
        "version": pack.version,
        "llama_cpp_python": pack.llama_cpp_python,
        "kind": pack.kind,
        "cuda": pack.cuda,
        "size": pack.installed_size,
        "source": source,
        "installed_at": time.time(),
    }


# -- listing ---------------------------------------------------------------------------
def pack_rows(
    facts: SystemFacts,
    data_dir: Path,
    manifest: Manifest | None = None,
    resources: Path | None = None,
) -> list[PackRow]:
    """Every pack Hearth knows of, installed or not: those the release builds (from the
    recipes in ``resources``, without asking the network), those ``manifest`` offers
    (``load_manifest``, once the person asked), those installed."""
    if resources is None:
        from app.paths import resources_dir

        resources = resources_dir()
    system, arch = platform_of(facts)
    offered: dict[str, Pack] = {pack.name: pack for pack in recipes(resources, system, arch)}
    listed = manifest.packs if manifest is not None else ()
    for pack in sorted(listed, key=lambda p: _here(p, facts)):  # this machine's win
        if _here(pack, facts) or pack.name not in offered:
            offered[pack.name] = pack
    state = _state(data_dir)
    best = pack_fit.best(list(offered.values()), facts)
    return [
        _row(offered.get(name), name, state.get(name), facts, data_dir, best)
        for name in sorted(set(offered) | set(state))
    ]


def _here(pack: Pack, facts: SystemFacts) -> bool:
    return (pack.os, pack.arch) == platform_of(facts)


def _row(
    pack: Pack | None,
    name: str,
    record: dict[str, Any] | None,
    facts: SystemFacts,
    data_dir: Path,
    best: str,
) -> PackRow:
    current = (record or {}).get("current") or {}
    why = pack_fit.why_not(pack, facts) if pack is not None else ""
    state = AVAILABLE
    if current:
        state = INSTALLED if _is_runtime(runtimes_dir(data_dir) / name) else MISSING
        if state == MISSING:
            why = Phrase("its folder was removed; install it again")
    return PackRow(
        name=name,
        kind=pack.kind if pack is not None else str(current.get("kind", "")),
        state=state,
        installed_version=str(current.get("llama_cpp_python", "")),
        installed_release=str(current.get("version", "")),
        usable=not why,
        why_not=why,
        size=pack.archive_size if pack is not None else 0,
        installed_size=bytes_under(runtimes_dir(data_dir) / name)
        + bytes_under(_affairs(data_dir) / f"{name}.previous"),
        source=str(current.get("source", "")),
        cuda=pack.cuda if pack is not None else str(current.get("cuda", "")),
        recommended=name == best,
        can_roll_back=bool((record or {}).get("previous"))
        and _is_runtime(_affairs(data_dir) / f"{name}.previous"),
        kept=sum(map(bytes_under, _downloads(data_dir, name))),
    )


def _downloads(data_dir: Path, name: str) -> list[Path]:
    """What an install of ``name`` left in the downloads folder (a part, or an archive)."""
    return list((_affairs(data_dir) / "downloads").glob(f"{ARCHIVE_PREFIX}{name}-*"))


def is_installed(name: str, data_dir: Path) -> bool:
    """Whether Hearth installed ``name`` (its folder may since have been removed by hand)."""
    return name in _state(data_dir)


def _is_runtime(folder: Path) -> bool:
    return (folder / RUNTIME_FILE).is_file()


def settings_manifest(settings: Settings, resources: Path | None = None) -> Manifest:
    """The manifest from where the settings say (the list's address, or this version's
    release page), its packs looked for on the mirror first: one request, to make when
    the person asks."""
    if resources is None:
        from app.paths import resources_dir

        resources = resources_dir()
    return load_manifest(
        manifest_sources(str(settings.get("engine.packs_manifest")), resources),
        archive_mirrors(str(settings.get("engine.packs_mirror"))),
    )


# -- installing ------------------------------------------------------------------------
def install_pack(
    name: str,
    data_dir: Path,
    facts: SystemFacts,
    manifest: Manifest,
    *,
    on_progress: Callable[[Transfer], None] | None = None,
    on_stage: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
    force: bool = False,
) -> Path:
    """Install ``name`` from ``manifest`` (``load_manifest``) and make it current; its
    folder.  PackError (one sentence; nothing changed) or PackCancelled."""
    cancel = cancel or threading.Event()
    stage = on_stage or (lambda _: None)
    pack = _choose(name, manifest, facts, force)
    affairs = _affairs(data_dir)
    affairs.mkdir(parents=True, exist_ok=True)
    with _one_at_a_time(data_dir):
        staging = affairs / f"{name}.staging"
        shutil.rmtree(staging, ignore_errors=True)  # an install stopped by a crash
        _empty_trash(data_dir)
        _check_room(affairs, pack)
        stage(Phrase("Downloading the {0} pack ({1})", name, amount(pack.archive_size)))
        archive = _download(pack, manifest, affairs / "downloads", on_progress, cancel)
        stage(Phrase("Checking every file of the {0} pack", name))
        unpack_verified(archive, pack, staging, cancel)
        try:
            stage(Phrase("Checking that the {0} pack runs here", name))
            _probe(pack, staging)
            if cancel.is_set():  # the last moment a stop leaves everything as it was
                raise PackCancelled(Phrase("The installation of {0} was cancelled.", name))
            folder = _make_current(data_dir, name, staging)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        state = _state(data_dir)
        before = state.get(name, {}).get("current")
        state[name] = {"current": _record(pack, manifest.folders[0]), "previous": before}
        _save(data_dir, state)
        archive.unlink(missing_ok=True)
    return folder


def _choose(name: str, manifest: Manifest, facts: SystemFacts, force: bool) -> Pack:
    """The manifest's pack ``name`` for this machine, or why not, before any download."""
    offered = manifest.offered(name)
    if not offered:
        raise PackError(Phrase("The list of runtime packs offers none called {0}.", name))
    system, arch = platform_of(facts)
    pack = next((p for p in offered if (p.os, p.arch) == (system, arch)), None)
    if pack is None:
        raise PackError(
            Phrase(
                "The {0} pack is built for {1}, not for this computer ({2}); nothing was "
                "downloaded.",
                name,
                ", ".join(describe(p.os, p.arch) for p in offered),
                describe(system, arch),
            )
        )
    ours = llama_version()
    if pack.llama_cpp_python != ours:
        raise PackError(
            Phrase(
                "The {0} pack is built for llama-cpp-python {1}, but this Hearth has {2}; "
                "nothing was downloaded.",
                name,
                pack.llama_cpp_python or "?",
                ours or "none",
            )
        )
    if not pack.archive or not pack.files:
        raise PackError(Phrase("The list names no files for the {0} pack.", name))
    why = pack_fit.why_not(pack, facts)
    if why and not force:
        raise PackError(
            Phrase("The {0} pack cannot run here: {1}. Nothing was downloaded.", name, why)
        )
    return pack


@contextlib.contextmanager
def _one_at_a_time(data_dir: Path) -> Any:
    busy = Phrase(
        "Another runtime pack is being installed or removed; try again when it has finished."
    )
    try:
        with exclusive(_affairs(data_dir) / "busy.lock", busy):
            yield
    except FetchCancelled as exc:
        raise PackCancelled(exc.args[0]) from None
    except FetchError as exc:
        raise PackError(exc.args[0]) from None


def _download(
    pack: Pack,
    manifest: Manifest,
    folder: Path,
    on_progress: Callable[[Transfer], None] | None,
    cancel: threading.Event,
) -> Path:
    return fetch(
        archive_sources(manifest, pack),
        folder / pack.archive,
        sha256=pack.archive_sha256,
        size=pack.archive_size,
        on_progress=on_progress,
        cancel=cancel,
    )


def _check_room(folder: Path, pack: Pack) -> None:
    """Room for the archive and its files at once (the archive goes once it is unpacked)."""
    needed = pack.archive_size + pack.installed_size + UNPACK_MARGIN
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise PackError(
            Phrase(
                "There is not enough free disk space for the {0} pack: it needs {1} in {2}, "
                "where {3} are free; nothing was downloaded.",
                pack.name,
                amount(needed),
                folder,
                amount(free),
            )
        )


def _probe(pack: Pack, staging: Path) -> None:
    """The pack's own runtime.json must name it, and its libraries must pass the probe."""
    label = _label(staging)
    if (label.get("name"), label.get("kind"), label.get("llama_cpp_python")) != (
        pack.name,
        pack.kind,
        pack.llama_cpp_python,
    ):
        raise PackError(
            Phrase(
                "The {0} pack does not describe itself as its list does; nothing was installed.",
                pack.name,
            )
        )
    facts = runtime_check.probe(str(staging))
    usable, reason = runtime_check.judge(pack.kind, pack.llama_cpp_python, facts, llama_version())
    if not usable:
        raise PackError(
            Phrase(
                "The {0} pack did not pass its check ({1}); what was installed before is kept.",
                pack.name,
                reason,
            )
        )


def _label(folder: Path) -> dict[str, Any]:
    import json

    try:
        label = json.loads((folder / RUNTIME_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return label if isinstance(label, dict) else {}


def _make_current(data_dir: Path, name: str, staging: Path) -> Path:
    """``staging`` becomes ``runtimes/<name>``; the current one becomes the previous."""
    current = runtimes_dir(data_dir) / name
    _move_in(name, staging, current, _affairs(data_dir) / f"{name}.previous")
    return current


def _move_in(name: str, incoming: Path, current: Path, keep: Path) -> None:
    """``incoming`` becomes ``current``, and what was current becomes ``keep`` (in place of
    what was there); on a failure the current one is put back (a folder in use on Windows
    cannot be moved)."""
    aside = keep.with_name(f"{name}.swap")
    shutil.rmtree(aside, ignore_errors=True)
    try:
        if current.exists():
            os.replace(current, aside)
        os.replace(incoming, current)
        if aside.exists():
            shutil.rmtree(keep, ignore_errors=True)
            os.replace(aside, keep)
    except OSError as exc:
        if aside.exists() and not current.exists():
            with contextlib.suppress(OSError):
                os.replace(aside, current)
        raise _in_use(name, exc) from exc


def _in_use(name: str, exc: OSError) -> PackError:
    return PackError(
        Phrase(
            "The {0} runtime's folder could not be changed ({1}); stop the models that use "
            "it and try again. Nothing was changed.",
            name,
            exc.strerror or exc,
        )
    )


# -- rolling back, removing ------------------------------------------------------------
def _known(name: str, data_dir: Path) -> None:
    """Refuse a name that is not a pack's, before any path is made of it: a rollback or a
    removal only touches a pack Hearth installed (or a runtime folder that names itself so)."""
    if not is_pack_name(name):
        raise PackError(Phrase("{0} is not the name of a runtime pack.", name))


def rollback_pack(name: str, data_dir: Path) -> Path:
    """The previous version of ``name`` made current again (the current one is kept as
    the previous, so a second rollback undoes the first); its folder."""
    _known(name, data_dir)
    with _one_at_a_time(data_dir):
        state = _state(data_dir)
        record = state.get(name) or {}
        previous = _affairs(data_dir) / f"{name}.previous"
        if not record.get("previous") or not _is_runtime(previous):
            raise PackError(Phrase("There is no earlier {0} pack to go back to.", name))
        current = runtimes_dir(data_dir) / name
        _move_in(name, previous, current, previous)
        state[name] = {"current": record["previous"], "previous": record.get("current")}
        _save(data_dir, state)
    return current


def remove_pack(name: str, data_dir: Path) -> int:
    """``name`` removed with its previous version and any download of it; the bytes freed.
    A pack that is not installed is said so.  Its folders are first moved aside into the
    trash (a folder in use on Windows cannot be moved: then nothing was changed), the list
    is saved without it, and only then is the trash deleted."""
    _known(name, data_dir)
    with _one_at_a_time(data_dir):
        _empty_trash(data_dir)
        state = _state(data_dir)
        affairs = _affairs(data_dir)
        current = runtimes_dir(data_dir) / name
        ours = name in state or _label(current).get("name") == name
        folders = [
            *([current] if ours else []),
            affairs / f"{name}.previous",
            affairs / f"{name}.staging",
            *_downloads(data_dir, name),
        ]
        present = [f for f in folders if f.exists() or f.is_symlink()]
        if not ours and not present:
            raise PackError(Phrase("No runtime pack called {0} is installed.", name))
        freed = sum(bytes_under(f) for f in present)
        trash = affairs / TRASH / f"{name}-{os.getpid()}-{time.monotonic_ns()}"
        trash.mkdir(parents=True)
        moved: list[tuple[Path, Path]] = []
        try:
            for number, path in enumerate(present):
                aside = trash / str(number)
                os.replace(path, aside)
                moved.append((aside, path))
        except OSError as exc:
            for aside, path in reversed(moved):
                with contextlib.suppress(OSError):
                    os.replace(aside, path)
            raise _in_use(name, exc) from exc
        state.pop(name, None)
        _save(data_dir, state)
        _empty_trash(data_dir)
    return freed


def _empty_trash(data_dir: Path) -> None:
    """Delete what removals moved aside (what cannot go yet goes at the next one)."""
    trash = _affairs(data_dir) / TRASH
    if trash.is_dir() and not trash.is_symlink():
        for item in trash.iterdir():
            if item.is_dir() and not item.is_symlink():
                shutil.rmtree(item, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    item.unlink()
