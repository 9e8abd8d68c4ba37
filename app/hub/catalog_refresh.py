"""The catalogue checked against the hub: today's file names and sizes of its models.

The catalogue ships with Hearth and works offline, but a repository may rename its files
or re-upload them at another size after a release.  A check lists each entry's
repository once, on the hub the user prefers only (ModelScope on a Chinese locale, else
Hugging Face), without any token or saved login (the repositories are public, and the
check is not the user's business with the hub), and keeps what it found in the data
folder (``catalog-hub.json``): the recommended file's name and size, and which shipped
entry it was checked against.  ``with_hub_facts`` lays the facts over the shipped entries
only where the entry is still the one checked (a new release may have moved an entry to
another repository or quantization), so the cards, their fit verdicts, downloads and
``hearth models catalog`` use today's figures, offline too.

Nothing is asked of a hub unless the user asked: the check runs when they press *Check
the hub* (or ``hearth models catalog --refresh``), or once a day when they allowed it in
Settings (``hub.refresh_catalog``, off by default).  Faults lose nothing:

* offline, or the network gone in the middle: the check stops at once, in words, and
  the last facts stay;
* a repository that fails for a moment keeps yesterday's fact; only a repository or file
  the hub says is not there loses it;
* a damaged facts file is set aside and said (``HubFacts.problem``); the shipped
  catalogue is used meanwhile.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from app.errors import HearthError
from app.hub.catalog import CatalogEntry
from app.hub.reachable import check_reachable
from app.hub.repo_files import SHARD_PATTERN, RepoFile, group_files
from app.hub.sources import HF, MODELSCOPE, hf_endpoint, modelscope_endpoint
from app.json_document import JsonDocument
from app.settings import Settings
from wire.phrases import Phrase

log = logging.getLogger(__name__)

FACTS_FILE = "catalog-hub.json"
VERSION = 2  # 2: each fact names the shipped entry it was checked against
ONCE_A_DAY_S = 24 * 3600.0


@dataclass(frozen=True)
class HubFile:
    """An entry's recommended file as the hub had it at the check."""

    source: str
    repo: str
    file: str
    size_bytes: int
    against: tuple[str, str, str, str]  # the shipped entry's repos, file and quantization


def shipped_identity(entry: CatalogEntry) -> tuple[str, str, str, str]:
    return (entry.repo_hf, entry.repo_modelscope, entry.file, entry.quantization)


@dataclass
class HubFacts:
    checked_at: float = 0.0  # seconds since 1970; 0: never
    files: dict[str, HubFile] = field(default_factory=dict)  # by entry name
    problems: dict[str, str] = field(default_factory=dict)  # entries the check could not find
    problem: str = ""  # a damaged facts file, set aside (said once, not stored)

    def to_json(self) -> dict[str, Any]:
        return {
            "checked_at": self.checked_at,
            "files": {name: dataclasses.asdict(f) for name, f in self.files.items()},
            "problems": dict(self.problems),
        }


class CheckStopped(Exception):
    """The check was asked to stop (Hearth is closing)."""


def _facts_of(document: dict[str, Any]) -> HubFacts:
    """A stored document as facts; anything malformed raises (and the file is set aside)."""
    checked = float(document["checked_at"])
    files = {}
    for name, raw in dict(document["files"]).items():
        raw_against = raw["against"]
        against = tuple(str(part) for part in raw_against) if isinstance(raw_against, list) else ()
        if len(against) != 4:
            raise ValueError(f"{name}: not checked against a catalogue entry")
        found = HubFile(
            str(raw["source"]),
            str(raw["repo"]),
            str(raw["file"]),
            int(raw["size_bytes"]),
            (against[0], against[1], against[2], against[3]),
        )
        if found.size_bytes <= 0 or found.source not in (HF, MODELSCOPE) or not found.file:
            raise ValueError(f"{name}: not a file a hub lists")
        files[str(name)] = found
    problems = {str(k): str(v) for k, v in dict(document.get("problems", {})).items()}
    return HubFacts(checked, files, problems)


def _forget_unanchored(_document: dict[str, Any]) -> dict[str, Any]:
    """Version 1 facts did not say what they were checked against: check again."""
    return {"checked_at": 0.0, "files": {}, "problems": {}}


def _document(data_dir: Path) -> JsonDocument:
    return JsonDocument(
        data_dir / FACTS_FILE,
        Phrase("facts about the catalogue's models"),
        VERSION,
        {1: _forget_unanchored},
    )


def load_facts(data_dir: Path) -> HubFacts:
    """The last check's facts (none yet, or a damaged file: empty facts, with ``problem``)."""
    document = _document(data_dir)
    facts = document.load(_facts_of) or HubFacts()
    facts.problem = document.problem
    return facts


