"""``make lint``: what the build and release scripts in ``packaging/`` may import, as the
import contracts say it for Hearth's own rooms (``pyproject.toml``).  ``packaging/`` is no
Python package (the name is a PyPI library's), so import-linter cannot see it: each script
is read here instead, its imports in functions included.  The standard library is always
allowed, and so is the kit's own ``gpu_check``."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Script (or folder) -> the packages it may import.
ALLOWED: dict[str, tuple[str, ...]] = {
    # Reads the strings built from data: the settings declaration, presets, engines.
    "packaging/translations.py": ("app.settings", "app.chat.presets", "app.engines"),
    # Draws the icons with the renderer the window uses; Pillow packs .ico and .icns.
    "packaging/icons.py": ("PySide6", "PIL"),
    # Writes the PyTorch engine's lock file: picks each wheel by the target's tags.
    "packaging/engines/lock_pytorch.py": ("packaging.tags", "packaging.utils"),
    # The GPU check runs Hearth as a user runs it (its engine host, its library) and
    # makes its test models with the machine's own torch, transformers and gguf.
    "packaging/gpu_kit.py": ("gpu_check", "app.models", "transformers", "gguf"),
    "packaging/gpu_check": (
        "gpu_check",
        "app.engine",
        "app.machine",  # the facts a runtime pack is chosen by
        "app.packs",  # a runtime pack installed as the app installs one
        "wire",
        "numpy",
        "torch",
        "transformers",
        "gguf",
    ),
}


def imported(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports (with its line), inside functions too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
    return found


def allowed_for(relative: str) -> tuple[str, ...]:
    for key, names in ALLOWED.items():
        if relative == key or relative.startswith(key + "/"):
            return names
    return ()


def illegal(root: Path = ROOT) -> list[str]:
    problems = []
    for path in sorted((root / "packaging").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        names = allowed_for(relative)
        for line, module in imported(path):
            top = module.split(".")[0]
            if top in sys.stdlib_module_names or top == "__future__":
                continue
            if any(module == name or module.startswith(name + ".") for name in names):
                continue
            problems.append(f"{relative}:{line} imports {module}")
    return problems


def main() -> int:
    problems = illegal()
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
