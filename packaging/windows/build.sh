#!/usr/bin/env bash
# Hearth's Windows installer, dist/HearthSetup-VERSION.exe (Inno Setup, per user, no
# administrator rights), in steps so that signing can come between them
# (.github/workflows/release.yml).  Runs in Git Bash, as on GitHub's Windows runners.
#
#   bash packaging/windows/build.sh freeze      # dist/hearth: the app, AVX2 llama.cpp (+ Vulkan)
#   bash packaging/windows/build.sh installer   # dist/HearthSetup-VERSION.exe
#   bash packaging/windows/build.sh self-test   # installs it silently and runs --self-test
#
# The Vulkan runtime (NVIDIA, AMD and Intel GPUs through their usual drivers) is built where
# the Vulkan SDK is installed (VULKAN_SDK set); otherwise the app carries the CPU build only.
set -euo pipefail
# Git Bash turns arguments that look like paths ("/VERYSILENT", "/f") into Windows paths
# when it starts a Windows program; these scripts convert their paths themselves (cygpath).
export MSYS_NO_PATHCONV=1 MSYS2_ARG_CONV_EXCL="*"
cd "$(dirname "$0")/../.."
# shellcheck source=packaging/lib.sh
. packaging/lib.sh
VERSION="$(app_version)"
RUNTIMES=build/runtimes
SETUP="dist/HearthSetup-$VERSION.exe"

# ISCC on the PATH, else the newest Inno Setup (6 or 7, 32- or 64-bit edition) installed.
find_iscc() {
  local found
  found="$(type -P iscc || true)"
  if [ -z "$found" ]; then
    found="$(find "/c/Program Files (x86)" "/c/Program Files" -maxdepth 2 -iname ISCC.exe \
      -path "*Inno Setup [0-9]*" 2>/dev/null | sort -t/ -k4,4V | tail -n 1 || true)"
  fi
  printf '%s' "$found"
}

run_iscc() {
  local tool
  tool="$(find_iscc)"
  if [ -z "$tool" ] && command -v choco >/dev/null; then  # GitHub's runners have Chocolatey
    choco install innosetup --yes --no-progress >/dev/null
    tool="$(find_iscc)"
  fi
  if [ -z "$tool" ]; then
    echo "Inno Setup 6 or 7 is not installed (https://jrsoftware.org/isdl.php)"
    exit 2
  fi
  "$tool" "$@"
}

case "${1:-}" in
  freeze)
    if [ -n "${VULKAN_SDK:-}" ] && ! [ -f "$RUNTIMES/vulkan/runtime.json" ]; then
      bash packaging/llama/build-runtime.sh "$LLAMA_VERSION" vulkan vulkan "$RUNTIMES" \
        "-DGGML_VULKAN=on $LLAMA_PORTABLE_ARGS"
    fi
    HEARTH_LLAMA_ARGS="$LLAMA_PORTABLE_ARGS" bash packaging/freeze.sh build/wheels/portable "$RUNTIMES"
    ;;
  installer)
    test -f dist/hearth/hearth.exe || { echo "dist/hearth is missing: run the freeze step"; exit 2; }
    run_iscc /Q "/DVersion=$VERSION" packaging/windows/hearth.iss
    echo "$SETUP"
    ;;
  self-test)
    # Installed silently into a folder of its own, as a user's double-click would, then the
    # installed app's own check: window, worker, starter model, saved reply, documents.
    # Long names (cygpath -l): mktemp's C:\Users\RUNNER~1 would compare unequal with the
    # long form Hearth resolves its folders to.
    target="$(cygpath -u "$(cygpath -w -l "$(mktemp -d)")")/Hearth"
    data="$(cygpath -u "$(cygpath -w -l "$(mktemp -d)")")"
    "$SETUP" /VERYSILENT /SUPPRESSMSGBOXES /NORESTART /CURRENTUSER "/DIR=$(cygpath -w "$target")"
    # The Windows app has no console: its self-test writes its report to a file as well.
    report="$data/self-test.txt"
    status=0
    QT_QPA_PLATFORM=offscreen HEARTH_DATA_DIR="$(cygpath -w "$data")" \
      HEARTH_SELF_TEST_REPORT="$(cygpath -w "$report")" "$target/hearth.exe" --self-test || status=$?
    cat "$report" 2>/dev/null || echo "the self-test wrote no report"
    exit "$status"
    ;;
  *)
    sed -n '2,12p' "$0"
    exit 2
    ;;
esac
