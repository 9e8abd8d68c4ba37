"""The PyTorch engine, added from inside the installed app: installed, checked, rolled
back, removed.

The installers carry no torch.  ``install`` reads the lock file for this platform and
variant (``app.packs.pytorch_lock``), fetches every wheel (resumable and verified,
``app.packs.fetch``: from the places a person named, a mirror, then PyPI or the PyTorch
index; ``app.packs.wheel_sources``) into ``engines/pytorch/downloads``, unpacks them into
a staging folder, and starts a child that imports torch, transformers and accelerate from
it and, on a GPU, runs a matrix product there (``backends/engine_probe.py``).  Only then
does the staging folder become the current one (``engine.json``), the one before it kept
for ``rollback``.  Any failure (a file that is not the lock's, no network, a full disk, a
probe that fails, a cancel) leaves the engine as it was and says why in one sentence.
Nothing updates by itself.

Where it runs: the frozen app's own interpreter, with these packages ahead of its own
(``wire.engine_overlay``); docs/RUNTIMES.md, "The PyTorch engine after install".
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.errors import HearthError
from app.files import bytes_under, private_folder
from app.packs.fetch import FetchCancelled, FetchError, Transfer, exclusive, fetch
from app.packs.pytorch_lock import (
    EngineSet,
    choose_variant,
    cuda_refusal,
    engine_set,
    macos_refusal,
    read_lock,
)
from app.packs.wheel_sources import Places
from app.packs.wheels import WheelRefused, unpack
from wire.child_process import ENGINE_PROBE, command, creation_flags
from wire.engine_overlay import (
    OVERLAY_ENV,
    PYTORCH,
    RECORD,
    SITE,
    engine_folder,
    installed_site,
    record_in,
    record_of,
)
from wire.phrases import Phrase, message_of
from wire.platforms import macos_version

log = logging.getLogger(__name__)

NO_PYTORCH = Phrase(
    "Hugging Face checkpoints run on the PyTorch engine, which is not installed. Add it in "
    "Settings › Engines, or with: hearth engines install pytorch"
)
PROBE_TIMEOUT_S = 600.0  # importing torch on a slow disk, in a frozen app, takes a while
UNPACKED_PER_DOWNLOADED = 4  # torch's wheel is a quarter of what it unpacks to
DEVICE = {"cpu": "cpu", "cuda": "cuda", "rocm": "cuda", "mps": "mps"}  # ROCm's torch says cuda
LOCK_FILE = ".pytorch.lock"  # beside the engine's folder
RUNNING = Phrase("An install of the PyTorch engine is running; cancel it first.")


@dataclass(frozen=True)
class InstallProgress:
    """How far an install is: its stage, bytes (downloading) or wheels (unpacking)."""

    stage: str  # "download", "unpack" or "check"
    done: int
    total: int
    bytes_per_s: float = 0.0
    seconds_left: float | None = None


@dataclass
class EngineRow:
    """The PyTorch engine as ``hearth engines list`` and Settings › Engines show it."""

    name: str
    installed: bool
    usable: bool
    reason: str  # why not usable, or a note
    version: str = ""
    variant: str = ""
    size: int = 0  # on disk
    built_in: bool = False  # this Python environment's own torch (a source checkout)
    offered: tuple[str, ...] = ()  # the variants this version offers here
    suggested: str = ""  # the variant Hearth would choose here
    kept: int = 0  # downloads a cancelled or failed install left, in bytes

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": "engine",
            "installed": self.installed,
            "usable": self.usable,
            "reason": self.reason,
            "version": self.version,
            "variant": self.variant,
            "size": self.size,
            "built_in": self.built_in,
            "offered": list(self.offered),
            "suggested": self.suggested,
            "kept": self.kept,
        }


class InstallCancelled(HearthError):
    """The person cancelled; what was downloaded is kept for the next try."""


def torch_here() -> bool:
    """Whether this Python environment has torch of its own (a source checkout; the frozen
    app has none), asked without importing it."""
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def status(data_dir: Path, gpus: list[Any], lock: dict[str, Any] | None = None) -> EngineRow:
    """The engine here: installed (and whether it still is), usable, what is offered."""
    try:
        lock = lock or read_lock()
    except HearthError as exc:
        return EngineRow(PYTORCH, False, False, message_of(exc))
    offered = tuple(lock.get("platforms", {}).get(_platform(), {}))
    suggested = choose_variant(lock, gpus) if offered else ""
    record = record_of(data_dir)
    folder = engine_folder(data_dir)
    if record.get("current"):
        size = bytes_under(folder)
        row = EngineRow(
            PYTORCH,
            True,
            installed_site(data_dir) is not None,
            "",
            str(record.get("versions", {}).get("torch", "")),
            str(record.get("variant", "")),
            size,
            offered=offered,
            suggested=suggested,
        )
        if not row.usable:
            row.reason = Phrase(
                "its folder is missing or damaged; install it again (hearth engines install "
                "pytorch)"
            )
        return row
    if torch_here():
        return EngineRow(
            PYTORCH,
            True,
            True,
            Phrase("the torch of this Python environment (a source checkout)"),
            built_in=True,
            offered=offered,
            suggested=suggested,
        )
    reason = (
        Phrase("not installed: Hugging Face checkpoints need it")
        if offered
        else Phrase("this version of Hearth offers none for this computer")
    )
    kept = bytes_under(folder)
    return EngineRow(PYTORCH, False, False, reason, offered=offered, suggested=suggested, kept=kept)


def install(
    data_dir: Path,
    gpus: list[Any],
    variant: str | None = None,
    places: Places | None = None,
    on_progress: Callable[[InstallProgress], None] | None = None,
    cancel: threading.Event | None = None,
    lock: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Install (or replace) the engine; its new record.  HearthError in one sentence when
    it cannot, the engine then as it was.  ``lock``: the lock file's (tests)."""
    lock = lock or read_lock()
    chosen = variant or choose_variant(lock, gpus)
    wanted = engine_set(lock, chosen)
    if chosen == "cuda" and (why := cuda_refusal(wanted.needs, gpus)):
        raise HearthError(Phrase("The CUDA PyTorch engine cannot run here: {0}.", why))
    if chosen == "mps" and (why := macos_refusal(wanted.needs, macos_version())):
        raise HearthError(
            Phrase("The PyTorch engine cannot run here: {0}. Nothing was downloaded.", why)
        )
    folder = engine_folder(data_dir)
    private_folder(folder)
    busy = Phrase("An install of the PyTorch engine is already running; wait for it to end.")
    with _one_at_a_time(data_dir, busy):
        return _install(folder, chosen, wanted, places, on_progress, cancel, gpus)


