"""``hearth pull``: download a model (resumable, verified) from Hugging Face or ModelScope.

Without ``--file`` Hearth picks for the user what the Models screen recommends on this
machine (``app.hub.recommend``: the best quality that fits the GPU, else Q4_K_M or the
nearest that fits; the whole safetensors checkpoint in a transformers repository).
``--file`` takes a glob over file names (``*.Q8_0.gguf``) or a quantization name (``Q8_0``).
A catalogue name (``hearth pull qwen3-4b``) fetches that entry's recommended file, from
ModelScope first on a Chinese locale (``app.hub.catalog``).  What to fetch is decided in
``app.hub.pull``; the download and its progress line are here.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from typing import Any, TextIO

from app.core import Core
from app.errors import HearthError
from app.hub.downloads import DONE, FAILED, PAUSED, DownloadManager, PullPlan
from app.hub.pull import plan, plan_catalog
from app.hub.repo_files import human_duration, human_size
from app.hub.sources import HF, MODELSCOPE, download_manager
from wire.phrases import Phrase, message_of
from wire.visible_text import visible


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    pull = commands.add_parser(
        "pull",
        parents=[common],
        help="download a model from Hugging Face or ModelScope",
        description="Download (resumable, verified) from a repository. Without --file, Hearth "
        "picks the usual quantization (Q4_K_M) or the whole checkpoint.",
    )
    pull.add_argument(
        "repo",
        help="repository id (e.g. bartowski/Qwen2.5-1.5B-Instruct-GGUF) or a name from "
        "'hearth models catalog' (e.g. qwen3-4b)",
    )
    pull.add_argument(
        "--file",
        "-f",
        metavar="PATTERN",
        help="file name glob (e.g. '*Q8_0.gguf') or a quantization (Q8_0)",
    )
    pull.add_argument(
        "--source",
        choices=("hf", "modelscope"),
        default=None,
        help="where to download from (default: hf for a repository; for a catalogue name, "
        "modelscope on a Chinese locale, else hf)",
    )
    pull.set_defaults(run=cmd_pull)


def cmd_pull(core: Core, args: argparse.Namespace) -> int:
    return run_pull(core, args.repo, args.file, args.source)


def run_pull(
    core: Core, repo_id: str, pattern: str | None, source: str | None, err: TextIO | None = None
) -> int:
    """``hearth pull REPO`` or ``hearth pull CATALOG_NAME``."""
    err = err or sys.stderr  # as it is now, not as it was at import
    from app.hub.catalog import find, preferred_source
    from app.hub.catalog_refresh import current_catalog

    entries = current_catalog(core.paths.data_dir)[0] if "/" not in repo_id else []
    entry = find(repo_id, entries) if entries else None
    if "/" not in repo_id and entry is None:
        try:  # a repository without an owner (gpt2): the hub may still have it
            return _run_repo_pull(core, repo_id, pattern, source or HF, err)
        except HearthError as exc:
            raise HearthError(
                Phrase(
                    "{0} It is not a model of Hearth's catalogue either (hearth models "
                    "catalog lists them).",
                    message_of(exc),
                )
            ) from exc
    if entry is not None and not pattern:
        language = str(core.settings.get("appearance.language"))
        source, repo_id, chosen = plan_catalog(
            core.settings, entry, source or preferred_source(language)
        )
    else:
        source = source or HF
        if entry is not None:
            repo_id = entry.repo(source)
        return _run_repo_pull(core, repo_id, pattern, source, err)
    return _download(core, repo_id, source, chosen, err)


def _run_repo_pull(core: Core, repo_id: str, pattern: str | None, source: str, err: TextIO) -> int:
    from app.machine.hardware import probe_system

    facts = None if pattern else probe_system(core.models_dir, engines=False)
    chosen = plan(core.settings, repo_id, pattern, source, facts)
    return _download(core, repo_id, source, chosen, err)


def _download(core: Core, repo_id: str, source: str, chosen: PullPlan, err: TextIO) -> int:
    total = sum(f.size for f in chosen.files)
    print(
        f"Pulling {repo_id} ({chosen.label}, {len(chosen.files)} file(s), {human_size(total)}) "
        f"into {core.models_dir / repo_id}",
        file=err,
    )
    if chosen.warning:
        print(f"Warning: {chosen.warning}", file=err)
    manager = download_manager(core.settings, core.paths.data_dir)
    revision = "master" if source == MODELSCOPE else "main"
    items = [
        manager.add(source, repo_id, f, core.models_dir / repo_id, revision=revision)
        for f in chosen.files
    ]
    interrupted = False

    def on_sigint(_signum: int, _frame: object) -> None:
        nonlocal interrupted
        interrupted = True
        for item in items:
            manager.pause(item.id)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        _show_progress(manager, [i.id for i in items], err)
    finally:
        signal.signal(signal.SIGINT, previous)
        manager.close()
    results = [manager.get(i.id) for i in items]
    if interrupted or any(r.state == PAUSED for r in results):
        print("Paused. Run the same command again to resume where it stopped.", file=err)
        return 130
    failed = [r for r in results if r.state != DONE]
    for result in failed:
        print(f"hearth: {result.error or result.path + ' did not finish.'}", file=err)
    if failed:
        return 1
    print(f"Done: {', '.join(visible(r.path) for r in results)} verified.", file=err)
    return 0


def _show_progress(manager: DownloadManager, ids: list[str], err: TextIO) -> None:
    tty = err.isatty()
    last_line = 0.0
    while True:
        items = [manager.get(i) for i in ids]
        received = sum(i.received for i in items)
        size = sum(i.size for i in items) or 1
        speed = sum(i.speed for i in items)
        running = [i for i in items if i.state not in (DONE, FAILED, PAUSED, "cancelled")]
        now = time.monotonic()
        if tty or now - last_line >= 2 or not running:
            eta = (size - received) / speed if speed > 0 else None
            left = f", {human_duration(eta)} left" if eta is not None else ""
            line = (
                f"{received / size:6.1%}  {human_size(received)} of {human_size(size)}  "
                f"{human_size(int(speed))}/s{left}"
            )
            print(
                ("\r" + line.ljust(70)) if tty else line,
                end="" if tty else "\n",
                file=err,
                flush=True,
            )
            last_line = now
        if not running:
            if tty:
                print(file=err)
            return
        time.sleep(0.25)
