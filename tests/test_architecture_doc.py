"""docs/ARCHITECTURE.md stays true: every file, module, class and function it names in
backticks exists.  What it may name:

* a path in the repository (``app/engine/host.py``, ``tests/hostile/``);
* a module, or a name in one (``app.serve.pipeline``, ``app.errors.describe_error``);
* a class, or a method or attribute of one (``EngineHost``, ``Lease.release``);
* a function or a constant, or a name of the protocol (``describe_error``,
  ``runtime_chosen``): a name with an underscore must be defined, or be a string, somewhere
  in Hearth's code.

A class that two modules of the product define (``Reply``: the API's and the chat's) is
named with its module (``app.chat.reply.Reply``), or with one of its files named in the
same line or the next: a bare name would let a sentence about one pass for the other.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from tests.conftest import REPO

DOC = REPO / "docs" / "ARCHITECTURE.md"
ROOMS = ("app", "ui", "backends", "wire", "hearth", "packaging", "tests", "resources", "docs")
CODE = ("app", "ui", "backends", "wire", "hearth", "packaging", "tests")
PRODUCT = ("app", "ui", "backends", "wire", "hearth", "packaging")
# Names of other projects the page speaks of.
FOREIGN = {"QTextDocument", "PySide6", "FastAPI", "SQLite", "FTS5", "PyInstaller"}
TICKED = re.compile(r"`([^`\n]+)`")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def definitions() -> tuple[dict[str, set[str]], set[str]]:
    """Every class with the names defined in it, and every other name defined anywhere
    (functions, module-level and class-level assignments) or written as a string."""
    classes: dict[str, set[str]] = {}
    names: set[str] = set()
    for room in CODE:
        for path in (REPO / room).rglob("*.py"):
            if path == Path(__file__):
                continue  # the names this test expects not to find
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    members = classes.setdefault(node.name, set())
                    for item in ast.walk(node):
                        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                            members.add(item.name)
                        elif isinstance(item, ast.Name | ast.arg):
                            members.add(item.id if isinstance(item, ast.Name) else item.arg)
                        elif isinstance(item, ast.Attribute):
                            members.add(item.attr)
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(node.name)
                elif isinstance(node, ast.Name):
                    names.add(node.id)
                elif isinstance(node, ast.Attribute):
                    names.add(node.attr)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    names.add(node.value)
    return classes, names


@cache
def class_homes() -> dict[str, set[str]]:
    """Each class name of the product, with the files (``app/chat/reply.py``) that define
    one of that name."""
    homes: dict[str, set[str]] = {}
    for room in PRODUCT:
        for path in (REPO / room).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    homes.setdefault(node.name, set()).add(path.relative_to(REPO).as_posix())
    return homes


def ambiguous(token: str, context: str) -> str | None:
    """Why a bare class name in ``context`` (its line and the next) does not say which of
    the classes of that name it means; None when it is one class, or is qualified."""
    head = token.removesuffix("()").split(".")[0]
    homes = class_homes().get(head, set())
    if len(homes) < 2:
        return None
    spoken = {home for home in homes if home in context or home[:-3].replace("/", ".") in context}
    if spoken:
        return None
    return f"{len(homes)} modules define {head} ({', '.join(sorted(homes))}): name its module"


def module_file(dotted: str) -> Path | None:
    """The file (or package) of a dotted module name, if there is one."""
    path = REPO.joinpath(*dotted.split("."))
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


def problem(token: str) -> str | None:
    """Why ``token`` names nothing that exists (None when it does, or names no code)."""
    classes, names = definitions()
    word = token.removesuffix("()")
    if "<" in word or "*" in word or " " in word:
        return None
    if "/" in word and word.split("/")[0] in ROOMS:
        if (REPO / word).exists():
            return None
        file, _, name = word.rpartition(".")  # ui/background.run_in_background
        if (REPO / f"{file}.py").is_file():
            return None if name in names else f"{name} is not defined in {file}.py"
        return "no such file"
    if word.endswith(".py") and "/" not in word:  # a module's file named in its folder's row
        somewhere = any(next((REPO / room).rglob(word), None) for room in CODE)
        return None if somewhere else "no such file"
    if "." in word and word.split(".")[0] in ROOMS and "/" not in word:
        parts = word.split(".")
        for cut in range(len(parts), 0, -1):
            found = module_file(".".join(parts[:cut]))
            if found is not None:
                rest = parts[cut:]
                if rest and rest[0] not in names:
                    return f"{rest[0]} is not defined in {found.relative_to(REPO)}"
                return None
        return "no such module"
    if not all(IDENTIFIER.fullmatch(part) for part in word.split(".")):
        return None
    head, *rest = word.split(".")
    if head[0].isupper() and any(c.islower() for c in head) and head not in FOREIGN:
        if head not in classes:
            return None if head in names and not rest else "no such class"
        if rest and rest[0] not in classes[head]:
            return f"{head} has no {rest[0]}"
        return None
    if "_" in head.strip("_") and len(word.split(".")) == 1 and head not in names:
        return "not defined anywhere"
    return None


def test_every_name_in_the_architecture_page_exists() -> None:
    wrong = {}
    for token in TICKED.findall(DOC.read_text(encoding="utf-8")):
        why = problem(token.strip())
        if why:
            wrong[token] = why
    assert wrong == {}


def test_a_class_that_two_modules_define_is_named_with_its_module() -> None:
    lines = DOC.read_text(encoding="utf-8").splitlines()
    wrong = {}
    for number, line in enumerate(lines):
        context = "\n".join(lines[number : number + 2])
        for token in TICKED.findall(line):
            if "/" in token or "." in token.removesuffix("()").split(".")[0]:
                continue
            why = ambiguous(token.strip(), context)
            if why:
                wrong[f"{number + 1}: {token}"] = why
    assert wrong == {}


def test_a_bare_name_of_two_classes_is_found() -> None:
    """The check itself: ``Reply`` alone is two classes; with its file named it is one."""
    assert ambiguous("Reply", "the `Reply` streams") is not None
    assert ambiguous("Reply", "its `Reply` (`app/chat/reply.py`)") is None
    assert ambiguous("Lease", "a `Lease`") is None


def test_a_name_that_is_gone_is_found() -> None:
    """The check itself: names that do not exist are caught, names that do are not."""
    assert problem("app/engine_client.py") == "no such file"
    assert problem("app.serve.model_pool") is not None
    assert problem("wire.protocols") is not None
    assert problem("engine_client.py") == "no such file"
    assert problem("app.errors.explain_error") is not None
    assert problem("EngineClient") == "no such class"
    assert problem("Lease.renew") == "Lease has no renew"
    assert problem("describe_errors") == "not defined anywhere"
    for real in ("app/engine/host.py", "app.errors.describe_error", "Lease.release", "serves"):
        assert problem(real) is None, real
