#!/usr/bin/env bash
# A release's files, ready to attach: the installers and runtime packs found in the given
# folders are copied into OUT with SHA256SUMS (the format `sha256sum -c` and
# `shasum -a 256 -c` read).
#
#   bash packaging/release-files.sh OUT FOLDER...
#
# The installers: hearth_VERSION_amd64.deb, hearth-VERSION-linux-x86_64.tar.gz,
# HearthSetup-VERSION.exe and Hearth-VERSION.dmg.  The llama.cpp runtime packs
# (packaging/llama/build-cuda-pack.sh): each hearth-runtime-*.zip, and their one-pack
# manifests joined into the one the app reads, hearth-runtime-packs.json.  Anything else in
# the folders is left out.
set -euo pipefail
OUT="$1"
shift
PY="${PYTHON:-$(command -v python3 || command -v python)}"
MAKE_PACK="$(cd "$(dirname "$0")" && pwd)/llama/make-pack.py"
mkdir -p "$OUT"
found=0
for folder in "$@"; do
  while IFS= read -r -d '' file; do
    cp "$file" "$OUT/"
    found=$((found + 1))
  done < <(find "$folder" -maxdepth 1 -type f \( -name 'hearth_*_amd64.deb' \
    -o -name 'hearth-*-linux-x86_64.tar.gz' -o -name 'HearthSetup-*.exe' -o -name 'Hearth-*.dmg' \
    -o -name 'hearth-runtime-*.zip' -o \( -name 'hearth-runtime-*.json' \
    ! -name 'hearth-runtime-packs.json' \) \) -print0)
done
[ "$found" -gt 0 ] || { echo "no installers found in: $*"; exit 1; }
cd "$OUT"
shopt -s nullglob
manifests=()
for manifest in hearth-runtime-*.json; do
  [ "$manifest" = hearth-runtime-packs.json ] || manifests+=("$manifest")
done
if [ "${#manifests[@]}" -gt 0 ]; then
  "$PY" "$MAKE_PACK" merge hearth-runtime-packs.json "${manifests[@]}"
  rm -f "${manifests[@]}"
fi
# Python rather than sha256sum: the same script runs on macOS and in Git Bash.
"$PY" - <<'PY'
import hashlib
from pathlib import Path

lines = []
for path in sorted(Path(".").iterdir()):
    if path.is_file() and path.name != "SHA256SUMS":
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        lines.append(f"{digest.hexdigest()}  {path.name}\n")
Path("SHA256SUMS").write_text("".join(lines))
print("".join(lines), end="")
PY
