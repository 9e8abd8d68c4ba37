#!/usr/bin/env bash
# Copies the extra llama.cpp runtimes (backends/runtimes.py) into a frozen app, as they are.
#
#   bash packaging/add-runtimes.sh APP_DIR RUNTIMES_DIR
#
# After PyInstaller, not through it: its dependency analysis would copy each runtime's
# libraries (and the system's Vulkan loader) a second time beside the app's own, where the
# app's llama.cpp could load them by mistake.  The GPU driver's libraries stay the system's.
set -euo pipefail
APP="$1"
SOURCE="$2"
INTERNAL="$APP/_internal"
[ -d "$INTERNAL" ] || INTERNAL="$APP"
rm -rf "$INTERNAL/runtimes"
for runtime in "$SOURCE"/*/; do
  [ -f "$runtime/runtime.json" ] || continue
  mkdir -p "$INTERNAL/runtimes"
  cp -rL "$runtime" "$INTERNAL/runtimes/$(basename "$runtime")"
  echo "runtime $(basename "$runtime") added"
done
