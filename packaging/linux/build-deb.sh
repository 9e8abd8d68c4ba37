#!/usr/bin/env bash
# Build the Linux packages from the PyInstaller folder in dist/hearth:
#   dist/hearth_VERSION_amd64.deb  (installs into /opt/hearth, `hearth` on the PATH,
#                                   a desktop entry and icon; removes cleanly)
#   dist/hearth-VERSION-linux-x86_64.tar.gz  (portable: unpack and run ./hearth/hearth)
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION="$(python3 -c 'import re;print(re.search(r"__version__ = \"(.+?)\"", open("app/__init__.py").read()).group(1))')"
test -x dist/hearth/hearth || { echo "dist/hearth is missing: run 'make dist'"; exit 2; }
STAGE="build/deb/hearth_${VERSION}_amd64"
rm -rf "$STAGE"
mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
         "$STAGE/usr/share/icons/hicolor/scalable/apps"
cp -a dist/hearth "$STAGE/opt/hearth"
ln -s /opt/hearth/hearth "$STAGE/usr/bin/hearth"
cp packaging/linux/hearth.desktop "$STAGE/usr/share/applications/hearth.desktop"
cp resources/icons/hearth.svg "$STAGE/usr/share/icons/hicolor/scalable/apps/hearth.svg"
# The same drawing at fixed sizes (packaging/icons.py, `make icons`), for desktops and
# docks that do not draw SVG icons.
test -f build/icons/hearth.ico || { echo "build/icons is missing: run 'make icons'"; exit 2; }
cp -r build/icons/hicolor "$STAGE/usr/share/icons/"
SIZE_KB="$(du -sk "$STAGE" | cut -f1)"
cat > "$STAGE/DEBIAN/control" <<CONTROL
Package: hearth
Version: ${VERSION}
Section: utils
Priority: optional
Architecture: amd64
Installed-Size: ${SIZE_KB}
Depends: libegl1, libgl1, libfontconfig1, libfreetype6, libxkbcommon0, libxkbcommon-x11-0, libx11-6, libx11-xcb1, libxcb1, libxcb-cursor0, libxcb-icccm4, libxcb-keysyms1, libxcb-image0, libxcb-render0, libxcb-render-util0, libxcb-randr0, libxcb-shape0, libxcb-shm0, libxcb-sync1, libxcb-util1, libxcb-xfixes0, libxcb-xkb1, libdbus-1-3
Maintainer: Hearth developers <hearth@localhost>
Description: Private, offline chat with open language models
 Hearth runs open language models (GGUF through llama.cpp) on this computer, with
 nothing leaving the machine. It bundles a small starter model.
CONTROL
dpkg-deb --build --root-owner-group "$STAGE" "dist/hearth_${VERSION}_amd64.deb" >/dev/null
tar -C dist -czf "dist/hearth-${VERSION}-linux-x86_64.tar.gz" hearth
echo "dist/hearth_${VERSION}_amd64.deb"
echo "dist/hearth-${VERSION}-linux-x86_64.tar.gz"
