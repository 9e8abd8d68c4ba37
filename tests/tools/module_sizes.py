"""``make lint``: no module of Hearth passes 600 lines (split it by responsibility), and the
window (``ui/main_window.py``) stays a shell of at most 400.  Prints each one over, and
exits 1 if there is any."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ("app", "ui", "backends", "wire", "hearth", "packaging")
MOST = 600
LIMITS = {Path("ui/main_window.py"): 400}
GENERATED = {Path("ui/declared_strings.py")}  # written by packaging/translations.py


def too_long(root: Path = ROOT) -> list[str]:
    found = []
    for room in ROOMS:
        for path in sorted((root / room).rglob("*.py")):
            relative = path.relative_to(root)
            if relative in GENERATED:
                continue
            lines = len(path.read_text(encoding="utf-8").splitlines())
            most = LIMITS.get(relative, MOST)
            if lines > most:
                found.append(f"{relative}: {lines} lines (at most {most})")
    return found


def main() -> int:
    found = too_long()
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
