"""``make lint``: names that exist on one kind of operating system only (``resource``,
``fcntl``, ``os.killpg``, ``signal.SIGKILL``, ``/proc/``…) appear only in the platform room,
``wire/platforms.py``, and in tests marked for the platforms that have them.

Why: each of these ran fine on Linux and broke Windows or macOS the first time it was read
there (a module-level ``import resource`` collected no tests on Windows at all).  Asking the
platform room a question ("end this process tree", "is this the machine's memory limit?")
keeps each difference in one place, documented for all three systems.

The check reads the syntax tree, so a name in a comment or a docstring is fine.  A test
module, class or function may use them when it carries a platform marker
(``posix_only``, ``linux_only``; see ``tests/platform_marks.py``).  Prints each use found,
and exits 1 if there is any.  ``python -m tests.tools.platform_names [ROOT]`` checks another tree.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ("app", "ui", "backends", "wire", "hearth", "packaging", "tests")
PLATFORM_ROOM = {Path("wire/platforms.py"), Path("tests/tools/platform_names.py")}  # and this

# Tools that only ever run on Linux, each with the reason.
LINUX_TOOLS = {
    # The GPU check kit runs on the lent Linux machine with NVIDIA's driver.
    Path("packaging/gpu_kit.py"),
    Path("packaging/gpu_check"),
    # Builds the Linux AppImage's and .deb's runtime.
    Path("packaging/linux"),
    # Keeps every CPU busy for make test-under-load (stress-ng, CI's Linux machines).
    Path("tests/tools/under_load.py"),
}

MODULES = {"resource", "fcntl", "termios", "pty"}
ATTRIBUTES = {
    "os": {"killpg", "getpgid", "setsid", "getuid", "geteuid", "mkfifo", "fork", "setpgrp"},
    "signal": {"SIGKILL", "SIGSTOP", "SIGCONT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"},
}
KEYWORDS = {"preexec_fn", "start_new_session"}
PATH_PREFIXES = ("/proc/", "/sys/")
PLATFORM_MARKERS = {"posix_only", "linux_only"}


def _names_in(node: ast.AST) -> set[str]:
    return {
        str(getattr(each, "attr", None) or getattr(each, "id", None)) for each in ast.walk(node)
    }


def _marks(tree: ast.Module) -> tuple[bool, set[str]]:
    """Whether the module is marked (``pytestmark = pytest.mark.posix_only(...)``), and the
    module-level names that stand for a platform mark (``NEEDS_FIFO = ...posix_only(...)``)."""
    aliases, whole = set(PLATFORM_MARKERS), False
    for statement in tree.body:
        if not isinstance(statement, ast.Assign) or not _names_in(statement.value) & aliases:
            continue
        for target in statement.targets:
            name = getattr(target, "id", "")
            whole = whole or name == "pytestmark"
            aliases.add(name)
    return whole, aliases


def _marked(node: ast.AST, marks: set[str]) -> bool:
    """A test function or class carries a platform mark, as ``@pytest.mark.posix_only(…)``
    or a name that stands for one."""
    for decorator in getattr(node, "decorator_list", []):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in marks:
            return True
    return False


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of every docstring's node (a path in prose is not a use)."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            found.add(id(first.value))
    return found


def _uses(node: ast.AST, docstrings: set[int]) -> Iterator[tuple[int, str]]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] in MODULES:
                yield node.lineno, f"import {alias.name}"
    elif isinstance(node, ast.ImportFrom) and node.module:
        if node.module.split(".")[0] in MODULES:
            yield node.lineno, f"from {node.module} import"
        for alias in node.names:
            if alias.name in ATTRIBUTES.get(node.module, set()):
                yield node.lineno, f"from {node.module} import {alias.name}"
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.attr in ATTRIBUTES.get(node.value.id, set()):
            yield node.lineno, f"{node.value.id}.{node.attr}"
    elif isinstance(node, ast.keyword) and node.arg in KEYWORDS:
        yield node.value.lineno, f"{node.arg}="
    elif (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and node.value.startswith(PATH_PREFIXES)
    ):
        yield node.lineno, repr(node.value)


def uses_in(source: str) -> list[tuple[int, str]]:
    """Each use of a one-platform name in ``source`` outside a platform-marked test."""
    tree = ast.parse(source)
    whole, marks = _marks(tree)
    if whole:
        return []
    docstrings = _docstrings(tree)
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if _marked(node, marks):
            return
        found.extend(_uses(node, docstrings))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return sorted(found)


def _allowed(relative: Path) -> bool:
    if relative in PLATFORM_ROOM:
        return True
    return any(relative == tool or tool in relative.parents for tool in LINUX_TOOLS)


def outside_the_room(root: Path = ROOT) -> list[str]:
    found = []
    for room in ROOMS:
        for path in sorted((root / room).rglob("*.py")):
            relative = path.relative_to(root)
            if _allowed(relative):
                continue
            for line, what in uses_in(path.read_text(encoding="utf-8")):
                where = f"{relative.as_posix()}:{line}"
                found.append(f"{where}: {what} (ask wire/platforms.py instead)")
    return found


def main(argv: list[str]) -> int:
    found = outside_the_room(Path(argv[0]) if argv else ROOT)
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
