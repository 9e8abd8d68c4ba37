"""``hearth pull``: choose what to fetch from a repository, then download it with progress.

Without ``--file`` Hearth picks for the user what the Models screen recommends on this
machine (``app.hub.recommend``: the best quality that fits the GPU, else Q4_K_M or the
nearest that fits; the whole safetensors checkpoint in a transformers repository).
``--file`` takes a glob over file names (``*.Q8_0.gguf``) or a quantization name (``Q8_0``).
A catalogue name (``hearth pull qwen3-4b``) fetches that entry's recommended file, from
ModelScope first on a Chinese locale (``app.hub.catalog``).
"""

from __future__ import annotations

import fnmatch
import logging
import signal
import sys
import time
from typing import TextIO

from app.core import Core
from app.errors import HearthError
from app.hub import huggingface
from app.hub.catalog import CatalogEntry
from app.hub.downloads import DONE, FAILED, PAUSED, DownloadManager, PullPlan
from app.hub.reachable import Unreachable
from app.hub.recommend import estimate_offers, recommend
from app.hub.repo_files import (
    SHARD_PATTERN,
    Offer,
    RepoFile,
    group_files,
    human_duration,
    human_size,
)
from app.hub.sources import (
    HF,
    MODELSCOPE,
    SOURCES,
    download_manager,
    hf_endpoint,
    modelscope_endpoint,
)
from app.machine.fit import Estimate
from app.machine.hardware import SystemFacts
from app.secrets import get_token
from wire.phrases import Phrase, joined, message_of
from wire.visible_text import visible

log = logging.getLogger(__name__)


def list_repo(core: Core, repo_id: str, source: str) -> list[RepoFile]:
    if source == MODELSCOPE:
        from app.hub import modelscope

        return modelscope.list_files(
            repo_id, endpoint_url=modelscope_endpoint(core), token=get_token(MODELSCOPE)
        )
    return huggingface.list_files(repo_id, endpoint_url=hf_endpoint(core), token=get_token(HF))


def plan(
    core: Core,
    repo_id: str,
    pattern: str | None,
    source: str,
    facts: SystemFacts | None = None,
) -> PullPlan:
    """What to fetch: the files ``pattern`` names, else what the Models screen would
    recommend on this machine (``facts``; without them, the usual choice)."""
    files = list_repo(core, repo_id, source)
    offers = group_files(files)
    if pattern:
        for offer in offers:
            if offer.quantization and offer.quantization == pattern.upper():
                return PullPlan(repo_id, offer.label, offer.files, offer.warning)
        chosen = [
            f
            for f in files
            if fnmatch.fnmatch(f.path, pattern)
            or fnmatch.fnmatch(f.path.rsplit("/", 1)[-1], pattern)
        ]
        whole = next(  # a model's file named: the model whole (shards, its projector)
            (
                o
                for o in offers
                if o.kind == "gguf"
                and not o.is_projector
                and chosen
                and all(f in o.files and f is not o.projector for f in chosen)
            ),
            None,
        )
        if whole is not None:  # that file with its own shards and projector, nothing else
            return PullPlan(repo_id, whole.label, _with_own_parts(chosen, whole), whole.warning)
        if not chosen:
            listing = ", ".join(f.path for f in files[:20]) or "no files"
            raise HearthError(
                Phrase("No file in {0} matches {1!r}. It has: {2}.", repo_id, pattern, listing)
            )
        return PullPlan(repo_id, pattern, chosen)
    estimates = _estimates(core, repo_id, offers, source, facts)
    best = recommend(offers, estimates)
    warning = ""
    if best is None and estimates:
        # Nothing fits this machine: the usual choice, as the Models screen then marks it.
        best = recommend(offers)
        warning = Phrase("No file of {0} fits this machine's memory; it may not run here.", repo_id)
    if best is None:
        raise HearthError(
            Phrase(
                "{0} has no GGUF file or transformers checkpoint that Hearth can use. Name "
                "files with --file.",
                repo_id,
            )
        )
    return PullPlan(repo_id, best.label, best.files, best.warning or warning)


def _estimates(
    core: Core, repo_id: str, offers: list[Offer], source: str, facts: SystemFacts | None
) -> dict[int, Estimate]:
    """Estimates for this machine, or none when the header cannot be read (then the usual
    choice stands: a pull must not fail for want of a recommendation)."""
    if facts is None:
        return {}
    context = int(core.settings.get("engine.context_length"))
    try:
        return estimate_offers(core, source, repo_id, offers, facts, context)
    except (HearthError, OSError, ValueError) as exc:
        log.info("no estimate for %s: %s", repo_id, exc)
        return {}


def plan_catalog(core: Core, entry: CatalogEntry, source: str) -> tuple[str, str, PullPlan]:
    """(source, repository, plan) for a catalogue entry's recommended file: from
    ``source``, else from the other hub; the file by its name, else by its quantization
    (a repository that renamed its files since the catalogue was written)."""
    failures: list[tuple[str, HearthError]] = []
    for where in (source, *(s for s in SOURCES if s != source)):
        repo_id = entry.repo(where)
        for pattern in (entry.file, entry.quantization):
            try:
                return where, repo_id, plan(core, repo_id, pattern, where)
            except HearthError as exc:
                failures.append((repo_id, exc))
                if "matches" not in str(exc):
                    break  # the repository itself failed: try the other hub
    # One true sentence, the rest folded: offline is said as offline (not "not found"),
    # else the first hub that answered gives its own words.
    details = joined("\n", [Phrase("{0}: {1}", repo, message_of(exc)) for repo, exc in failures])
    if all(isinstance(exc, Unreachable) for _repo, exc in failures):
        raise Unreachable(
            Phrase(
                "You are offline (Hearth cannot reach Hugging Face or ModelScope): connect "
                "to the internet to download {0}.",
                entry.title,
            ),
            details,
        )
    answered = next(exc for _repo, exc in failures if not isinstance(exc, Unreachable))
    raise HearthError(message_of(answered), details)


