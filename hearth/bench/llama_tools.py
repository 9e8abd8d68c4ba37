"""llama.cpp's own tools that ``hearth bench`` compares Hearth with (llama-bench,
llama-server, llama-mtmd-cli): the one its variable names, else the one ``make
bench-tools`` built, else one on the PATH."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def find_llama_tool(env: str, name: str, *also: Path) -> Path | None:
    for candidate in (
        os.environ.get(env),
        *also,
        *sorted(Path.home().glob(f".cache/hearth-build/llama-bench-*/bin/{name}")),
        shutil.which(name),
    ):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None
