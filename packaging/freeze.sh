#!/usr/bin/env bash
# The frozen app (PyInstaller, packaging/hearth.spec) in dist/, from a virtual environment
# of its own (.venv-dist: no torch, no test tools) with the installers' llama.cpp build.
# The same steps on every system: `make dist` on Linux, packaging/windows/build.sh and
# packaging/macos/build-app.sh elsewhere.
#
#   bash packaging/freeze.sh WHEELS [RUNTIMES]
#
# WHEELS: the folder of the installers' llama-cpp-python wheel.  When it holds none, one is
# built there with CMAKE_ARGS="$HEARTH_LLAMA_ARGS" (without pip's cache, which would hand
# back a build with other flags).  RUNTIMES: a folder of extra llama.cpp runtimes
# (backends/runtimes.py) that the app carries; may be absent.  HEARTH_RELEASES_REPOSITORY
# (owner/name on GitHub): where the app looks for newer releases, when the user allows it.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=packaging/lib.sh
. packaging/lib.sh
WHEELS="$1"
RUNTIMES="${2:-}"
PY="$(ensure_venv .venv-dist)"
"$PY" -m pip install --quiet --upgrade pip
PYTHON="$PY" bash packaging/llama/portable-wheel.sh "$WHEELS"
"$PY" -m pip install --quiet "$WHEELS"/llama_cpp_python-*.whl
"$PY" -m pip install --quiet . "pyinstaller>=6,<7" "pillow>=10.1"
"$PY" -m pip install --quiet --no-deps "$STARTER"
QT_QPA_PLATFORM=offscreen "$PY" packaging/icons.py build/icons >/dev/null
"$PY" packaging/translations.py compile
# Where this build's releases are published (app/updates.py): the release workflow names
# its repository; other builds have nothing to check for updates.
rm -f build/release.json
if [ -n "${HEARTH_RELEASES_REPOSITORY:-}" ]; then
  mkdir -p build
  printf '{"repository": "%s"}\n' "$HEARTH_RELEASES_REPOSITORY" >build/release.json
fi
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN --distpath dist \
  --workpath build/pyinstaller packaging/hearth.spec
if [ -n "$RUNTIMES" ] && [ -d "$RUNTIMES" ]; then
  bash packaging/add-runtimes.sh dist/hearth "$RUNTIMES"
fi
if [ "$(uname -s)" = Linux ]; then
  bash packaging/linux/trim-bundle.sh dist/hearth  # one copy of each library, no debug info
fi
