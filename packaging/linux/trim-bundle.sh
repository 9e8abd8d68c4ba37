#!/usr/bin/env bash
# What the frozen app carries twice or never reads, taken out after PyInstaller (Linux):
#
#   bash packaging/linux/trim-bundle.sh APP_DIR
#
# * A shared library that a wheel installs under three names (libllama.so, .so.0 and
#   .so.0.5.0 are one file in three copies: 15 MB) keeps its full name; the others become
#   links to it, as the system's own libraries are (the .deb and the tarball keep links).
# * Debug information: the interpreter's own libpython and extension modules, built with
#   it, lose it with `strip --strip-debug`, which keeps every symbol the loader looks up.  The bundle is then within its size budget with the standard
#   library whole (the PyTorch engine added after install needs it).
set -euo pipefail
APP="$1"
INTERNAL="$APP/_internal"
[ -d "$INTERNAL" ] || INTERNAL="$APP"
before=$(du -s --block-size=1000000 "$APP" | cut -f1)
# 1. The same library under several names in one folder: one file, the others links.
find "$INTERNAL" -type f -name 'lib*.so.*' | while read -r full; do
  dir=$(dirname "$full")
  stem=$(basename "$full" | sed 's/\.so\..*$/.so/')
  for other in "$dir/$stem" "$dir/$stem".*; do
    [ -f "$other" ] && [ ! -L "$other" ] && [ "$other" != "$full" ] || continue
    # Only a shorter name of the same file: a longer one is the one kept.
    [ "${#other}" -lt "${#full}" ] || continue
    if cmp -s "$other" "$full"; then
      ln -sf "$(basename "$full")" "$other"
    fi
  done
done
# 2. Debug information of the interpreter's own libraries (libpython and its extension
#    modules, built where the app is).  Never a wheel's: auditwheel's patchelf leaves
#    their headers in a shape strip rewrites wrongly ("not page-aligned" at load).
find "$INTERNAL" -maxdepth 1 -type f -name 'libpython*.so*' >/tmp/hearth-strip.$$
find "$INTERNAL"/python3.*/lib-dynload -type f -name '*.so' >>/tmp/hearth-strip.$$ 2>/dev/null || true
while read -r library; do
  if file -b "$library" | grep -q 'ELF.*not stripped'; then
    strip --strip-debug "$library" || echo "could not strip $library"
  fi
done </tmp/hearth-strip.$$
rm -f /tmp/hearth-strip.$$
after=$(du -s --block-size=1000000 "$APP" | cut -f1)
echo "trimmed the bundle: $before MB -> $after MB"
