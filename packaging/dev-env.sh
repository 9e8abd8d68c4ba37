#!/usr/bin/env bash
# The development environment: Hearth installed editable into VENV with its test and
# transformers extras (pinned by constraints.txt), the starter model, and a llama.cpp build
# that runs on this CPU.  `make run` and `make test` use it on Linux; the CI of macOS and
# Windows, which have no GNU make of their own, run it directly.
#
#   bash packaging/dev-env.sh [VENV]          (default .venv; CMAKE_ARGS reach llama.cpp's build)
#
# pip keeps its wheel cache: llama-cpp-python takes minutes to build once, then seconds.
# With LLAMA_WHEEL_DIR (the Makefile's portable wheel, the installers' own build), that
# llama-cpp-python is installed instead of one built here; with LLAMA_REINSTALL=no-cache
# it is built again with CMAKE_ARGS even when pip has a wheel of that version (=cache: pip's
# own wheel is put back, after a build with other flags).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=packaging/lib.sh
. packaging/lib.sh
PY="$(ensure_venv "${1:-.venv}")"
"$PY" -m pip install --quiet --upgrade pip
if [ -n "${LLAMA_WHEEL_DIR:-}" ]; then
  wheels=("$LLAMA_WHEEL_DIR"/llama_cpp_python-"$LLAMA_VERSION"-*.whl)
  if ! [ -f "${wheels[0]}" ]; then
    echo "dev-env: no llama-cpp-python $LLAMA_VERSION wheel in $LLAMA_WHEEL_DIR" >&2
    exit 1
  fi
  "$PY" -m pip install --quiet --no-deps --force-reinstall "${wheels[0]}"
elif [ "${LLAMA_REINSTALL:-}" = no-cache ]; then
  # Built here with CMAKE_ARGS, past pip's wheel cache (which does not look at them).
  "$PY" -m pip install --quiet --no-deps --force-reinstall --no-cache-dir \
    "llama-cpp-python==$LLAMA_VERSION"
elif [ "${LLAMA_REINSTALL:-}" = cache ]; then
  "$PY" -m pip install --quiet --no-deps --force-reinstall "llama-cpp-python==$LLAMA_VERSION"
fi
"$PY" -m pip install --quiet -e '.[test,transformers]' -c constraints.txt
"$PY" -m pip install --quiet --no-deps "$STARTER"
"$PY" packaging/llama/check_dev_build.py
