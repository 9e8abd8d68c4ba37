#!/usr/bin/env bash
# Hearth.app and dist/Hearth-VERSION.dmg on macOS (Apple Silicon or Intel), in steps so
# that signing and notarisation can come between them (.github/workflows/release.yml).
#
#   bash packaging/macos/build-app.sh freeze      # dist/Hearth.app (llama.cpp with Metal)
#   bash packaging/macos/build-app.sh dmg         # dist/Hearth-VERSION.dmg
#   bash packaging/macos/build-app.sh self-test   # mounts the .dmg, runs the app's --self-test
#
# Needs Python 3.11+ and Xcode's command line tools.  llama.cpp builds with Metal by default
# on Apple Silicon; its CPU code is kept portable (no -march=native).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=packaging/lib.sh
. packaging/lib.sh
VERSION="$(app_version)"
DMG="dist/Hearth-$VERSION.dmg"
MACOS_MINIMUM=13.0  # Qt 6.10 and later need macOS 13 (keep LSMinimumSystemVersion alike)

case "${1:-}" in
  freeze)
    # Built for the oldest macOS the bundled Qt supports, as Info.plist says (hearth.spec).
    MACOSX_DEPLOYMENT_TARGET="$MACOS_MINIMUM" HEARTH_LLAMA_ARGS="-DGGML_NATIVE=OFF" \
      bash packaging/freeze.sh "build/wheels/macos-$(uname -m)"
    ;;
  dmg)
    test -d dist/Hearth.app || { echo "dist/Hearth.app is missing: run the freeze step"; exit 2; }
    # The usual layout: the app beside a link to /Applications, to drag it onto.
    stage="$(mktemp -d)/Hearth"
    mkdir -p "$stage"
    cp -R dist/Hearth.app "$stage/"
    ln -s /Applications "$stage/Applications"
    rm -f "$DMG"
    # hdiutil fails now and then with "Resource busy" on a busy machine: tried a few times.
    for attempt in 1 2 3 4 5; do
      if hdiutil create -volname Hearth -srcfolder "$stage" -ov -format UDZO "$DMG"; then
        break
      fi
      [ "$attempt" -lt 5 ] || exit 1
      echo "hdiutil failed (attempt $attempt of 5); trying again"
      sleep $((attempt * 5))
    done
    echo "$DMG"
    ;;
  self-test)
    # From the disk image, as a user would open it: window, worker, model, reply, documents.
    mount="$(mktemp -d)"
    hdiutil attach -nobrowse -readonly -mountpoint "$mount" "$DMG" >/dev/null
    trap 'hdiutil detach "$mount" >/dev/null || true' EXIT
    QT_QPA_PLATFORM=offscreen HEARTH_DATA_DIR="$(mktemp -d)" \
      "$mount/Hearth.app/Contents/MacOS/hearth" --self-test
    ;;
  *)
    sed -n '2,11p' "$0"
    exit 2
    ;;
esac
