"""Which file of a repository to suggest: one policy for the Models screen and ``hearth pull``.

Without knowing the machine: Q4_K_M, the quantization most people should start with (else
the nearest common one, else the smallest GGUF), or the whole safetensors checkpoint.
Knowing the machine (an estimate for each GGUF, from one file's header read over the
network): the best quality that fits wholly on the GPU, up to Q8_0 (beyond which quality
barely improves); without that, Q4_K_M or the nearest quantization that fits at all.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.hub.remote_header import fetch_shape, scaled
from app.hub.repo_files import Offer
from app.hub.sources import file_url
from app.machine.fit import CPU, FITS_GPU, PARTIAL, Estimate, estimate, with_projector
from app.machine.hardware import SystemFacts
from app.settings import Settings

PREFERRED_QUANTS = ("Q4_K_M", "Q4_K_S", "Q5_K_M", "Q4_0", "Q4_1", "Q5_K_S", "Q6_K", "Q8_0")
BEST_QUALITY_ORDER = ("Q8_0", "Q6_K", "Q5_K_M", "Q5_K_S", "Q4_K_M", "Q4_K_S", "IQ4_XS", "Q4_0")
FITTING_ORDER = ("Q4_K_M", "Q4_K_S", "IQ4_XS", "Q4_0", "Q3_K_M", "Q3_K_L", "Q2_K")
FITS = (FITS_GPU, PARTIAL, CPU)  # every verdict but "will not fit"


def chat_ggufs(offers: list[Offer]) -> list[Offer]:
    """The GGUF offers that are models (a vision projector is not one on its own)."""
    return [o for o in offers if o.kind == "gguf" and not o.is_projector]


def recommend(offers: list[Offer], estimates: Mapping[int, Estimate] | None = None) -> Offer | None:
    """The offer to suggest; ``estimates`` (by index in ``offers``) are for this machine.

    With estimates and nothing that fits, None: there is nothing to recommend here."""
    if estimates:
        return _for_machine(offers, estimates)
    ggufs = chat_ggufs(offers)
    for quant in PREFERRED_QUANTS:
        for offer in ggufs:
            if offer.quantization == quant:
                return offer
    if ggufs:
        return min(ggufs, key=lambda o: o.size)
    for kind in ("checkpoint", "pickle-checkpoint"):
        for offer in offers:
            if offer.kind == kind:
                return offer
    return None


def _for_machine(offers: list[Offer], estimates: Mapping[int, Estimate]) -> Offer | None:
    on_gpu = {
        offers[i].quantization: offers[i] for i, e in estimates.items() if e.verdict == FITS_GPU
    }
    fitting = {offers[i].quantization: offers[i] for i, e in estimates.items() if e.verdict in FITS}
    for quant in BEST_QUALITY_ORDER:
        if quant in on_gpu:
            return on_gpu[quant]
    for quant in FITTING_ORDER:
        if quant in fitting:
            return fitting[quant]
    return min(fitting.values(), key=lambda o: o.size) if fitting else None


def estimate_offers(
    settings: Settings,
    source: str,
    repo_id: str,
    offers: list[Offer],
    facts: SystemFacts,
    n_ctx: int,
) -> dict[int, Estimate]:
    """An estimate for every GGUF offer on this machine, by index in ``offers``.

    Reads the smallest file's header (a Range request) and scales it to each quantization;
    raises HearthError (or an OSError) when the header cannot be read."""
    ggufs = chat_ggufs(offers)
    if not ggufs:
        return {}
    probe = min(ggufs, key=lambda o: o.model_size)
    shape = fetch_shape(*file_url(settings, source, repo_id, probe.files[0].path))
    estimates = {}
    for offer in ggufs:
        sized = scaled(shape, offer.model_size, offer.label)
        if offer.projector is not None:
            with_projector(sized, offer.projector.size)
        estimates[offers.index(offer)] = estimate(sized, facts, n_ctx)
    return estimates
