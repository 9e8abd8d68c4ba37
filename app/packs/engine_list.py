"""Every engine and runtime Hearth can use here, and what can be done to each: one list for
``hearth engines list`` and Settings › Engines, and one function per action (install,
remove, roll back) that both call, so the command and the page never differ in what they
offer, how they install or what they say.

The rows: the llama.cpp runtimes that came with the app (``probe_system``), the runtime
packs that can be added (``runtime_packs.pack_rows``) and the PyTorch engine
(``pytorch_engine.status``).  Qt-free and blocking: the window runs these on a background
thread and hears an install's progress through the callbacks, and cancels it through the
event, as the command does with Ctrl+C.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from app.errors import HearthError
from app.machine.hardware import SystemFacts, probe_system
from app.packs import pytorch_engine
from app.packs.pytorch_engine import InstallCancelled, InstallProgress
from app.packs.pytorch_lock import choose_variant, cuda_refusal, engine_set, offered_variants
from app.paths import Paths
from app.processes import is_running
from app.settings import Settings
from wire.engine_overlay import PYTORCH, SITE, engine_folder, record_of
from wire.model_spec import TRANSFORMERS, ModelSpec
from wire.phrases import Phrase, from_wire

WORKER_END_S = 60.0  # a worker ends within its grace of 5 s once its last reply is done
ENGINE_KIND = "engine"  # the PyTorch engine's row
RUNTIME_KIND = "llama.cpp runtime"  # a runtime that came with the app
INSTALL, REINSTALL, REMOVE, ROLL_BACK = "install", "reinstall", "remove", "roll back"
DELETE_DOWNLOAD = "delete download"  # what a cancelled or failed install left
Progress = Callable[[InstallProgress], None]


class Machine(Protocol):
    """What the list and the actions need of ``app.core.Core`` (which this room may not
    import): the folders, the settings and the machine's facts."""

    @property
    def paths(self) -> Paths: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def models_dir(self) -> Path: ...
    @property
    def engine_site(self) -> Path | None: ...
    def learn_machine(self) -> None: ...
    def machine_facts(self) -> SystemFacts: ...


# -- the list --------------------------------------------------------------------------
@dataclass(frozen=True)
class Listing:
    """The rows as ``hearth engines list --json`` prints them, and what the page needs
    besides: the GPUs (for the PyTorch engine's variants) and which rows keep a previous
    version to roll back to."""

    rows: list[dict[str, Any]]
    gpus: tuple[Any, ...]
    roll_back: frozenset[str]


def gather(machine: Machine) -> Listing:
    """Every engine and runtime here (a few seconds: the engines are asked in a child)."""
    facts = probe_system(machine.models_dir, engine_site=machine.engine_site)
    rows: list[dict[str, Any]] = [_runtime_row(r) for r in facts.engines.runtimes]
    rows += _pack_rows(machine.paths.data_dir, facts)
    data_dir = machine.paths.data_dir
    rows.append(pytorch_engine.status(data_dir, list(facts.gpus)).as_json())
    kept = {str(row["name"]) for row in rows if row.get("can_roll_back")}
    if pytorch_can_roll_back(data_dir):
        kept.add(PYTORCH)
    return Listing(rows, tuple(facts.gpus), frozenset(kept))


def engine_rows(machine: Machine) -> list[dict[str, Any]]:
    """The rows of ``hearth engines list``: the runtimes, the packs, the PyTorch engine."""
    return gather(machine).rows


def _runtime_row(runtime: dict[str, Any]) -> dict[str, Any]:
    """A llama.cpp runtime that came with the app (or a source checkout's build); its
    reason a Phrase again where the probe sent its template (the page translates it)."""
    wired = runtime.get("reason_wire")
    reason = (
        from_wire(wired)
        if isinstance(wired, dict) and wired.get("template")
        else str(runtime.get("reason") or "")
    )
    return {
        "name": str(runtime.get("name", "")),
        "kind": RUNTIME_KIND,
        "installed": True,
        "usable": bool(runtime.get("usable")),
        "reason": reason,
        "version": "",
        "variant": str(runtime.get("kind", "")),
        "size": 0,
        "built_in": True,
        "selected": bool(runtime.get("selected")),
    }


