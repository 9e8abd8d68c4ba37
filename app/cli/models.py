"""``hearth models``: the library (``list``), Hearth's recommended models best first for
this machine (``catalog``), and deleting a model Hearth downloaded (``rm``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from app.cli.common import EXIT_OK
from app.core import Core
from wire.phrases import Phrase


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    models = commands.add_parser("models", parents=[common], help="list the models Hearth can use")
    models_commands = models.add_subparsers(dest="models_command", metavar="ACTION")
    listing = models_commands.add_parser("list", parents=[common], help="list models")
    listing.add_argument("--json", action="store_true", help="print a JSON list")
    catalog = models_commands.add_parser(
        "catalog",
        parents=[common],
        help="Hearth's recommended models, best first for this machine",
    )
    catalog.add_argument("--json", action="store_true", help="print a JSON list")
    catalog.add_argument(
        "--refresh",
        action="store_true",
        help="first ask the hub for today's file names and sizes (kept for later, offline "
        "too); without it nothing is asked of a hub",
    )
    remove = models_commands.add_parser(
        "rm", parents=[common], help="delete a model Hearth downloaded (asks first)"
    )
    remove.add_argument("name", help="model name (see 'hearth models list') or path")
    remove.add_argument("--yes", "-y", action="store_true", help="do not ask")
    models.set_defaults(run=cmd_models)
    listing.set_defaults(run=cmd_models)
    catalog.set_defaults(run=cmd_models_catalog)
    remove.set_defaults(run=cmd_models_rm)


def cmd_models(core: Core, args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # as it is now, not as it was at import
    models = core.models()
    if getattr(args, "json", False):
        out.write(json.dumps([m.as_json() for m in models], indent=2) + "\n")
        return EXIT_OK
    if not models:
        out.write(f"No models found. Put .gguf files into {core.models_dir}.\n")
        return EXIT_OK
    width = max(len(m.name) for m in models)
    for m in models:
        size = f"{m.size_bytes / 1e6:,.0f} MB"
        facts = " ".join(
            x for x in (m.architecture, m.quantization, "images" if m.reads_images else "") if x
        )
        note = f"  (unusable: {m.problem})" if m.problem else ""
        out.write(f"{m.name:<{width}}  {size:>9}  {facts:<16} {m.source:<10} {m.path}{note}\n")
    return EXIT_OK


def cmd_models_catalog(
    core: Core, args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """``hearth models catalog``: the curated models, best first for this machine, with
    the fit verdict; ``hearth pull NAME`` fetches one."""
    out = out or sys.stdout  # as it is now, not as it was at import
    err = err or sys.stderr  # as it is now, not as it was at import
    from app.hub.catalog import load_catalog, preferred_source, ranked
    from app.hub.catalog_refresh import check_hub, current_catalog, summary

    if getattr(args, "refresh", False):
        language = str(core.settings.get("appearance.language"))
        checked = check_hub(
            core.settings, core.paths.data_dir, load_catalog(), preferred_source(language)
        )
        for name, problem in checked.problems.items():
            err.write(f"{name}: {problem}\n")
    core.learn_machine()
    context = int(core.settings.get("engine.context_length"))
    entries, facts = current_catalog(core.paths.data_dir)
    if facts.problem:
        err.write(f"{facts.problem}\n")
    listing = ranked(core.machine_facts(), context, entries)
    if getattr(args, "json", False):
        out.write(json.dumps([r.to_json() for r in listing], indent=2) + "\n")
        return EXIT_OK
    width = max(len(r.entry.name) for r in listing)
    for item in listing:
        entry, fit = item.entry, item.estimate
        speed = f", ~{fit.tokens_per_s:.0f} tok/s" if fit.tokens_per_s else ""
        out.write(
            f"{entry.name:<{width}}  {entry.size_bytes / 1e9:5.1f} GB  {entry.purpose:<12} "
            f"{fit.verdict_text}{speed}\n"
        )
    out.write(f"\n{summary(facts, len(entries))}\nDownload one with: hearth pull NAME\n")
    return EXIT_OK


def cmd_models_rm(core: Core, args: argparse.Namespace) -> int:
    from app.errors import HearthError
    from app.library_actions import delete_model

    models = core.models()
    try:
        entry = next(m for m in models if args.name in (m.name, str(m.path), m.path.name))
    except StopIteration:
        raise HearthError(
            Phrase("No model called {0!r}; see 'hearth models list'.", args.name)
        ) from None
    if not args.yes:
        if not sys.stdin.isatty():
            raise HearthError(Phrase("Add --yes to delete without being asked."))
        answer = input(f"Delete {entry.name} ({entry.size_bytes / 1e6:,.0f} MB)? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            return EXIT_OK
    removed = delete_model(core, entry)
    print(f"Deleted {entry.name} ({removed / 1e6:,.0f} MB freed).", file=sys.stderr)
    return EXIT_OK
