#!/usr/bin/env bash
# Builds llama.cpp's own `llama-bench`, `llama-server` and `llama-mtmd-cli` from the
# llama.cpp that llama-cpp-python vendors, so that `hearth bench` compares Hearth with the
# C++ figures of exactly the same code (llama-server: several replies at once,
# `hearth bench --parallel`; llama-mtmd-cli: reading pictures, `hearth bench --vision`).
#
#   bash packaging/llama/build-llama-bench.sh VERSION DEST [extra cmake args...]
#
# The sdist comes from PyPI (pip's cache keeps it); the build goes to DEST/bin.  Built like
# the dev venv's llama-cpp-python (GGML_NATIVE on) unless other cmake args are given.
set -euo pipefail
VERSION="$1"
DEST="$2"
shift 2
PYTHON="${PYTHON:-python3}"
WORK="$DEST/work"
mkdir -p "$WORK"
if [ ! -d "$WORK/llama_cpp_python-$VERSION" ]; then
  "$PYTHON" -m pip download --quiet --no-deps --no-binary :all: -d "$WORK" \
    "llama-cpp-python==$VERSION"
  tar -xzf "$WORK/llama_cpp_python-$VERSION.tar.gz" -C "$WORK"
fi
SRC="$WORK/llama_cpp_python-$VERSION/vendor/llama.cpp"
cmake -S "$SRC" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF "$@" >"$WORK/configure.log"
cmake --build "$WORK/build" --target llama-bench llama-server llama-mtmd-cli -j "$(nproc)" \
  >"$WORK/build.log"
mkdir -p "$DEST/bin"
cp "$WORK/build/bin/llama-bench" "$WORK/build/bin/llama-server" "$WORK/build/bin/llama-mtmd-cli" \
  "$DEST/bin/"
echo "built $DEST/bin/llama-bench, llama-server and llama-mtmd-cli"