def _pack_rows(data_dir: Path, facts: SystemFacts) -> list[dict[str, Any]]:
    """The llama.cpp runtime packs that can be added (CUDA), installed or not."""
    try:
        from app.packs import runtime_packs
    except ImportError:  # this edition has no packs
        return []
    return [row.as_json() for row in runtime_packs.pack_rows(facts, data_dir)]


def pytorch_can_roll_back(data_dir: Path) -> bool:
    """Whether the PyTorch engine installed before the current one is kept."""
    previous = record_of(data_dir).get("previous")
    return bool(previous) and (engine_folder(data_dir) / str(previous) / SITE).is_dir()


@dataclass(frozen=True)
class EngineEntry:
    """One row as Settings › Engines shows it: its state in words and the actions it
    offers, decided here so that the page only draws them."""

    name: str
    kind: str  # ENGINE_KIND, RUNTIME_KIND or a pack's kind ("cuda")
    installed: bool
    usable: bool
    reason: str  # why it is not usable here, or a note (a Phrase where the core wrote one)
    version: str
    variant: str
    size: int  # on disk (0: not installed, or part of the app)
    download: int  # what installing it downloads (0: not known yet)
    built_in: bool  # part of the app (or this Python environment's own torch)
    actions: tuple[str, ...]  # of INSTALL, REINSTALL, REMOVE, ROLL_BACK, DELETE_DOWNLOAD
    kept: int = 0  # a download left by a cancelled or failed install (not installed)


def page_entries(listing: Listing) -> list[EngineEntry]:
    """The rows for the page: the PyTorch engine first, then the runtimes as listed."""
    rows = sorted(listing.rows, key=lambda row: row["name"] != PYTORCH)
    return [_entry(row, row["name"] in listing.roll_back) for row in rows]


def _entry(row: dict[str, Any], can_roll_back: bool) -> EngineEntry:
    name, kind = str(row["name"]), str(row["kind"])
    reason = row.get("why_not") or row.get("reason") or ""  # a pack's, still a Phrase
    installed, built_in = bool(row["installed"]), bool(row.get("built_in"))
    actions: list[str] = []
    if name == PYTORCH:
        added = installed and not built_in  # in the data folder, not this environment's
        if row.get("offered"):
            actions.append(REINSTALL if added else INSTALL)
        if added and not row["usable"]:
            reason = Phrase("its folder is missing or damaged; reinstall it")
        elif not installed and row.get("offered"):  # "not installed" is the row's state
            reason = Phrase("Hugging Face checkpoints need it")
        size, download = int(row.get("size") or 0), 0
    elif kind == RUNTIME_KIND:
        added, size, download = False, 0, 0  # part of the app: nothing to do
    else:  # a runtime pack
        added = installed
        size = int(row.get("installed_size") or 0)
        download = 0 if installed else int(row.get("size") or 0)
        if installed:
            actions.append(REINSTALL)
        elif row["usable"]:
            actions.append(INSTALL)
    if added:
        actions.append(REMOVE)
    if added and can_roll_back:
        actions.append(ROLL_BACK)
    kept = 0 if added or built_in else int(row.get("kept") or 0)
    if kept:
        actions.append(DELETE_DOWNLOAD)
    return EngineEntry(
        name,
        kind,
        installed,
        bool(row["usable"]),
        reason,
        str(row.get("version") or ""),
        str(row.get("variant") or ""),
        size,
        download,
        built_in,
        tuple(actions),
        kept,
    )


@dataclass(frozen=True)
class VariantChoice:
    """One build of the PyTorch engine this version offers here."""

    name: str  # cpu, cuda, rocm, mps
    download: int
    refusal: str  # why it cannot run on this computer ("" when it can)
    suggested: bool  # the one Hearth would choose


