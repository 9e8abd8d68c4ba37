"""Hearth's command line (the commands that need no window).

Every command reports a failure as one human sentence on stderr and a non-zero exit code;
the traceback goes to the log file.  ``hearth chat`` uses the same chat session and
engine host as the window, so a prompt behaves the same in both.

One module per command; each adds its sub-parser and names the function that runs it
(``run``), so ``COMMANDS`` below is the whole table of commands and ``run_command`` has no
list of its own.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from app import __version__
from app.cli import bench, chat, docs, engines, machine, mcp, models, pull, serve, tools
from app.cli.common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from app.core import Core

COMMANDS = (chat, models, machine, engines, serve, pull, docs, tools, mcp, bench)
__all__ = ["EXIT_ERROR", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "parse", "run_command"]


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        metavar="DIR",
        help="keep all of Hearth's state (chats, settings, logs, models) in DIR "
        "(default: $HEARTH_DATA_DIR, else the platform's data folder)",
    )
    parser = argparse.ArgumentParser(
        prog="hearth",
        parents=[common],
        description="Private, offline chat with open language models. Without a command, "
        "opens the Hearth window.",
    )
    parser.add_argument("--version", action="version", version=f"Hearth {__version__}")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="start the window offscreen, stream a short reply from the default model, check "
        "it was shown and saved, and exit 0 (non-zero with the reason otherwise)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands, common)
    return parser


def run_command(core: Core, args: argparse.Namespace) -> int:
    run = getattr(args, "run", None)
    if run is None:
        raise SystemExit(EXIT_USAGE)
    code: int = run(core, args)
    return code


def parse(argv: Sequence[str]) -> argparse.Namespace:
    args = build_parser().parse_args(list(argv))
    if args.command == "models" and args.models_command is None:
        args.models_command = "list"
    return args
