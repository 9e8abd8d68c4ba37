#!/usr/bin/env bash
# A release's files, ready to attach: the installers found in the given folders are copied
# into OUT with SHA256SUMS (the format `sha256sum -c` and `shasum -a 256 -c` read).
#
#   bash packaging/release-files.sh OUT FOLDER...
#
# The installers: hearth_VERSION_amd64.deb, hearth-VERSION-linux-x86_64.tar.gz,
# HearthSetup-VERSION.exe and Hearth-VERSION.dmg.  Anything else in the folders is left out.
set -euo pipefail
OUT="$1"
shift
mkdir -p "$OUT"
found=0
for folder in "$@"; do
  while IFS= read -r -d '' file; do
    cp "$file" "$OUT/"
    found=$((found + 1))
  done < <(find "$folder" -maxdepth 1 -type f \( -name 'hearth_*_amd64.deb' \
    -o -name 'hearth-*-linux-x86_64.tar.gz' -o -name 'HearthSetup-*.exe' -o -name 'Hearth-*.dmg' \) -print0)
done
[ "$found" -gt 0 ] || { echo "no installers found in: $*"; exit 1; }
cd "$OUT"
# Python rather than sha256sum: the same script runs on macOS and in Git Bash.
"${PYTHON:-$(command -v python3 || command -v python)}" - <<'PY'
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
