#!/usr/bin/env bash
# The whole test suite, with the set-up it needs, without make: what CI runs on macOS and
# Windows (Linux runs `make test`, which adds the linters and the Vulkan runtime).
#
#   bash packaging/ci-test.sh [PYTEST ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=packaging/lib.sh
. packaging/lib.sh
# pip's cache travels between CI machines: build llama.cpp for any of them, not this one.
CMAKE_ARGS="${CMAKE_ARGS:-$(default_llama_args)}" bash packaging/dev-env.sh .venv
PY="$(venv_python .venv)"
"$PY" packaging/translations.py compile
# Qt's offscreen platform on Windows reads fonts only from its own folder, which PySide6
# ships empty: the text of the window's tests would be drawn as boxes.
case "$(uname -s)" in
  MINGW* | MSYS* | CYGWIN*) export QT_QPA_FONTDIR="${QT_QPA_FONTDIR:-${WINDIR:-C:\\Windows}\\Fonts}" ;;
esac
QT_QPA_PLATFORM=offscreen "$PY" -m pytest "$@"
