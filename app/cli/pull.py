"""``hearth pull``: download a model (resumable, verified) from Hugging Face or ModelScope."""

from __future__ import annotations

import argparse
from typing import Any

from app.core import Core


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
    from app.hub.pull import run_pull

    return run_pull(core, args.repo, args.file, args.source)
