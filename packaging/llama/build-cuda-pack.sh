#!/usr/bin/env bash
# One llama.cpp CUDA runtime pack for the release (docs/RUNTIMES.md, "Packs"), built on a
# machine with no GPU and no CUDA install: the toolkit comes from PyPI's nvidia-* wheels.
#
#   bash packaging/llama/build-cuda-pack.sh NAME OUT     # NAME: cuda-12 or cuda-13
#
# The CUDA version, its wheels and the GPU architectures are the recipe of NAME in
# resources/engines/llama-runtime-packs.json (the app reads the same file to say whether a
# pack fits a machine).  Builds llama-cpp-python's libraries for the pinned version
# (packaging/lib.sh) with build-runtime.sh, adds the CUDA libraries they load (a pack needs
# only the driver), and writes OUT/hearth-runtime-NAME-OS-ARCH-LLAMA.zip with its one-pack
# manifest (make-pack.py; release-files.sh joins them).  Needs a C++ compiler; on Windows,
# MSVC's environment (the workflow sets it) and Ninja, as CUDA builds there need either
# Visual Studio's CUDA integration or Ninja.  An hour or more per pack on four cores: the
# release workflow runs it, never CI's tests.
set -euo pipefail
# shellcheck source=packaging/lib.sh
. "$(dirname "$0")/../lib.sh"
NAME="$1"
OUT="$2"
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="${WORK:-build/cuda-pack-$NAME}"
rm -rf "$WORK"
mkdir -p "$WORK"
ARGS="$("$PYTHON" "$HERE/cuda_toolkit.py" prepare "$NAME" "$WORK")"
TOOLKIT="$(cd "$WORK/toolkit" && pwd)"
if [ "${OS:-}" = "Windows_NT" ]; then
  "$PYTHON" -m pip install --quiet ninja
  export CMAKE_GENERATOR=Ninja
fi
PATH="$TOOLKIT/bin:$PATH" LD_LIBRARY_PATH="$TOOLKIT/lib:${LD_LIBRARY_PATH:-}" \
  bash "$HERE/build-runtime.sh" "$LLAMA_VERSION" "$NAME" cuda "$WORK/runtimes" \
  "$ARGS $LLAMA_PORTABLE_ARGS"
"$PYTHON" "$HERE/cuda_toolkit.py" libraries "$NAME" "$WORK" "$WORK/runtimes/$NAME"
"$PYTHON" "$HERE/make-pack.py" pack "$WORK/runtimes/$NAME" "$OUT" --name "$NAME"
