"""A llama.cpp runtime pack installed as Hearth installs one (``app.packs.runtime_packs``:
the manifest, every file checked, the probe in a child, then made current), and a reply on
it through Hearth's worker with every layer on the GPU.

Which pack: one the kit carries (``make gpu-kit`` copies a release's packs from
``.cache/packs`` when there are any; a CUDA pack is hundreds of MB, so a kit that must stay
small has none), else one made here from this check's own build with
``packaging/llama/make-pack.py``.  Either way the install, the probe and the worker run on
this machine's GPU.  Skipped, with the reason, when there is neither."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from gpu_check import replies
from gpu_check.builds import cores
from gpu_check.hearth_env import REPO
from gpu_check.report import Report

MAKE_PACK = REPO / "packaging" / "llama" / "make-pack.py"
MANIFEST = "hearth-runtime-packs.json"
BUILT_PACK = "gpu-check"  # the name of a pack made from this check's build
NEEDS_S = 60


def check(
    kit: Path, work: Path, built: Path | None, model: Path | None, cpu: bool, report: Report
) -> None:
    """Install a pack and reply on it; every outcome is a step of the report."""
    if report.left() < NEEDS_S:
        report.step("runtime pack", "skipped", reason="out of time")
        return
    found = _packs(kit, work, built)
    if found is None:
        report.step(
            "runtime pack",
            "skipped",
            reason="the kit has no runtime pack (put a release's hearth-runtime-packs.json "
            "and its zips in .cache/packs before make gpu-kit) and no runtime was built here",
        )
        return
    folder, origin = found
    try:
        name = _install(folder, work, report, origin)
    except Exception as exc:  # noqa: BLE001 - reported, the check goes on
        report.step("install pack", "failed", reason=f"{type(exc).__name__}: {exc}")
        return
    if name and model is None:
        report.step("pack reply", "skipped", reason="no model (its step failed)")
    elif name and model is not None:
        _reply(name, model, cpu, work / "logs", report)


def _packs(kit: Path, work: Path, built: Path | None) -> tuple[Path, str] | None:
    """The folder with a manifest and its packs, and where they came from."""
    if (kit / "packs" / MANIFEST).is_file():
        return kit / "packs", "the kit"
    if built is None:
        return None
    source = work / "pack-source" / BUILT_PACK
    shutil.rmtree(source.parent, ignore_errors=True)
    shutil.copytree(built, source, symlinks=False)
    label = json.loads((source / "runtime.json").read_text())
    (source / "runtime.json").write_text(json.dumps({**label, "name": BUILT_PACK}))
    packs = work / "packs"
    shutil.rmtree(packs, ignore_errors=True)
    made = subprocess.run(
        [sys.executable, str(MAKE_PACK), "pack", str(source), str(packs), "--name", BUILT_PACK],
        capture_output=True,
        text=True,
        check=True,
    )
    subprocess.run(
        [sys.executable, str(MAKE_PACK), "merge", str(packs / MANIFEST), made.stdout.strip()],
        capture_output=True,
        check=True,
    )
    return packs, "this check's build"


def _install(folder: Path, work: Path, report: Report, origin: str) -> str:
    """The pack that fits this machine best, installed; its name ("" when none fits)."""
    from app.machine.hardware import probe_system
    from app.packs.pack_manifest import load_manifest, platform_of
    from app.packs.runtime_packs import install_pack, pack_rows

    data = Path(os.environ["HEARTH_DATA_DIR"])
    facts = probe_system(work, engines=False)
    manifest = load_manifest([str(folder)])
    here = platform_of(facts)
    carried = {p.name for p in manifest.packs if (p.os, p.arch) == here}
    rows = [r for r in pack_rows(facts, data, manifest) if r.name in carried]
    usable = sorted((r for r in rows if r.usable), key=lambda r: not r.recommended)
    if not usable:
        reasons = "; ".join(f"{r.name}: {r.why_not}" for r in rows) or "none for this system"
        report.step("install pack", "skipped", reason=f"no pack fits here ({reasons})")
        return ""
    name = usable[0].name
    started = time.monotonic()
    install_pack(name, data, facts, manifest)
    report.step(
        "install pack",
        "ok",
        pack=name,
        origin=origin,
        seconds=round(time.monotonic() - started, 1),
    )
    return name


def _reply(name: str, model: Path, cpu: bool, logs: Path, report: Report) -> None:
    """One reply on the installed pack, chosen by name as a person would force it."""
    from app.engine.host import EngineHost
    from app.engine.seat import Seat
    from wire.model_spec import ModelSpec

    runtimes = Path(os.environ["HEARTH_DATA_DIR"]) / "runtimes"
    os.environ["HEARTH_RUNTIMES_DIR"] += os.pathsep + str(runtimes)
    spec = ModelSpec(
        path=str(model), n_ctx=2048, threads=cores(), gpu_layers=0 if cpu else -1, runtime=name
    )
    client = Seat(EngineHost(logs))
    try:
        within = report.timeout(30)
        loaded: dict[str, Any] = replies.load(client, spec, within)
        hello = [{"role": "user", "content": "Say hello."}]
        stats = replies.reply(client, spec, hello, within, temperature=0, max_tokens=16)
    except Exception as exc:  # noqa: BLE001 - reported with what the worker said
        report.step("pack reply", "failed", reason=f"{type(exc).__name__}: {exc}")
        return
    finally:
        client.host.close()
    report.step(
        "pack reply",
        "ok" if stats.get("runtime") == name else "failed",
        runtime_used=stats.get("runtime"),
        tokens_per_s=stats.get("tokens_per_s"),
        gpu_layers=loaded.get("n_gpu_layers", loaded.get("gpu_layers")),
    )
