#!/usr/bin/env bash
# The installers' llama-cpp-python wheel, built into WHEELS when it holds none, with
# CMAKE_ARGS="$HEARTH_LLAMA_ARGS" and without pip's cache (which would hand back a build
# with other flags).  freeze.sh puts it in the app; CI's Windows release job builds it first
# and gives the same folder to the tests (LLAMA_WHEEL_DIR), so llama.cpp is built once there.
#
#   HEARTH_LLAMA_ARGS="..." bash packaging/llama/portable-wheel.sh WHEELS
#   bash packaging/llama/portable-wheel.sh WHEELS portable   # with LLAMA_PORTABLE_ARGS (AVX2)
set -euo pipefail
# shellcheck source=packaging/lib.sh
. "$(dirname "$0")/../lib.sh"
WHEELS="$1"
if [ "${2:-}" = portable ]; then
  HEARTH_LLAMA_ARGS="$LLAMA_PORTABLE_ARGS"
fi
if ! compgen -G "$WHEELS/llama_cpp_python-*.whl" >/dev/null; then
  mkdir -p "$WHEELS"
  CMAKE_ARGS="${HEARTH_LLAMA_ARGS:-}" CMAKE_BUILD_PARALLEL_LEVEL="$(cpu_count)" \
    "$PYTHON" -m pip wheel --quiet --no-deps --no-cache-dir -w "$WHEELS" \
    "llama-cpp-python==$LLAMA_VERSION"
fi
