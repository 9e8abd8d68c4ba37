"""``hearth engines``: the engines and runtimes Hearth can use here, and adding or removing
the ones that do not come with the app.

``list [--json]``: the llama.cpp runtimes (cpu, cpu-avx512 and vulkan come with the app;
cuda-12 and cuda-13 can be added) and the PyTorch engine, each with installed, usable
here or why not, version and size.  ``install NAME``: the PyTorch engine (``--variant``
cpu, cuda, rocm or mps; chosen from the machine by default; ``--index-url``,
``--find-links``) or a llama.cpp runtime pack; progress on stderr with bytes, speed and
time left; Ctrl+C cancels and keeps what was downloaded for the next try.  ``remove NAME``
frees the disk; ``rollback NAME`` goes back to the one installed before.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from typing import Any, TextIO

from app.cli.common import EXIT_INTERRUPTED, EXIT_OK
from app.core import Core
from wire.engine_overlay import PYTORCH
from wire.phrases import Phrase


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    engines = commands.add_parser(
        "engines",
        parents=[common],
        help="the engines and runtimes here, and adding or removing them",
        description="The llama.cpp runtimes and the PyTorch engine: which are installed and "
        "usable here, and adding the ones that do not come with the app.",
    )
    actions = engines.add_subparsers(dest="engines_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", parents=[common], help="every engine and runtime")
    listing.add_argument("--json", action="store_true", help="one JSON document")
    install = actions.add_parser(
        "install",
        parents=[common],
        help="add an engine (pytorch) or a llama.cpp runtime (cuda-12, cuda-13)",
    )
    install.add_argument("name", metavar="NAME")
    install.add_argument(
        "--variant",
        choices=("cpu", "cuda", "rocm", "mps"),
        help="the PyTorch engine's build (default: the one this machine runs best)",
    )
    install.add_argument(
        "--find-links",
        action="append",
        default=[],
        metavar="DIR_OR_URL",
        help="look for the wheels (or a runtime pack and its list) in this folder or page "
        "first; repeatable",
    )
    install.add_argument(
        "--index-url", metavar="URL", help="a package index (PEP 503) to take the wheels from"
    )
    remove = actions.add_parser("remove", parents=[common], help="remove an engine or runtime")
    remove.add_argument("name", metavar="NAME")
    rollback = actions.add_parser(
        "rollback", parents=[common], help="go back to the one installed before"
    )
    rollback.add_argument("name", metavar="NAME")
    engines.set_defaults(run=cmd_engines)


def cmd_engines(core: Core, args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # as it is now, not as it was at import
    action = args.engines_command
    if action == "list":
        return _list(core, args, out)
    from app.packs import engine_list

    if action == "remove":
        print(engine_list.remove(core, args.name), file=out)
        return EXIT_OK
    if action == "rollback":
        print(engine_list.roll_back(core, args.name), file=out)
        return EXIT_OK
    return _install(core, args, out)


def _install(core: Core, args: argparse.Namespace, out: TextIO) -> int:
    """``install NAME``: progress on stderr; Ctrl+C cancels, keeping what was downloaded."""
    from app.packs import engine_list
    from app.packs.pytorch_engine import InstallCancelled

    cancel = threading.Event()
    shown = Progress(sys.stderr)
    try:
        try:
            said = engine_list.install(
                core,
                args.name,
                variant=args.variant,
                find_links=list(args.find_links),
                index_url=args.index_url or "",
                on_progress=shown.show,
                on_stage=lambda stage: print(f"{stage}", file=sys.stderr),
                cancel=cancel,
            )
        except KeyboardInterrupt:
            cancel.set()
            raise InstallCancelled(
                "the install was cancelled; run it again to go on."
                if args.name == PYTORCH
                else Phrase("The install was cancelled; run it again to go on.")
            ) from None
        finally:
            shown.end()
    except InstallCancelled as exc:
        print(f"hearth: {exc.message}", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(said, file=out)
    return EXIT_OK


class Progress:
    """An install's progress on one line of stderr: stage, bytes, speed, time left (the
    words of ``engine_list.progress_line``, which the Engines page shows too)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False
        self._lock = threading.Lock()

    def show(self, progress: Any) -> None:
        from app.packs.engine_list import progress_line

        line = progress_line(progress)
        with self._lock:
            self.stream.write(f"\r\x1b[K{line}" if self.stream.isatty() else f"{line}\n")
            self.stream.flush()
            self.shown = True

    def end(self) -> None:
        with self._lock:
            if self.shown and self.stream.isatty():
                self.stream.write("\n")
            self.shown = False


def _list(core: Core, args: argparse.Namespace, out: TextIO) -> int:
    from app.packs.engine_list import engine_rows

    rows = engine_rows(core)
    if args.json:
        print(json.dumps({"engines": rows}, indent=2, ensure_ascii=False), file=out)
        return EXIT_OK
    for row in rows:
        state = (
            "usable"
            if row["usable"]
            else ("installed, not usable" if row["installed"] else "not installed")
        )
        detail = ", ".join(
            part
            for part in (
                row.get("version", ""),
                row.get("variant", ""),
                f"{row['size'] / 1e9:.2f} GB" if row.get("size") else "",
            )
            if part
        )
        print(
            f"{row['name']} ({row['kind']}): {state}" + (f" — {detail}" if detail else ""), file=out
        )
        if row.get("reason"):
            print(f"  {row['reason']}", file=out)
    return EXIT_OK
