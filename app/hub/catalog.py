"""Hearth's curated catalogue of models (``resources/catalog.json``): what to suggest to
someone who does not yet know what a GGUF quantization is.

Each entry names a model, what it is good at, its licence, its repositories on Hugging
Face and ModelScope and the recommended file, with the size and the architecture's shape
written down, so that the fit estimate for this machine (``app.machine.fit``) works
offline, before anything is downloaded.  ``ranked`` orders the catalogue best first for a
machine; ``picks`` chooses the few the welcome shows, one per purpose.

The catalogue is read-only data shipped with Hearth: a damaged file is reported in words
and the rest of Hearth goes on without it.
"""

from __future__ import annotations

import contextlib
import json
import locale
import os
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from app.errors import HearthError
from app.hub.sources import HF, MODELSCOPE
from app.machine.fit import (
    CPU,
    FITS_GPU,
    NO_FIT,
    PARTIAL,
    Estimate,
    ModelShape,
    estimate,
    with_projector,
)
from app.machine.hardware import SystemFacts
from app.paths import resources_dir
from wire.phrases import Phrase

PURPOSES = ("chat", "reasoning", "coding", "multilingual", "vision", "embedding")
# The welcome's cards, in order: what most people want first.
WELCOME_PURPOSES = ("chat", "reasoning", "multilingual", "coding")
VERDICT_ORDER = {FITS_GPU: 0, PARTIAL: 1, CPU: 2, NO_FIT: 3}
# A reply slower than this is a chore to wait for: a smaller model is suggested instead.
COMFORTABLE_TOKENS_PER_S = 8.0
# The share of the embedding table in a GGUF's weights (a rough split for the estimate:
# only where the layers go depends on it).
OTHER_SHARE = 0.08


