#!/usr/bin/env bash
# The Debian/Ubuntu packages that building and testing the Vulkan llama.cpp runtime needs:
# the shader compiler, the Vulkan loader's headers, SPIR-V headers, and Mesa's drivers
# (lavapipe, a Vulkan device on the CPU, is what the tests run on), and the libraries Qt
# needs even offscreen (present on desktops, not always on CI images).  Installs only what
# is missing; CI runs it before `make test` (.ci/run).
set -euo pipefail
PACKAGES=(glslc libvulkan-dev spirv-headers mesa-vulkan-drivers
  libegl1 libgl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libxcb-cursor0)
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO="sudo"
fi
echo "installing ${missing[*]}"
$SUDO apt-get install -y -q "${missing[@]}" >/dev/null \
  || { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q "${missing[@]}" >/dev/null; }
