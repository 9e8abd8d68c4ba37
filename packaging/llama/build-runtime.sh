#!/usr/bin/env bash
# Builds one llama.cpp runtime for Hearth: llama-cpp-python's libraries built with the given
# cmake flags, unpacked into DEST/NAME with a runtime.json (see backends/runtimes.py).
#
#   bash packaging/llama/build-runtime.sh VERSION NAME KIND DEST "CMAKE ARGS" [CPU_FEATURES]
#
# CPU_FEATURES: the instruction sets the build needs (comma-separated, /proc/cpuinfo's
# names), kept in runtime.json.  The multimodal library is not built (runtimes never load it).
#
# pip builds the wheel without its cache (the cache would hand back a build with other
# flags); the result is kept in DEST, which the Makefile puts outside the tree, so a fresh
# clone on the same machine does not build it again.
set -euo pipefail
# shellcheck source=packaging/lib.sh
. "$(dirname "$0")/../lib.sh"
VERSION="$1"
NAME="$2"
KIND="$3"
DEST="$4"
ARGS="$5"
FEATURES="${6:-}"
OUT="$DEST/$NAME"
WORK="$DEST/.work-$NAME"
rm -rf "$WORK"
mkdir -p "$WORK"
"$PYTHON" -m pip download --quiet --no-deps --no-binary :all: -d "$WORK" \
  "llama-cpp-python==$VERSION"
# Python's tarfile, not tar: Git Bash's tar on Windows copies or refuses a symbolic link
# whose target comes later in the archive; tarfile copies the target where it cannot link.
"$PYTHON" -m tarfile -e "$WORK/llama_cpp_python-$VERSION.tar.gz" "$WORK"
SRC="$WORK/llama_cpp_python-$VERSION"
"$PYTHON" "$(dirname "$0")/compat.py" "$SRC"
CMAKE_ARGS="$ARGS -DLLAVA_BUILD=OFF" CMAKE_BUILD_PARALLEL_LEVEL="$(cpu_count)" \
  "$PYTHON" -m pip wheel --quiet --no-deps --no-cache-dir -w "$WORK" "$SRC"
"$PYTHON" "$(dirname "$0")/unpack_runtime.py" "$(ls "$WORK"/llama_cpp_python-*.whl)" "$OUT" \
  "$NAME" "$KIND" "$FEATURES"
rm -rf "$WORK"
du -sh "$OUT"