@dataclass(frozen=True)
class CatalogEntry:
    name: str  # a short id: ``hearth pull NAME``
    title: str
    purpose: str  # one of PURPOSES
    summary: str
    parameters: str
    license: str
    repo_hf: str
    repo_modelscope: str
    file: str  # the recommended file
    quantization: str
    size_bytes: int
    context_length: int
    shape: tuple[int, int, int, int, int, int, int]
    summary_zh: str = ""  # the summary for the Chinese window
    # A vision model's projector (downloaded with it: ``repo_files.group_files``), about
    # as large as the hub lists it; 0 for a model that reads text only.
    projector_bytes: int = 0

    @property
    def reads_images(self) -> bool:
        return self.projector_bytes > 0

    def summary_in(self, language: str) -> str:
        return self.summary_zh if language == "zh_CN" and self.summary_zh else self.summary

    def repo(self, source: str) -> str:
        return self.repo_modelscope if source == MODELSCOPE else self.repo_hf

    def model_shape(self) -> ModelShape:
        layers, heads, kv_heads, head_dim, embd, ff, vocab = self.shape
        other = int(self.size_bytes * OTHER_SHARE)
        shape = ModelShape(
            name=self.title,
            format="gguf",
            weights_bytes=self.size_bytes,
            n_layers=layers,
            n_heads=heads,
            n_kv_heads=kv_heads,
            head_dim=head_dim,
            n_embd=embd,
            n_ff=ff,
            n_vocab=vocab,
            layer_bytes=[(self.size_bytes - other) // layers] * layers,
            other_bytes=other,
            context_length=self.context_length,
        )
        if self.projector_bytes:
            with_projector(shape, self.projector_bytes)
        return shape


@dataclass(frozen=True)
class Ranked:
    """A catalogue entry with its fit on this machine."""

    entry: CatalogEntry
    estimate: Estimate

    @property
    def fits(self) -> bool:
        return self.estimate.verdict != NO_FIT

    @property
    def comfortable(self) -> bool:
        rate = self.estimate.tokens_per_s
        return self.fits and (rate == 0 or rate >= COMFORTABLE_TOKENS_PER_S)

    def to_json(self) -> dict[str, Any]:
        """The entry as ``hearth models catalog --json`` prints it (a contract)."""
        facts = asdict(self.entry)
        facts["shape"] = list(self.entry.shape)
        return {
            **facts,
            "verdict": self.estimate.verdict,
            "verdict_text": self.estimate.verdict_text,
            "expected_tokens_per_s": self.estimate.tokens_per_s,
            "speed_hint": self.estimate.speed_hint,
            "memory_bytes": self.estimate.peak_bytes,
        }


def catalog_path() -> Path:
    return resources_dir() / "catalog.json"


def load_catalog(path: Path | None = None) -> list[CatalogEntry]:
    """The catalogue; HearthError in words when the file is missing or damaged."""
    return list(_load(str(path or catalog_path())))


@lru_cache(maxsize=4)
def _load(path: str) -> tuple[CatalogEntry, ...]:
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        entries = tuple(_entry(raw) for raw in document["models"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise HearthError(
            Phrase(
                "Hearth's model catalogue cannot be read ({0}). Reinstall Hearth to restore it; "
                "searching the hubs still works.",
                exc,
            )
        ) from exc
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise HearthError(Phrase("Hearth's model catalogue names a model twice."))
    return entries


def _entry(raw: dict[str, Any]) -> CatalogEntry:
    shape = tuple(int(x) for x in raw["shape"])
    if len(shape) != 7 or min(shape) <= 0:
        raise ValueError(f"{raw.get('name')}: the shape needs seven positive numbers")
    if raw["purpose"] not in PURPOSES:
        raise ValueError(f"{raw.get('name')}: unknown purpose {raw['purpose']!r}")
    return CatalogEntry(
        name=str(raw["name"]),
        title=str(raw["title"]),
        purpose=str(raw["purpose"]),
        summary=str(raw["summary"]),
        parameters=str(raw["parameters"]),
        license=str(raw["license"]),
        repo_hf=str(raw["repo_hf"]),
        repo_modelscope=str(raw["repo_modelscope"]),
        file=str(raw["file"]),
        quantization=str(raw["quantization"]),
        size_bytes=int(raw["size_bytes"]),
        context_length=int(raw["context_length"]),
        shape=shape,
        summary_zh=str(raw.get("summary_zh", "")),
        projector_bytes=int(raw.get("projector_bytes", 0)),
    )


def find(name: str, entries: list[CatalogEntry] | None = None) -> CatalogEntry | None:
    """The entry called ``name`` (any case), or None."""
    wanted = name.strip().lower()
    return next((e for e in entries or load_catalog() if e.name.lower() == wanted), None)


def ranked(
    facts: SystemFacts, n_ctx: int, entries: list[CatalogEntry] | None = None
) -> list[Ranked]:
    """Every entry with its fit here, best first: those that fit before those that do
    not; among those that fit, the comfortable ones (fast enough to chat with) first, the
    larger (more capable) before the smaller; among the rest, the smaller first.  Models
    that are not for chat (embedding) come last."""
    result = [
        Ranked(e, estimate(e.model_shape(), facts, min(n_ctx, e.context_length)))
        for e in entries or load_catalog()
    ]

    def order(item: Ranked) -> tuple[int, int, int]:
        size = item.entry.size_bytes
        if item.entry.purpose == "embedding":
            return (3, 0, size)
        if not item.fits:
            return (2, 0, size)
        if item.comfortable:
            return (0, VERDICT_ORDER[item.estimate.verdict], -size)
        return (1, 0, size)

    return sorted(result, key=order)


def picks(best_first: list[Ranked], count: int = 4, language: str = "en") -> list[Ranked]:
    """The welcome's cards: the best comfortable model of each purpose, in the order of
    ``WELCOME_PURPOSES`` (a Chinese window puts the Chinese-strong model first); where
    none of a purpose is comfortable, the fastest one that fits.  Embedding models are not
    chat models and are never picked."""
    chosen: list[Ranked] = []
    for purpose in purpose_order(language):
        of_purpose = [r for r in best_first if r.entry.purpose == purpose and r.fits]
        if of_purpose:
            chosen.append(of_purpose[0])
    return chosen[:count]


def purpose_order(language: str) -> tuple[str, ...]:
    """The uses in the order every list of the catalogue shows them."""
    if language == "zh_CN":
        return ("multilingual", *(p for p in WELCOME_PURPOSES if p != "multilingual"))
    return WELCOME_PURPOSES


def by_use(best_first: list[Ranked], language: str = "en") -> list[Ranked]:
    """The whole catalogue in the welcome's order: by use (as ``picks`` orders them), the
    best for this computer first within each, other uses (embeddings) last.  So the
    recommendations and the whole catalogue never disagree on what comes first."""
    order = (*purpose_order(language), "vision")

    def place(ranked: Ranked) -> int:
        purpose = ranked.entry.purpose
        return order.index(purpose) if purpose in order else len(order)

    return sorted(best_first, key=place)  # stable: the rank within each use stays


def preferred_source(language_setting: str) -> str:
    """ModelScope first on a Chinese locale (or with Chinese chosen in Settings), as the
    Models screen does; Hugging Face elsewhere."""
    if language_setting == "zh_CN":
        return MODELSCOPE
    if language_setting not in ("", "system"):
        return HF
    names = [os.environ.get(k, "") for k in ("LC_ALL", "LC_MESSAGES", "LANG")]
    with contextlib.suppress(ValueError):  # a locale Python does not know
        names.append(locale.getlocale()[0] or "")
    system = next((n for n in names if n), "")
    return MODELSCOPE if system.lower().startswith("zh") else HF
