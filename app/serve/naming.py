"""Model names as Ollama's clients write them: ``name:tag``."""

from __future__ import annotations

import re

# Quantisation names as GGUF files end with them (Q4_K_M, IQ3_XS, F16, BF16…).
QUANT_SUFFIX = re.compile(r"[.-]((?:I?Q\d\w*)|F16|F32|BF16)$", re.IGNORECASE)


def ollama_name(model_name: str) -> str:
    """Ollama's ``name:tag`` for a model: ``SmolLM2-135M-Instruct.Q4_1`` becomes
    ``smollm2-135m-instruct:q4_1``; a name without a quantisation gets ``:latest``."""
    match = QUANT_SUFFIX.search(model_name)
    if match:
        return f"{model_name[: match.start()].lower()}:{match.group(1).lower()}"
    return f"{model_name.lower()}:latest"
