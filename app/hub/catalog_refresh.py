"""The catalogue checked against the hub: today's file names and sizes of its models.

The catalogue ships with Hearth and works offline, but a repository may rename its files
or re-upload them at another size after a release.  A check lists each entry's
repository once (on the hub the user prefers, the other one when the first lacks it) and
keeps what it found in the data folder (``catalog-hub.json``): the recommended file's
name and size.  ``with_hub_facts`` lays those over the shipped entries, so the cards,
their fit verdicts and ``hearth models catalog`` show today's figures, offline too.

Nothing is asked of a hub unless the user asked: the check runs when they press *Check
the hub* (or ``hearth models catalog --refresh``), or once a day when they allowed it in
Settings (``hub.refresh_catalog``, off by default).  Offline, the check fails at once in
words and the last facts (or the shipped ones) stay; a damaged facts file is set aside.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core import Core
from app.errors import HearthError
from app.hub.catalog import CatalogEntry
from app.hub.reachable import check_reachable
from app.hub.sources import HF, MODELSCOPE, hf_endpoint, modelscope_endpoint
from app.json_document import JsonDocument
from wire.phrases import Phrase

log = logging.getLogger(__name__)

FACTS_FILE = "catalog-hub.json"
ONCE_A_DAY_S = 24 * 3600.0


@dataclass(frozen=True)
class HubFile:
    """An entry's recommended file as the hub had it at the check."""

    source: str
    repo: str
    file: str
    size_bytes: int


@dataclass
class HubFacts:
    checked_at: float = 0.0  # seconds since 1970; 0: never
    files: dict[str, HubFile] = field(default_factory=dict)  # by entry name
    problems: dict[str, str] = field(default_factory=dict)  # entries the check could not find

    def to_json(self) -> dict[str, Any]:
        return {
            "checked_at": self.checked_at,
            "files": {name: dataclasses.asdict(f) for name, f in self.files.items()},
            "problems": dict(self.problems),
        }


def _facts_of(document: dict[str, Any]) -> HubFacts:
    """A stored document as facts; anything malformed raises (and the file is set aside)."""
    checked = float(document["checked_at"])
    files = {}
    for name, raw in dict(document["files"]).items():
        found = HubFile(
            str(raw["source"]), str(raw["repo"]), str(raw["file"]), int(raw["size_bytes"])
        )
        if found.size_bytes <= 0 or found.source not in (HF, MODELSCOPE) or not found.file:
            raise ValueError(f"{name}: not a file a hub lists")
        files[str(name)] = found
    problems = {str(k): str(v) for k, v in dict(document.get("problems", {})).items()}
    return HubFacts(checked, files, problems)


def _document(data_dir: Path) -> JsonDocument:
    return JsonDocument(data_dir / FACTS_FILE, Phrase("facts about the catalogue's models"))


def load_facts(data_dir: Path) -> HubFacts:
    """The last check's facts (none yet, or a damaged file: empty facts)."""
    return _document(data_dir).load(_facts_of) or HubFacts()


def with_hub_facts(entries: list[CatalogEntry], facts: HubFacts) -> list[CatalogEntry]:
    """The entries with the file names and sizes the last check found."""
    result = []
    for entry in entries:
        found = facts.files.get(entry.name)
        result.append(
            entry
            if found is None
            else dataclasses.replace(entry, file=found.file, size_bytes=found.size_bytes)
        )
    return result


def due(facts: HubFacts, now: float | None = None) -> bool:
    """Whether a daily check is due (never checked, or over a day ago, or a clock that
    went back)."""
    now = time.time() if now is None else now
    return not 0 <= now - facts.checked_at < ONCE_A_DAY_S


def check_hub(
    core: Core,
    entries: list[CatalogEntry],
    source: str,
    progress: Callable[[int, int], None] | None = None,
) -> HubFacts:
    """List every entry's repository and keep its recommended file's name and size.

    HearthError, and the stored facts untouched, when the preferred hub cannot be reached
    at all; an entry that cannot be found is kept as shipped and named in ``problems``."""
    from app.hub.pull import plan_catalog

    endpoint = modelscope_endpoint(core) if source == MODELSCOPE else hf_endpoint(core)
    hub_name = "ModelScope" if source == MODELSCOPE else "Hugging Face"
    check_reachable(endpoint, hub_name)
    facts = HubFacts(time.time())
    for done, entry in enumerate(entries):
        if progress is not None:
            progress(done, len(entries))
        try:
            where, repo, plan = plan_catalog(core, entry, source)
        except HearthError as exc:
            # The network may have gone away meanwhile: then stop, keeping the last facts,
            # rather than wait for every repository's retries.
            check_reachable(endpoint, hub_name, remembered=False)
            log.info("catalogue check: %s: %s", entry.name, exc)
            facts.problems[entry.name] = str(exc)
            continue
        size = sum(f.size for f in plan.files)
        if not plan.files or size <= 0:
            facts.problems[entry.name] = f"{repo} lists no size for {entry.file}"
            continue
        name = plan.files[0].path.rsplit("/", 1)[-1] if len(plan.files) == 1 else entry.file
        facts.files[entry.name] = HubFile(where, repo, name, size)
    if not facts.files and facts.problems:
        # Reachable, yet nothing found: more likely a hub that fails than a catalogue
        # that vanished; keep what was known.
        raise HearthError(
            Phrase(
                "The hub answered, but none of the catalogue's models could be checked ({0}).",
                next(iter(facts.problems.values())),
            )
        )
    _document(core.paths.data_dir).save(facts.to_json())
    return facts


def summary(facts: HubFacts, entries: int) -> str:
    """A line for the catalogue: when its figures were checked, and what was not found."""
    if not facts.checked_at:
        return Phrase("Sizes as shipped with Hearth.")
    day = time.strftime("%Y-%m-%d", time.localtime(facts.checked_at))
    if facts.problems:
        return Phrase(
            "Checked on the hub on {0}: {1} of {2} models found.", day, len(facts.files), entries
        )
    return Phrase("Checked on the hub on {0}.", day)


def current_catalog(data_dir: Path) -> tuple[list[CatalogEntry], HubFacts]:
    """The shipped catalogue with the last check's facts laid over it, and those facts."""
    from app.hub.catalog import load_catalog

    facts = load_facts(data_dir)
    return with_hub_facts(load_catalog(), facts), facts