def variant_choices(gpus: Sequence[Any], lock: dict[str, Any] | None = None) -> list[VariantChoice]:
    """The PyTorch engine's variants for this platform, the suggested one marked and each
    that cannot run here with its reason (a CUDA build the driver is too old for)."""
    from app.packs.pytorch_lock import read_lock

    lock = lock or read_lock()
    offered = offered_variants(lock)
    suggested = choose_variant(lock, list(gpus)) if offered else ""
    choices = []
    for variant in offered:
        wanted = engine_set(lock, variant)
        refusal = cuda_refusal(wanted.needs, list(gpus)) if variant == "cuda" else ""
        choices.append(VariantChoice(variant, wanted.size, refusal, variant == suggested))
    return choices


# -- the actions -----------------------------------------------------------------------
def install(
    machine: Machine,
    name: str,
    *,
    variant: str | None = None,
    find_links: Sequence[str] = (),
    index_url: str = "",
    on_progress: Progress | None = None,
    on_stage: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
) -> Phrase:
    """Install the PyTorch engine or a runtime pack; the sentence that says it is done.
    HearthError in one sentence when it was not (nothing changed), InstallCancelled when
    ``cancel`` was set (what was downloaded is kept)."""
    cancel = cancel or threading.Event()
    if name == PYTORCH:
        return _install_pytorch(machine, variant, find_links, index_url, on_progress, cancel)
    return _install_pack(machine, name, find_links, on_progress, on_stage, cancel)


def _install_pytorch(
    machine: Machine,
    variant: str | None,
    find_links: Sequence[str],
    index_url: str,
    on_progress: Progress | None,
    cancel: threading.Event,
) -> Phrase:
    from app.packs.wheel_sources import Places

    places = Places(
        find_links=list(find_links),
        index_url=index_url,
        pypi_mirror=str(machine.settings.get("engine.pypi_mirror")),
        pytorch_mirror=str(machine.settings.get("engine.pytorch_mirror")),
    )
    machine.learn_machine()
    gpus = list(machine.machine_facts().gpus)
    record = pytorch_engine.install(
        machine.paths.data_dir, gpus, variant, places, on_progress, cancel
    )
    return Phrase(
        "Installed the PyTorch engine: torch {0} ({1}), checked on this computer.",
        _torch(record),
        record["variant"],
    )


def _install_pack(
    machine: Machine,
    name: str,
    find_links: Sequence[str],
    on_progress: Progress | None,
    on_stage: Callable[[str], None] | None,
    cancel: threading.Event,
) -> Phrase:
    from app.packs import runtime_packs
    from app.packs.pack_manifest import PackCancelled, PackError, load_manifest

    def progress(transfer: Any) -> None:
        if on_progress is not None:
            on_progress(
                InstallProgress(
                    "download",
                    transfer.done,
                    transfer.total,
                    transfer.bytes_per_s,
                    transfer.seconds_left,
                )
            )

    try:
        manifest = (
            load_manifest(list(find_links))
            if find_links
            else runtime_packs.settings_manifest(machine.settings)
        )
        machine.learn_machine()
        folder = runtime_packs.install_pack(
            name,
            machine.paths.data_dir,
            machine.machine_facts(),
            manifest,
            on_progress=progress,
            on_stage=on_stage,
            cancel=cancel,
        )
    except PackCancelled as exc:
        raise InstallCancelled(exc.args[0]) from exc
    except PackError as exc:
        raise HearthError(exc.args[0]) from exc
    return Phrase("Installed the {0} runtime in {1}, checked on this computer.", name, folder)


