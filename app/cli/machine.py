"""``hearth sysinfo`` (what Hearth found on this machine) and ``hearth fit`` (will a
model fit, and where)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from app.cli.common import EXIT_OK
from app.core import Core
from wire.phrases import message_of


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    sysinfo = commands.add_parser(
        "sysinfo", parents=[common], help="what Hearth found on this machine"
    )
    sysinfo.add_argument("--json", action="store_true", help="print JSON")

    fit = commands.add_parser(
        "fit",
        parents=[common],
        help="will a model fit on this machine, and where",
        description="Estimate the memory a model needs (weights, KV cache, overhead) and "
        "whether it fits on the GPU, partly on the GPU, on the CPU, or not at all.",
    )
    fit.add_argument("model", help="model name (see 'hearth models list') or path")
    fit.add_argument("--ctx", type=int, metavar="N", help="context length (default: settings)")
    fit.add_argument(
        "--parallel",
        type=int,
        metavar="N",
        help="replies at once, a context each (default: what Hearth would load it with)",
    )
    fit.add_argument("--json", action="store_true", help="print JSON")
    sysinfo.set_defaults(run=cmd_sysinfo)
    fit.set_defaults(run=cmd_fit)


def cmd_sysinfo(core: Core, args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # as it is now, not as it was at import
    from app.machine.hardware import probe_system
    from app.machine.system_check import format_facts

    facts = probe_system(core.models_dir, engine_site=core.engine_site)
    if args.json:
        out.write(json.dumps(facts.to_json(), indent=2) + "\n")
    else:
        out.write(format_facts(facts) + "\n")
    return EXIT_OK


def cmd_fit(core: Core, args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # as it is now, not as it was at import
    from app.machine.fit_service import estimate_entry
    from app.machine.hardware import probe_system
    from app.models.library import resolve_model

    models = core.models()
    try:
        entry = resolve_model(args.model, models)
    except LookupError as exc:
        from app.errors import HearthError

        raise HearthError(message_of(exc)) from exc
    ctx = args.ctx or int(core.settings.get("engine.context_length"))
    facts = probe_system(core.models_dir, engine_site=core.engine_site)
    core.facts = facts
    slots = args.parallel or core.model_spec(entry, ctx).parallel
    result = estimate_entry(entry, facts, ctx, slots)
    if args.json:
        out.write(json.dumps(result.to_json(), indent=2) + "\n")
        return EXIT_OK
    gib = 1e9
    at_once = (
        f", {slots} replies at once (each with a context of its own, a KV cache each)"
        if slots > 1
        else ""
    )
    out.write(
        f"{entry.name} at {ctx} tokens of context{at_once}: {result.verdict_text}\n"
        f"  weights   {result.weights_bytes / gib:8.2f} GB\n"
        f"  KV cache  {result.kv_cache_bytes / gib:8.2f} GB\n"
        f"  overhead  {result.overhead_bytes / gib:8.2f} GB\n"
        f"  total     {result.total_bytes / gib:8.2f} GB (peak {result.peak_bytes / gib:.2f} GB)\n"
    )
    if result.gpu_layers is not None:
        out.write(f"  GPU layers {result.gpu_layers} of {result.n_layers}\n")
    if result.speed_hint:
        out.write(f"  expected speed: {result.speed_hint}\n")
    for note in result.notes:
        out.write(f"  note: {note}\n")
    return EXIT_OK
