"""Hearth's front door: decides whether this process is the window, a command or a worker.

It imports only what the chosen mode needs: a worker never loads Qt, the window never
loads an engine library, and ``hearth chat`` loads neither.  The frozen app starts its
workers by running itself with ``--worker``, so this is also the worker's entry point.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from collections.abc import Sequence

from wire.child_process import by_flag
from wire.platforms import unicode_stdio


def main(argv: Sequence[str] | None = None) -> int:
    if getattr(sys, "frozen", False):
        # A library's multiprocessing (tqdm's lock starts a resource tracker) runs the frozen
        # app again with its own arguments: PyInstaller's freeze_support answers those, on
        # every platform, before Hearth would refuse them.
        import multiprocessing

        multiprocessing.freeze_support()
    argv = list(sys.argv[1:] if argv is None else argv)
    # A child process of Hearth (a worker, a runtime probe, the engine probe, the document
    # reader): the frozen app starts each by running itself with the child's flag.
    child = by_flag(argv[0] if argv else None)
    if child is not None:
        entry = child.main()
        return entry(argv[1:]) if child.takes_arguments else entry()

    from app import cli
    from app.core import open_core
    from app.errors import HearthError, describe_error
    from app.logs import configure_logging, logging_path
    from app.paths import DATA_DIR_ENV, resolve_data_dir

    args = cli.parse(argv)
    unicode_stdio()  # a reply or a file name the console's code page lacks ends nothing
    # Until the log file is open, keep tracebacks off the terminal.
    logging.getLogger().addHandler(logging.NullHandler())
    log_path = None
    try:
        data_dir = getattr(args, "data_dir", None)
        if args.self_test and data_dir is None and not os.environ.get(DATA_DIR_ENV):
            # Never touch the user's real history: use a throw-away folder.
            data_dir = tempfile.mkdtemp(prefix="hearth-self-test-")
        # The log opens before the settings load: what a damaged file was is logged too.
        core = open_core(data_dir, before_settings=lambda paths: configure_logging(paths.logs_dir))
        # The children (workers, runtime probes, the engines' capabilities) find the data
        # folder's runtimes/ (runtime packs) through it, whichever way it was chosen.
        os.environ[DATA_DIR_ENV] = str(core.paths.data_dir)
        log_path = logging_path()
        if args.command is not None or args.self_test:
            # the window shows these itself; a command says what it set aside, then goes on
            for note in core.state_problems():
                print(f"hearth: {note}", file=sys.stderr)
        if args.self_test:
            from hearth.selftest import run_self_test

            return run_self_test(core)
        if args.command is None:
            from ui.gui import run_gui

            return run_gui(core)
        if args.command == "bench":
            from hearth.bench.run import run_bench

            return run_bench(core, args)
        return cli.run_command(core, args)
    except KeyboardInterrupt:
        return cli.EXIT_INTERRUPTED
    except HearthError as exc:
        describe_error(exc, "running the command")
        print(f"hearth: {exc.message}", file=sys.stderr)
        return cli.EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - last line of defence: a sentence, not a traceback
        hint = str(log_path or resolve_data_dir(getattr(args, "data_dir", None)) / "logs")
        print(f"hearth: {describe_error(exc, 'running the command', hint)}", file=sys.stderr)
        return cli.EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