def remove(machine: Machine, name: str) -> Phrase:
    """Remove an engine or runtime pack and free its disk; the sentence that says so."""
    data_dir = machine.paths.data_dir
    if name == PYTORCH:
        installed = bool(record_of(data_dir).get("current"))
        freed = pytorch_engine.remove(data_dir)
        if not installed:
            return Phrase("Deleted the PyTorch engine's download ({0:.2f} GB freed).", freed / 1e9)
        return Phrase("Removed the PyTorch engine ({0:.2f} GB freed).", freed / 1e9)
    from app.packs import runtime_packs
    from app.packs.pack_manifest import PackError

    try:
        installed = runtime_packs.is_installed(name, data_dir)
        freed = runtime_packs.remove_pack(name, data_dir)
    except PackError as exc:
        raise HearthError(exc.args[0]) from exc
    if not installed:
        return Phrase("Deleted the {0} pack's download ({1:.2f} GB freed).", name, freed / 1e9)
    return Phrase("Removed the {0} runtime ({1:.2f} GB freed).", name, freed / 1e9)


def roll_back(machine: Machine, name: str) -> Phrase:
    """Go back to the version installed before; the sentence that says which."""
    data_dir = machine.paths.data_dir
    if name == PYTORCH:
        record = pytorch_engine.rollback(data_dir)
        return Phrase("The PyTorch engine is torch {0} again.", _torch(record))
    from app.packs import runtime_packs
    from app.packs.pack_manifest import PackError

    try:
        runtime_packs.rollback_pack(name, data_dir)
    except PackError as exc:
        raise HearthError(exc.args[0]) from exc
    return Phrase("The {0} runtime is the one installed before again.", name)


def _torch(record: dict[str, Any]) -> str:
    return str(record.get("versions", {}).get("torch", "?"))


def wait_ended(pids: list[int], within_s: float = WORKER_END_S) -> None:
    """Wait for the workers of the models unloaded before a removal to end (their files
    are open until then: Windows refuses to delete them); HearthError when one is still
    running after ``within_s``."""
    # Polled, never waited on: the host reaps its children.
    deadline = time.monotonic() + within_s
    while (alive := [pid for pid in pids if is_running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    if alive:
        raise HearthError(
            Phrase(
                "A model that uses it is still being unloaded after {0:.0f} s; nothing was "
                "removed. Try again in a moment.",
                within_s,
            )
        )


def uses(name: str, spec: ModelSpec, runtime: str) -> bool:
    """Whether a loaded model (its spec, the llama.cpp runtime its worker runs) uses the
    engine or runtime pack ``name``: it must be unloaded before that is removed."""
    if name == PYTORCH:
        return spec.engine == TRANSFORMERS and bool(spec.engine_path)
    return name in (runtime, spec.runtime)


# -- progress in words -----------------------------------------------------------------
def progress_line(progress: InstallProgress) -> Phrase:
    """An install's progress as the command's line and the page's label say it:
    "Downloading 40 of 252 MB, 8.5 MB/s, 25 s left", "Unpacking 21 of 42", "Checking
    that it runs on this computer"."""
    if progress.stage == "download":
        done, total = progress.done / 1e6, progress.total / 1e6
        speed, left = progress.bytes_per_s / 1e6, progress.seconds_left
        if progress.bytes_per_s and left is not None:
            return Phrase(
                "Downloading {0:,.0f} of {1:,.0f} MB, {2:.1f} MB/s, {3} left",
                done,
                total,
                speed,
                duration(left),
            )
        if progress.bytes_per_s:
            return Phrase("Downloading {0:,.0f} of {1:,.0f} MB, {2:.1f} MB/s", done, total, speed)
        if left is not None:
            return Phrase(
                "Downloading {0:,.0f} of {1:,.0f} MB, {2} left", done, total, duration(left)
            )
        return Phrase("Downloading {0:,.0f} of {1:,.0f} MB", done, total)
    if progress.stage == "unpack":
        return Phrase("Unpacking {0} of {1}", progress.done + 1, progress.total)
    return Phrase("Checking that it runs on this computer")


def duration(seconds: float) -> Phrase:
    """A time left: "25 s", "1 min 35 s"."""
    whole = max(0, int(seconds))
    if whole >= 60:
        return Phrase("{0} min {1:02d} s", whole // 60, whole % 60)
    return Phrase("{0} s", whole)