def run_pull(
    core: Core, repo_id: str, pattern: str | None, source: str | None, err: TextIO | None = None
) -> int:
    """``hearth pull REPO`` or ``hearth pull CATALOG_NAME``."""
    err = err or sys.stderr  # as it is now, not as it was at import
    from app.hub.catalog import find, preferred_source
    from app.hub.catalog_refresh import current_catalog

    entries = current_catalog(core.paths.data_dir)[0] if "/" not in repo_id else []
    entry = find(repo_id, entries) if entries else None
    if "/" not in repo_id and entry is None:
        try:  # a repository without an owner (gpt2): the hub may still have it
            return _run_repo_pull(core, repo_id, pattern, source or HF, err)
        except HearthError as exc:
            raise HearthError(
                Phrase(
                    "{0} It is not a model of Hearth's catalogue either (hearth models "
                    "catalog lists them).",
                    message_of(exc),
                )
            ) from exc
    if entry is not None and not pattern:
        language = str(core.settings.get("appearance.language"))
        source, repo_id, chosen = plan_catalog(core, entry, source or preferred_source(language))
    else:
        source = source or HF
        if entry is not None:
            repo_id = entry.repo(source)
        return _run_repo_pull(core, repo_id, pattern, source, err)
    return _download(core, repo_id, source, chosen, err)


def _run_repo_pull(core: Core, repo_id: str, pattern: str | None, source: str, err: TextIO) -> int:
    from app.machine.hardware import probe_system

    facts = None if pattern else probe_system(core.models_dir, engines=False)
    chosen = plan(core, repo_id, pattern, source, facts)
    return _download(core, repo_id, source, chosen, err)


def _download(core: Core, repo_id: str, source: str, chosen: PullPlan, err: TextIO) -> int:
    total = sum(f.size for f in chosen.files)
    print(
        f"Pulling {repo_id} ({chosen.label}, {len(chosen.files)} file(s), {human_size(total)}) "
        f"into {core.models_dir / repo_id}",
        file=err,
    )
    if chosen.warning:
        print(f"Warning: {chosen.warning}", file=err)
    manager = download_manager(core)
    revision = "master" if source == MODELSCOPE else "main"
    items = [
        manager.add(source, repo_id, f, core.models_dir / repo_id, revision=revision)
        for f in chosen.files
    ]
    interrupted = False

    def on_sigint(_signum: int, _frame: object) -> None:
        nonlocal interrupted
        interrupted = True
        for item in items:
            manager.pause(item.id)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        _show_progress(manager, [i.id for i in items], err)
    finally:
        signal.signal(signal.SIGINT, previous)
        manager.close()
    results = [manager.get(i.id) for i in items]
    if interrupted or any(r.state == PAUSED for r in results):
        print("Paused. Run the same command again to resume where it stopped.", file=err)
        return 130
    failed = [r for r in results if r.state != DONE]
    for result in failed:
        print(f"hearth: {result.error or result.path + ' did not finish.'}", file=err)
    if failed:
        return 1
    print(f"Done: {', '.join(visible(r.path) for r in results)} verified.", file=err)
    return 0


def _show_progress(manager: DownloadManager, ids: list[str], err: TextIO) -> None:
    tty = err.isatty()
    last_line = 0.0
    while True:
        items = [manager.get(i) for i in ids]
        received = sum(i.received for i in items)
        size = sum(i.size for i in items) or 1
        speed = sum(i.speed for i in items)
        running = [i for i in items if i.state not in (DONE, FAILED, PAUSED, "cancelled")]
        now = time.monotonic()
        if tty or now - last_line >= 2 or not running:
            eta = (size - received) / speed if speed > 0 else None
            left = f", {human_duration(eta)} left" if eta is not None else ""
            line = (
                f"{received / size:6.1%}  {human_size(received)} of {human_size(size)}  "
                f"{human_size(int(speed))}/s{left}"
            )
            print(
                ("\r" + line.ljust(70)) if tty else line,
                end="" if tty else "\n",
                file=err,
                flush=True,
            )
            last_line = now
        if not running:
            if tty:
                print(file=err)
            return
        time.sleep(0.25)


def _with_own_parts(chosen: list[RepoFile], offer: Offer) -> list[RepoFile]:
    """The files named, each with the other shards of its own model and the offer's
    projector: an offer groups every model of one quantization (``big-Q4_1.gguf`` and
    ``small-Q4_1.gguf``), and naming one is not asking for the other."""
    bases = {_shard_base(f.path) for f in chosen}
    own = [f for f in offer.files if f in chosen or _shard_base(f.path) in bases]
    if offer.projector is not None and offer.projector not in own:
        own.append(offer.projector)
    return own


def _shard_base(path: str) -> str:
    return SHARD_PATTERN.sub("", path) if SHARD_PATTERN.search(path) else path