def with_hub_facts(entries: list[CatalogEntry], facts: HubFacts) -> list[CatalogEntry]:
    """The entries with the file names and sizes the last check found for them (a fact
    about an entry that has changed since, in a newer Hearth, is not used)."""
    result = []
    for entry in entries:
        found = facts.files.get(entry.name)
        usable = (
            found is not None
            and found.against == shipped_identity(entry)
            and found.repo == entry.repo(found.source)
        )
        result.append(
            dataclasses.replace(entry, file=found.file, size_bytes=found.size_bytes)
            if usable and found is not None
            else entry
        )
    return result


def due(facts: HubFacts, last_attempt: float = 0.0, now: float | None = None) -> bool:
    """Whether a daily check is due: neither a check nor an attempt within a day (a
    clock that went back counts as due)."""
    now = time.time() if now is None else now
    latest = max(facts.checked_at, last_attempt)
    return not 0 <= now - latest < ONCE_A_DAY_S


def recommended_file(entry: CatalogEntry, files: list[RepoFile]) -> tuple[str, int] | None:
    """(file name, size) of the entry's recommended file in a listing: the file by its name
    (any case), else the one file, or the shards of one file, of its quantization; None
    when there is none, or several candidates (Hearth would not know which)."""

    def shards_of(name: str) -> list[RepoFile]:
        base = SHARD_PATTERN.sub("", name)
        return [f for f in files if SHARD_PATTERN.sub("", f.path) == base]

    wanted = entry.file.lower()
    for listed in files:
        if PurePosixPath(listed.path).name.lower() == wanted:
            group = shards_of(listed.path) if SHARD_PATTERN.search(listed.path) else [listed]
            return PurePosixPath(listed.path).name, sum(f.size for f in group)
    for offer in group_files(files):
        if offer.quantization != entry.quantization.upper():
            continue
        bases = {SHARD_PATTERN.sub("", f.path) for f in offer.files}
        if len(bases) != 1:
            return None  # variants of one quantization: not a choice to make silently
        first = sorted(offer.files, key=lambda f: f.path)[0]
        return PurePosixPath(first.path).name, sum(f.size for f in offer.files)
    return None


def _listing(settings: Settings, source: str, repo: str) -> list[RepoFile]:
    """A repository's files, asked anonymously."""
    if source == MODELSCOPE:
        from app.hub import modelscope

        return modelscope.list_files(
            repo, endpoint_url=modelscope_endpoint(settings), anonymous=True
        )
    from app.hub import huggingface

    return huggingface.list_files(repo, endpoint_url=hf_endpoint(settings), anonymous=True)


def check_hub(
    settings: Settings,
    data_dir: Path,
    entries: list[CatalogEntry],
    source: str,
    progress: Callable[[int, int], None] | None = None,
    stop: threading.Event | None = None,
) -> HubFacts:
    """List every entry's repository on ``source`` and keep its recommended file's name
    and size.  HearthError, with the stored facts untouched, when the hub cannot be
    reached (at the start or in the middle); CheckStopped when ``stop`` is set."""
    from app.hub.huggingface import HubNotFound

    endpoint = modelscope_endpoint(settings) if source == MODELSCOPE else hf_endpoint(settings)
    hub_name = "ModelScope" if source == MODELSCOPE else "Hugging Face"
    check_reachable(endpoint, hub_name, remembered=False)
    earlier = load_facts(data_dir)
    facts = HubFacts(time.time())
    for done, entry in enumerate(entries):
        if stop is not None and stop.is_set():
            raise CheckStopped()
        if progress is not None:
            progress(done, len(entries))
        repo = entry.repo(source)
        try:
            files = _listing(settings, source, repo)
        except HubNotFound as exc:
            facts.problems[entry.name] = str(exc)
            continue
        except HearthError as exc:
            # The network may have gone away meanwhile: then stop, keeping the last facts,
            # rather than wait for every repository's retries.
            check_reachable(endpoint, hub_name, remembered=False)
            log.info("catalogue check: %s: %s", entry.name, exc)
            facts.problems[entry.name] = str(exc)
            previous = earlier.files.get(entry.name)
            if previous is not None:  # a moment's failure: yesterday's fact still holds
                facts.files[entry.name] = previous
            continue
        found = recommended_file(entry, files)
        if found is None:
            facts.problems[entry.name] = str(
                Phrase("{0} has no single {1} file.", repo, entry.quantization)
            )
            continue
        facts.files[entry.name] = HubFile(source, repo, *found, shipped_identity(entry))
    if not facts.files and facts.problems:
        # Reachable, yet nothing found: more likely a hub that fails than a catalogue
        # that vanished; keep what was known.
        raise HearthError(
            Phrase(
                "The hub answered, but none of the catalogue's models could be checked ({0}).",
                next(iter(facts.problems.values()))[:300],
            )
        )
    _document(data_dir).save(facts.to_json())
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
