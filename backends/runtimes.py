"""The llama.cpp runtimes a worker can run GGUF models on, and the choice among them.

A runtime is one build of llama.cpp's libraries (CPU, Vulkan, CUDA, Metal) for the one
llama-cpp-python that Hearth installs: a folder holding the build's shared libraries and a
``runtime.json`` (``{"name", "kind", "llama_cpp_python"}``).  The worker points
llama-cpp-python at the chosen folder (``LLAMA_CPP_LIB_PATH``) before it imports it, so
one Python package drives every build; the built-in runtime is the build installed with
the package itself (docs/RUNTIMES.md says why this design and what each build costs).

Runtimes are found in ``HEARTH_RUNTIMES_DIR`` (folders separated like PATH; when set,
only there), else in the frozen app's ``runtimes/`` folder, in a source checkout's
``.cache/runtimes`` (``make runtimes``) and in the data folder's ``runtimes/`` (optional
parts a user adds).  Each is
asked what it can do in a subprocess of its own (``backends.runtime_probe``): a build that
cannot load (no driver, no Vulkan loader, too old a driver) is reported with the reason and
skipped, never loaded into the worker.  This module never imports llama_cpp.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from backends.engine import EngineError
from wire import cpu_features, protocol, runtime_check
from wire.model_spec import BUILT_IN_RUNTIME
from wire.phrases import Phrase, to_wire
from wire.platforms import illegal_instruction
from wire.runtime_check import GPU_KINDS, LIB_PATH_ENV, PROBE_TIMEOUT_S

RUNTIME_FILE = "runtime.json"
RUNTIMES_ENV = "HEARTH_RUNTIMES_DIR"
DATA_DIR_ENV = "HEARTH_DATA_DIR"
# Set for the worker's llama.cpp engine: which runtime it runs on (for the stats line).
RUNTIME_ENV = "HEARTH_LLAMA_RUNTIME"
BUILT_IN = BUILT_IN_RUNTIME
# Preferred first, when the model is to use a GPU.
KINDS = ("cuda", "metal", "vulkan", "cpu")
# Fault injection for tests (what a GPU out of memory or a driver crash looks like):
# "NAME" makes loading a model on runtime NAME fail, "NAME:crash" ends the worker there,
# "NAME:sigill" ends it as a build for another processor does (an illegal instruction),
# "NAME:sigill-reply" the same when a reply starts (the model loaded, nothing written yet),
# "NAME:sigill-delta" once the reply's first words were sent, "NAME:crash-reply" ends it
# otherwise when a reply starts.
FAIL_LOAD_ENV = "HEARTH_FAIL_LOAD_ON_RUNTIME"


@dataclass(frozen=True)
class Runtime:
    name: str
    kind: str
    path: str = ""  # the folder of its libraries; "" for the one installed with llama_cpp
    version: str = ""  # the llama-cpp-python version it was built for
    # The CPU instruction sets the build needs (runtime.json's "cpu_features"): an AVX-512
    # build is never loaded on a CPU without AVX-512.
    cpu_features: tuple[str, ...] = ()


@dataclass
class RuntimeStatus:
    """One runtime as ``hearth sysinfo --json`` and the System check show it."""

    name: str
    kind: str
    usable: bool
    reason: str
    selected: bool = False
    path: str = ""
    devices: list[dict[str, Any]] = field(default_factory=list)
    # The reason's template and values (wire.phrases.to_wire): the window translates it.
    reason_wire: dict[str, Any] = field(default_factory=dict)


class RuntimeUnavailable(Exception):
    """The runtime a user forced cannot run here (the message says why)."""


def roots() -> list[Path]:
    """Where runtime folders are looked for, first found wins for a name.
    ``HEARTH_RUNTIMES_DIR``, when set, is the only place looked at."""
    chosen = [Path(entry) for entry in os.environ.get(RUNTIMES_ENV, "").split(os.pathsep) if entry]
    if chosen:
        return chosen
    found: list[Path] = []
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        found.append(Path(bundle) / "runtimes")
    found.append(Path(__file__).resolve().parents[1] / ".cache" / "runtimes")
    data_dir = os.environ.get(DATA_DIR_ENV)
    if data_dir:
        found.append(Path(data_dir) / "runtimes")
    return found


def _read_runtime(folder: Path) -> Runtime | None:
    try:
        data = json.loads((folder / RUNTIME_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    name, kind = str(data.get("name") or folder.name), str(data.get("kind") or "")
    if kind not in KINDS or name == BUILT_IN:
        return None
    features = data.get("cpu_features") or []
    if not isinstance(features, list):
        return None
    version = str(data.get("llama_cpp_python") or "")
    return Runtime(name, kind, str(folder), version, tuple(str(f) for f in features))


def discover() -> list[Runtime]:
    """Every runtime, preferred first: GPU kinds before CPU, among CPU builds the one that
    needs the most instruction sets (AVX-512 before AVX2); the built-in one last."""
    found: dict[str, Runtime] = {}
    for root in roots():
        try:
            folders = sorted(p for p in root.iterdir() if p.is_dir())
        except OSError:
            continue
        for folder in folders:
            runtime = _read_runtime(folder)
            if runtime is not None and runtime.name not in found:
                found[runtime.name] = runtime
    ordered = sorted(
        found.values(), key=lambda r: (KINDS.index(r.kind), -len(r.cpu_features), r.name)
    )
    return [*ordered, Runtime(BUILT_IN, "cpu")]


def probe(runtime: Runtime, timeout: float = PROBE_TIMEOUT_S) -> dict[str, Any]:
    """What ``runtime`` says about itself, from a subprocess; ``{"error": …}`` if it fails."""
    return runtime_check.probe(runtime.path, timeout)


def judge(runtime: Runtime, facts: dict[str, Any], version: str) -> tuple[bool, str]:
    """Can ``runtime`` run models here, and if not, why (a sentence)."""
    return runtime_check.judge(runtime.kind, runtime.version, facts, version)


def assess(runtime: Runtime, version: str) -> tuple[bool, str, dict[str, Any]]:
    """Whether ``runtime`` can run here, why, and what its probe said.  A build that needs
    instructions this CPU lacks is not even probed (it could stop its probe with SIGILL)."""
    lacking = cpu_features.missing(runtime.cpu_features)
    if lacking:
        return False, lacking, {}
    facts = probe(runtime)
    usable, reason = judge(runtime, facts, version)
    return usable, reason, facts


def survey(wants_gpu: bool = True) -> list[RuntimeStatus]:
    """Every runtime probed, with the one a model would use now marked ``selected``."""
    runtimes = discover()
    built_in = probe(runtimes[-1])
    version = str(built_in.get("version") or "")
    statuses = []
    for runtime in runtimes:
        if runtime.name == BUILT_IN:
            facts = built_in
            usable, reason = judge(runtime, facts, version)
        else:
            usable, reason, facts = assess(runtime, version)
        statuses.append(
            RuntimeStatus(
                runtime.name,
                runtime.kind,
                usable,
                reason,
                path=runtime.path,
                devices=list(facts.get("devices") or []),
                reason_wire=to_wire(reason),
            )
        )
    best = next((s for s in statuses if s.usable and (wants_gpu or s.kind == "cpu")), None)
    if best is not None:
        best.selected = True
    return statuses


def choose(
    requested: str, wants_gpu: bool, skip: tuple[str, ...] = ()
) -> tuple[Runtime, list[tuple[str, str]]]:
    """The runtime for a worker: ``requested`` by name (RuntimeUnavailable if it cannot
    run here), or the best usable one.  Also returns notes for the user on runtimes that
    were skipped.  Only runtimes that might be chosen are probed; the built-in one never is
    (the worker imports it anyway).  The notes are (runtime, reason) pairs.  ``skip``:
    runtimes that already failed to load this model (the engine client retries without)."""
    runtimes = [r for r in discover() if r.name not in skip or r.name == BUILT_IN]
    by_name = {r.name: r for r in runtimes}
    if requested:
        runtime = by_name.get(requested)
        if runtime is None:
            known = ", ".join(by_name)
            raise RuntimeUnavailable(f"there is no runtime called {requested!r} (known: {known})")
        if runtime.name != BUILT_IN:
            usable, reason, _ = assess(runtime, _installed_version())
            if not usable:
                raise RuntimeUnavailable(f"the {runtime.name} runtime cannot run here: {reason}")
        return runtime, []
    notes: list[tuple[str, str]] = []
    for runtime in runtimes:
        if runtime.name == BUILT_IN:
            return runtime, notes
        if runtime.kind in GPU_KINDS and not wants_gpu:
            continue
        if runtime.kind == "cpu" and cpu_features.missing(runtime.cpu_features):
            continue  # a build for other CPUs: expected, not worth a notice (System check shows it)
        usable, reason, _ = assess(runtime, _installed_version())
        if usable:
            return runtime, notes
        notes.append((runtime.name, reason))
    return runtimes[-1], notes


def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("llama_cpp_python")
    except PackageNotFoundError:
        return ""


def activate(runtime: Runtime) -> None:
    """Point llama-cpp-python at ``runtime`` (before it is imported in this process)."""
    if runtime.path:
        os.environ[LIB_PATH_ENV] = runtime.path
    else:
        os.environ.pop(LIB_PATH_ENV, None)
    os.environ[RUNTIME_ENV] = runtime.name


def statuses_json(statuses: list[RuntimeStatus]) -> list[dict[str, Any]]:
    return [asdict(s) for s in statuses]


def injected_fault(runtime: Runtime | None) -> str:
    """How ``HEARTH_FAIL_LOAD_ON_RUNTIME`` (tests) makes a worker fail on the runtime it
    uses: "" (not at all), "fail", "crash", "sigill", "crash-reply" or "sigill-reply"
    (when a reply starts) or "sigill-delta" (once the reply's first words are sent)."""
    name, _, how = os.environ.get(FAIL_LOAD_ENV, "").partition(":")
    if not name or runtime is None or runtime.name != name:
        return ""
    known = ("crash", "sigill", "crash-reply", "sigill-reply", "sigill-delta")
    return how if how in known else "fail"


def fail_on_purpose(runtime: Runtime | None) -> None:
    """Fail or crash while loading, as ``injected_fault`` says."""
    how = injected_fault(runtime)
    if how == "crash":
        os._exit(70)
    if how == "sigill":  # what a build for another processor does
        illegal_instruction()
    if how == "fail":
        raise EngineError(
            protocol.ERR_LOAD_FAILED,
            Phrase(
                "The {0} runtime could not load the model (on purpose).",
                runtime.name if runtime else "",
            ),
        )