@contextlib.contextmanager
def _one_at_a_time(data_dir: Path, busy: str) -> Iterator[None]:
    """One install, rollback or removal of the engine at a time across Hearth's processes;
    the lock file is beside the engine's folder, which a removal deletes."""
    lock = engine_folder(data_dir).parent / LOCK_FILE
    lock.parent.mkdir(parents=True, exist_ok=True)
    try:
        with exclusive(lock, busy):
            yield
    except FetchError as exc:  # the lock held by another install
        raise HearthError(message_of(exc)) from exc


def _install(
    folder: Path,
    chosen: str,
    wanted: EngineSet,
    places: Places | None,
    on_progress: Callable[[InstallProgress], None] | None,
    cancel: threading.Event | None,
    gpus: list[Any],
) -> dict[str, Any]:
    for leftover in folder.glob("*.staging"):  # an install stopped by a crash
        shutil.rmtree(leftover, ignore_errors=True)
    files = _download(folder / "downloads", wanted, places or Places(), on_progress, cancel)
    name = f"{wanted.version_of('torch')}-{chosen}-{int(time.time())}"
    staging = folder / f"{name}.staging"
    try:
        _unpack_all(files, staging / SITE, on_progress, cancel)
        if on_progress is not None:
            on_progress(InstallProgress("check", 0, 1))
        probe = _probe(staging / SITE, DEVICE.get(chosen, "cpu"), wanted, gpus)
        if cancel is not None and cancel.is_set():  # the last moment a stop changes nothing
            raise InstallCancelled(Phrase("The install was cancelled; nothing was changed."))
        staging.rename(folder / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    record = _commit(folder, name, wanted, probe)
    shutil.rmtree(folder / "downloads", ignore_errors=True)  # installed: not kept twice
    return record


def _download(
    downloads: Path,
    wanted: EngineSet,
    places: Places,
    on_progress: Callable[[InstallProgress], None] | None,
    cancel: threading.Event | None,
) -> list[Path]:
    """Every wheel of the set, fetched and verified (or there from an earlier try)."""
    private_folder(downloads)
    left = sum(w.size for w in wanted.wheels if not (downloads / w.file).is_file())
    _check_room(downloads, left * (1 + UNPACKED_PER_DOWNLOADED))
    total, before = wanted.size, 0
    files = []
    for wheel in wanted.wheels:

        def progress(transfer: Transfer, before: int = before) -> None:
            if on_progress is not None:
                on_progress(
                    InstallProgress(
                        "download",
                        before + transfer.done,
                        total,
                        transfer.bytes_per_s,
                        (total - before - transfer.done) / transfer.bytes_per_s
                        if transfer.bytes_per_s
                        else None,
                    )
                )

        try:
            files.append(
                fetch(
                    places.sources(wheel),
                    downloads / wheel.file,
                    sha256=wheel.sha256,
                    size=wheel.size,
                    on_progress=progress,
                    cancel=cancel,
                )
            )
        except FetchCancelled as exc:
            raise InstallCancelled(
                Phrase("The install was cancelled; what was downloaded is kept for the next try.")
            ) from exc
        except FetchError as exc:
            raise HearthError(
                Phrase("The PyTorch engine was not installed: {0}", message_of(exc))
            ) from exc
        before += wheel.size
    return files


def _unpack_all(
    files: list[Path],
    site: Path,
    on_progress: Callable[[InstallProgress], None] | None,
    cancel: threading.Event | None,
) -> None:
    site.mkdir(parents=True, exist_ok=True)
    for number, wheel in enumerate(files):
        if cancel is not None and cancel.is_set():
            raise InstallCancelled(Phrase("The install was cancelled; nothing was changed."))
        if on_progress is not None:
            on_progress(InstallProgress("unpack", number, len(files)))
        try:
            unpack(wheel, site)
        except WheelRefused as exc:
            wheel.unlink(missing_ok=True)  # fetched again next time
            raise HearthError(
                Phrase("The PyTorch engine was not installed: {0}", message_of(exc))
            ) from exc
        except OSError as exc:
            raise HearthError(
                Phrase(
                    "The PyTorch engine was not installed: unpacking it failed ({0}); nothing "
                    "was changed. Free some disk space and try again.",
                    exc.strerror or exc,
                )
            ) from exc


def _probe(site: Path, device: str, wanted: EngineSet, gpus: list[Any]) -> dict[str, Any]:
    """Start a child on the new packages: they import, and on a GPU a product runs."""
    env = {**os.environ, OVERLAY_ENV: str(site)}
    stderr = ""
    try:
        done = subprocess.run(
            command(ENGINE_PROBE, device),
            capture_output=True,
            text=True,
            env=env,
            timeout=PROBE_TIMEOUT_S,
            check=False,
            creationflags=creation_flags(),
        )
        stderr = done.stderr
        found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as exc:
        log.warning(
            "the PyTorch engine probe failed; its last output:\n%s", stderr[-4000:], exc_info=exc
        )
        why: str = (
            Phrase("it took over {0:.0f} s", PROBE_TIMEOUT_S)
            if isinstance(exc, subprocess.TimeoutExpired)
            else Phrase("it stopped without an answer; the log has its last words")
        )
        raise HearthError(
            Phrase(
                "The PyTorch engine did not start in its check on this computer ({0}); "
                "nothing was changed.",
                why,
            )
        ) from exc
    log.info("PyTorch engine probe: %s", found)
    if found.get("error"):
        raise HearthError(
            Phrase("The PyTorch engine did not start on this computer: {0}", found["error"])
        )
    if found.get("torch", "").split("+")[0] != wanted.version_of("torch").split("+")[0]:
        raise HearthError(
            Phrase(
                "The PyTorch engine's check found torch {0} where the lock names {1}.",
                found.get("torch"),
                wanted.version_of("torch"),
            )
        )
    if device != "cpu" and not found.get("matmul"):
        why = cuda_refusal(wanted.needs, gpus) if device == "cuda" else ""
        raise HearthError(
            Phrase(
                "The PyTorch engine cannot use the GPU here: {0}.",
                why or Phrase("torch sees no {0} device", device.upper()),
            )
        )
    return found


def _commit(folder: Path, name: str, wanted: EngineSet, probe: dict[str, Any]) -> dict[str, Any]:
    """The new folder becomes the current one; the one it replaces is kept for rollback,
    older ones go."""
    old = record_in(folder)
    record = {
        "current": name,
        "previous": old.get("current") or "",
        "previous_record": {k: v for k, v in old.items() if k != "previous_record"},
        "variant": wanted.variant,
        "platform": wanted.platform,
        "versions": {w.name: w.version for w in wanted.wheels},
        "usable": True,
        "installed_at": time.time(),
        "probe": probe,
    }
    _write_record(folder, record)
    keep = {name, record["previous"], "downloads"}
    for each in folder.iterdir():
        if each.is_dir() and each.name not in keep and not each.name.endswith(".staging"):
            shutil.rmtree(each, ignore_errors=True)
    return record


def _write_record(folder: Path, record: dict[str, Any]) -> None:
    part = folder / f"{RECORD}.part"
    part.write_text(json.dumps(record, indent=1), encoding="utf-8")
    os.replace(part, folder / RECORD)


def rollback(data_dir: Path) -> dict[str, Any]:
    """The engine installed before the current one becomes current again."""
    folder = engine_folder(data_dir)
    with _one_at_a_time(data_dir, RUNNING):
        record = record_of(data_dir)
        previous = record.get("previous_record") or {}
        if not record.get("previous") or not (folder / record["previous"] / SITE).is_dir():
            raise HearthError(Phrase("There is no earlier PyTorch engine to go back to."))
        back = {
            **previous,
            "previous": record["current"],
            "previous_record": {k: v for k, v in record.items() if k != "previous_record"},
        }
        _write_record(folder, back)
    return back


def remove(data_dir: Path) -> int:
    """Remove the engine and everything it downloaded; the bytes freed."""
    folder = engine_folder(data_dir)
    if not folder.exists():
        raise HearthError(Phrase("The PyTorch engine is not installed."))
    freed = bytes_under(folder)
    try:
        with _one_at_a_time(data_dir, RUNNING):
            (folder / RECORD).unlink(missing_ok=True)  # not usable from now, whatever stays
            shutil.rmtree(folder)
    except OSError as exc:
        raise HearthError(
            Phrase(
                "The PyTorch engine could not be removed completely ({0}). Unload the models "
                "that use it (Loaded models) and try again.",
                exc.strerror or exc,
            )
        ) from exc
    return freed


def _check_room(folder: Path, needed: int) -> None:
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise HearthError(
            Phrase(
                "The PyTorch engine needs about {0:.1f} GB of free disk space here and "
                "{1:.1f} GB is free. Free some space and try again.",
                needed / 1e9,
                free / 1e9,
            )
        )


def _platform() -> str:
    from wire.platforms import wheel_platform

    return wheel_platform()
