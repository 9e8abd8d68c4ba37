"""One way to keep a JSON state file: read with repair, versioned, written atomically.

Hearth keeps its settings, presets, per-model settings, server endpoints and download queue
in small JSON files.  Each goes through ``JsonDocument`` so that all of them behave alike:

* written through a temporary file and a rename: a crash or a full disk leaves the old file
  whole, never half of the new one;
* a ``version`` in the document and ``migrations`` from each older version to the next, so
  an update never loses a user's choices (a file without a version is
  ``unversioned``);
* a damaged file (not UTF-8, not JSON, numbers such as ``Infinity``, nested absurdly deep,
  or failing the owner's ``check``) is moved aside, never deleted, and ``problem`` says so
  in a sentence the window can show; the owner goes on with its defaults.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from app.files import open_regular, write_text_atomically
from wire.phrases import Phrase

log = logging.getLogger(__name__)

T = TypeVar("T")
Migration = Callable[[dict[str, Any]], dict[str, Any]]
MAX_BYTES = 64 * 1024 * 1024  # no state file of Hearth's is anywhere near this


class Damaged(ValueError):
    """The document cannot be used as it is (raised by ``check`` functions too)."""


def _no_constants(name: str) -> float:
    raise Damaged(f"{name} is not a number Hearth accepts")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise Damaged(f"{text} is not a number Hearth accepts")
    return value


def parse_json(raw: bytes) -> Any:
    """JSON from a file Hearth did not write itself or cannot trust (a model's config, a
    header, a state file): any problem (not UTF-8, ``NaN``/``Infinity``/``1e999``, nested
    too deep for the parser) is a ``Damaged`` error, never another exception."""
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constants, parse_float=_finite)
    except Damaged:
        raise
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise Damaged(
            str(exc) if not isinstance(exc, RecursionError) else "nested too deeply"
        ) from exc


def read_json_object(path: Path, max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """A JSON object from ``path``; OSError when it cannot be read, ``Damaged`` when it is
    not a JSON object of at most ``max_bytes``."""
    with open_regular(path) as handle:
        raw = handle.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise Damaged(f"{path.name} is far too large")
    value = parse_json(raw)
    if not isinstance(value, dict):
        raise Damaged(f"{path.name} does not hold a JSON object")
    return value


class JsonDocument:
    def __init__(
        self,
        path: Path,
        what: str,
        version: int = 1,
        migrations: Mapping[int, Migration] | None = None,
        unversioned: int = 1,
    ) -> None:
        self.path = path
        self.what = what  # for sentences: "Your {what} could not be read"
        self.version = version
        self.migrations = dict(migrations or {})
        self.unversioned = unversioned
        self.problem = ""  # a sentence about what a load repaired (kept until shown)

    def load(self, check: Callable[[dict[str, Any]], T]) -> T | None:
        """The document turned into the owner's data by ``check``, migrated to the current
        version; None when there is none or it was damaged (see ``problem``)."""
        try:
            facts = self.path.stat()
            if not stat.S_ISREG(facts.st_mode):  # a FIFO would block every command
                raise Damaged("not a regular file")
            if facts.st_size > MAX_BYTES:
                raise Damaged("the file is far too large")
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except Damaged as exc:
            self._set_aside(exc)
            return None
        except OSError as exc:
            log.warning("cannot read %s", self.path, exc_info=True)
            self.problem = Phrase(
                "Hearth could not read its {0} ({1}); it uses the defaults for now.",
                self.what,
                exc.strerror or exc,
            )
            return None
        try:
            document = parse_json(raw)
            if not isinstance(document, dict):
                raise Damaged("not a JSON object")
            version = document.get("version", self.unversioned)
            if isinstance(version, bool) or not isinstance(version, int) or version < 0:
                raise Damaged("its version is not a whole number")
            if version > self.version:
                log.warning("%s was written by a newer Hearth (version %s)", self.path, version)
            for number in range(version, self.version):
                step = self.migrations.get(number)
                if step is not None:
                    document = step(dict(document))
            return check(document)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            self._set_aside(exc)
            return None

    def save(self, document: dict[str, Any]) -> None:
        """Write ``document`` (with this version) atomically."""
        text = json.dumps({"version": self.version, **document}, indent=2, ensure_ascii=False)
        write_text_atomically(self.path, text)

    def _set_aside(self, exc: BaseException) -> None:
        aside = self.path.with_name(f"{self.path.name}.damaged-{int(time.time())}")
        try:
            os.replace(self.path, aside)
        except OSError:
            log.warning("could not move the damaged %s aside", self.path, exc_info=True)
            aside = self.path
        log.warning("%s was damaged (%s); kept as %s", self.path, exc, aside.name)
        self.problem = Phrase(
            "Your {0} could not be read (the file was damaged), so Hearth uses the defaults. "
            "The damaged file was kept as {1}.",
            self.what,
            aside.name,
        )
