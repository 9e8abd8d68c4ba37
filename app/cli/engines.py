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
from app.errors import HearthError
from wire.phrases import Phrase

PYTORCH = "pytorch"


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
    if args.name != PYTORCH:
        return _runtime_pack(core, args, out)
    from app.packs import pytorch_engine

    data_dir = core.paths.data_dir
    if action == "remove":
        freed = pytorch_engine.remove(data_dir)
        print(f"Removed the PyTorch engine ({freed / 1e9:.2f} GB freed).", file=out)
        return EXIT_OK
    if action == "rollback":
        record = pytorch_engine.rollback(data_dir)
        print(f"The PyTorch engine is torch {_torch(record)} again.", file=out)
        return EXIT_OK
    return _install_pytorch(core, args, out)


def _install_pytorch(core: Core, args: argparse.Namespace, out: TextIO) -> int:
    from app.packs import pytorch_engine
    from app.packs.wheel_sources import Places

    places = Places(
        find_links=list(args.find_links),
        index_url=args.index_url or "",
        pypi_mirror=str(core.settings.get("engine.pypi_mirror")),
        pytorch_mirror=str(core.settings.get("engine.pytorch_mirror")),
    )
    cancel = threading.Event()
    shown = Progress(sys.stderr)
    try:
        record = pytorch_engine.install(
            core.paths.data_dir, _gpus(core), args.variant, places, shown.show, cancel
        )
    except KeyboardInterrupt:
        cancel.set()
        shown.end()
        print("hearth: the install was cancelled; run it again to go on.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except pytorch_engine.InstallCancelled as exc:
        shown.end()
        print(f"hearth: {exc.message}", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        shown.end()
    print(
        f"Installed the PyTorch engine: torch {_torch(record)} ({record['variant']}), "
        "checked on this computer.",
        file=out,
    )
    return EXIT_OK


def _torch(record: dict[str, Any]) -> str:
    return str(record.get("versions", {}).get("torch", "?"))


def _gpus(core: Core) -> list[Any]:
    core.learn_machine()
    return list(core.machine_facts().gpus)


class Progress:
    """An install's progress on one line of stderr: stage, bytes, speed, time left."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False
        self._lock = threading.Lock()

    def show(self, progress: Any) -> None:
        if progress.stage == "download":
            speed = f", {progress.bytes_per_s / 1e6:.1f} MB/s" if progress.bytes_per_s else ""
            left = progress.seconds_left
            eta = f", {_duration(left)} left" if left is not None else ""
            line = (
                f"Downloading {progress.done / 1e6:,.0f} of {progress.total / 1e6:,.0f} MB"
                f"{speed}{eta}"
            )
        elif progress.stage == "unpack":
            line = f"Unpacking {progress.done + 1} of {progress.total}"
        else:
            line = "Checking that it runs on this computer"
        with self._lock:
            self.stream.write(f"\r\x1b[K{line}" if self.stream.isatty() else f"{line}\n")
            self.stream.flush()
            self.shown = True

    def end(self) -> None:
        with self._lock:
            if self.shown and self.stream.isatty():
                self.stream.write("\n")
            self.shown = False


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def _list(core: Core, args: argparse.Namespace, out: TextIO) -> int:
    from app.machine.hardware import probe_system
    from app.packs import pytorch_engine

    facts = probe_system(core.models_dir, engine_site=core.engine_site)
    rows: list[dict[str, Any]] = [_runtime_row(r) for r in facts.engines.runtimes]
    rows += _pack_rows(core, facts)
    rows.append(pytorch_engine.status(core.paths.data_dir, list(facts.gpus)).as_json())
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


def _runtime_row(runtime: dict[str, Any]) -> dict[str, Any]:
    """A llama.cpp runtime that came with the app (or a source checkout's build)."""
    return {
        "name": str(runtime.get("name", "")),
        "kind": "llama.cpp runtime",
        "installed": True,
        "usable": bool(runtime.get("usable")),
        "reason": str(runtime.get("reason") or ""),
        "version": "",
        "variant": str(runtime.get("kind", "")),
        "size": 0,
        "built_in": True,
        "selected": bool(runtime.get("selected")),
    }


def _pack_rows(core: Core, facts: Any) -> list[dict[str, Any]]:
    """The llama.cpp runtime packs that can be added (CUDA), installed or not."""
    try:
        from app.packs import runtime_packs
    except ImportError:  # this edition has no packs
        return []
    return [row.as_json() for row in runtime_packs.pack_rows(facts, core.paths.data_dir)]


def _runtime_pack(core: Core, args: argparse.Namespace, out: TextIO) -> int:
    """``install``, ``remove`` or ``rollback`` of a llama.cpp runtime pack (cuda-12…)."""
    from app.packs import runtime_packs
    from app.packs.pack_manifest import PackCancelled, PackError, load_manifest

    action, name, data_dir = args.engines_command, args.name, core.paths.data_dir
    try:
        if action == "remove":
            freed = runtime_packs.remove_pack(name, data_dir)
            print(f"Removed the {name} runtime ({freed / 1e9:.2f} GB freed).", file=out)
            return EXIT_OK
        if action == "rollback":
            runtime_packs.rollback_pack(name, data_dir)
            print(f"The {name} runtime is the one installed before again.", file=out)
            return EXIT_OK
        manifest = (
            load_manifest(list(args.find_links))
            if args.find_links
            else runtime_packs.settings_manifest(core.settings)
        )
        core.learn_machine()
        shown = Progress(sys.stderr)
        cancel = threading.Event()
        try:
            folder = runtime_packs.install_pack(
                name,
                data_dir,
                core.machine_facts(),
                manifest,
                on_progress=lambda t: shown.show(_as_progress(t)),
                on_stage=lambda said: print(f"{said}", file=sys.stderr),
                cancel=cancel,
            )
        except KeyboardInterrupt:
            cancel.set()
            raise PackCancelled(
                Phrase("The install was cancelled; run it again to go on.")
            ) from None
        finally:
            shown.end()
    except PackCancelled as exc:
        print(f"hearth: {exc.args[0]}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except PackError as exc:
        raise HearthError(exc.args[0]) from exc
    print(f"Installed the {name} runtime in {folder}, checked on this computer.", file=out)
    return EXIT_OK


def _as_progress(transfer: Any) -> Any:
    from app.packs.pytorch_engine import InstallProgress

    return InstallProgress(
        "download", transfer.done, transfer.total, transfer.bytes_per_s, transfer.seconds_left
    )
