"""What ``hearth pull`` and the catalogue fetch from a repository (the download itself, with
its progress, is the command's: ``app.cli.pull``).

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

from app.errors import HearthError
from app.hub import huggingface
from app.hub.catalog import CatalogEntry
from app.hub.downloads import PullPlan
from app.hub.reachable import Unreachable
from app.hub.recommend import estimate_offers, recommend
from app.hub.repo_files import (
    SHARD_PATTERN,
    Offer,
    RepoFile,
    group_files,
)
from app.hub.sources import (
    HF,
    MODELSCOPE,
    SOURCES,
    hf_endpoint,
    modelscope_endpoint,
)
from app.machine.fit import Estimate
from app.machine.hardware import SystemFacts
from app.secrets import get_token
from app.settings import Settings
from wire.phrases import Phrase, joined, message_of

log = logging.getLogger(__name__)


def list_repo(settings: Settings, repo_id: str, source: str) -> list[RepoFile]:
    if source == MODELSCOPE:
        from app.hub import modelscope

        return modelscope.list_files(
            repo_id, endpoint_url=modelscope_endpoint(settings), token=get_token(MODELSCOPE)
        )
    return huggingface.list_files(repo_id, endpoint_url=hf_endpoint(settings), token=get_token(HF))


def plan(
    settings: Settings,
    repo_id: str,
    pattern: str | None,
    source: str,
    facts: SystemFacts | None = None,
) -> PullPlan:
    """What to fetch: the files ``pattern`` names, else what the Models screen would
    recommend on this machine (``facts``; without them, the usual choice)."""
    files = list_repo(settings, repo_id, source)
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
    estimates = _estimates(settings, repo_id, offers, source, facts)
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
    settings: Settings, repo_id: str, offers: list[Offer], source: str, facts: SystemFacts | None
) -> dict[int, Estimate]:
    """Estimates for this machine, or none when the header cannot be read (then the usual
    choice stands: a pull must not fail for want of a recommendation)."""
    if facts is None:
        return {}
    context = int(settings.get("engine.context_length"))
    try:
        return estimate_offers(settings, source, repo_id, offers, facts, context)
    except (HearthError, OSError, ValueError) as exc:
        log.info("no estimate for %s: %s", repo_id, exc)
        return {}


def plan_catalog(settings: Settings, entry: CatalogEntry, source: str) -> tuple[str, str, PullPlan]:
    """(source, repository, plan) for a catalogue entry's recommended file: from
    ``source``, else from the other hub; the file by its name, else by its quantization
    (a repository that renamed its files since the catalogue was written)."""
    failures: list[tuple[str, HearthError]] = []
    for where in (source, *(s for s in SOURCES if s != source)):
        repo_id = entry.repo(where)
        for pattern in (entry.file, entry.quantization):
            try:
                return where, repo_id, plan(settings, repo_id, pattern, where)
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
