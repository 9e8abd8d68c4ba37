"""A CUDA toolkit from PyPI's ``nvidia-*`` wheels, for building a llama.cpp CUDA runtime pack
on a machine without a CUDA install or a GPU (the release workflow's runners).

    python packaging/llama/cuda_toolkit.py prepare NAME WORK      # prints the CMake flags
    python packaging/llama/cuda_toolkit.py libraries NAME WORK RUNTIME

``prepare`` installs the wheels the recipe of NAME lists (``resources/engines/
llama-runtime-packs.json``: nvcc, the CUDA runtime, cuBLAS, CCCL of one CUDA version) into
WORK/wheels, merges their folders into one toolkit (WORK/toolkit: bin, include, lib, nvvm,
as CMake's FindCUDAToolkit and nvcc expect; the unversioned library names a link needs),
and prints the flags for ggml's CUDA build with the recipe's architectures.  No driver
library is on PyPI, so ggml is built without its virtual memory pool (GGML_CUDA_NO_VMM),
which is the only part that links the driver directly.

``libraries`` copies the CUDA libraries the runtime loads (cudart, cuBLAS, cuBLASLt) into
the runtime folder under the names its libraries ask for: a pack needs nothing but the
NVIDIA driver.  Only the standard library.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RECIPES = REPO / "resources" / "engines" / "llama-runtime-packs.json"
PARTS = ("bin", "include", "lib", "lib64", "nvvm")
# What a CUDA runtime of ggml loads at run time, by file name (Linux sonames, Windows DLLs).
LOADED = re.compile(r"lib(cudart|cublas|cublasLt)\.so\.\d+|(cudart|cublas|cublasLt)64_\d+\.dll")


def recipe(name: str) -> dict[str, object]:
    packs = json.loads(RECIPES.read_text(encoding="utf-8"))["packs"]
    found: dict[str, object] = next(p for p in packs if p["name"] == name)
    return found


def prepare(name: str, work: Path) -> str:
    wanted = recipe(name)
    wheels = work / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--target",
            str(wheels),
            *wanted["pip"],
        ],  # type: ignore[misc]
        check=True,
    )
    toolkit = work / "toolkit"
    shutil.rmtree(toolkit, ignore_errors=True)
    for folder in sorted((wheels / "nvidia").rglob("*")):
        if folder.is_dir() and any((folder / part).is_dir() for part in ("bin", "include")):
            for part in PARTS:
                if (folder / part).is_dir():
                    shutil.copytree(folder / part, toolkit / part, dirs_exist_ok=True)
    for library in list((toolkit / "lib").glob("lib*.so.*")):  # libcudart.so for the linker
        plain = library.with_name(library.name.split(".so.")[0] + ".so")
        if not plain.exists():
            plain.symlink_to(library.name)
    nvcc = toolkit / "bin" / ("nvcc.exe" if os.name == "nt" else "nvcc")
    if not nvcc.is_file():
        sys.exit(f"no nvcc in {toolkit}: the wheels of {name} are not a toolkit")
    return " ".join(
        (
            "-DGGML_CUDA=on",
            "-DGGML_CUDA_NO_VMM=ON",
            f"-DCUDAToolkit_ROOT={toolkit.resolve().as_posix()}",
            f"-DCMAKE_CUDA_COMPILER={nvcc.resolve().as_posix()}",
            f"-DCMAKE_CUDA_ARCHITECTURES={wanted['cuda_architectures']}",
        )
    )


def libraries(work: Path, runtime: Path) -> list[str]:
    copied = []
    for folder in (work / "toolkit" / "lib", work / "toolkit" / "bin"):
        for library in sorted(folder.glob("*")) if folder.is_dir() else ():
            if LOADED.fullmatch(library.name):
                shutil.copyfile(library.resolve(), runtime / library.name)
                copied.append(library.name)
    if not copied:
        sys.exit(f"no CUDA runtime libraries in {work / 'toolkit'}")
    return copied


def main(argv: list[str]) -> int:
    if argv[:1] == ["prepare"] and len(argv) == 3:
        print(prepare(argv[1], Path(argv[2])))
        return 0
    if argv[:1] == ["libraries"] and len(argv) == 4:
        print("\n".join(libraries(Path(argv[2]), Path(argv[3]))))
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
