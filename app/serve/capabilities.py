"""What a request asks of its model's engine, checked against the engine catalogue
(``app.engines``) before anything reaches the engine, and refused in words that name the
feature: a dialect says which features its request needs (and how the request named
them), never which engines have them."""

from __future__ import annotations

from app.engines import (
    BY_NAME,
    EMBEDDINGS,
    GRAMMAR,
    IMAGES,
    LOGPROBS,
    RAW_PROMPT,
    TOOLS,
    reads_images,
)
from wire.model_spec import ModelSpec

# {0}: what the request asked, in its own words; {1}: the engine's name.
WORDS: dict[str, str] = {
    GRAMMAR: (
        "{0} needs a GGUF model: llama.cpp enforces it by grammar, and this server's model "
        "runs in {1}, which has none"
    ),
    TOOLS: "{0} are not passed to this server's model ({1}) yet; call it directly",
    LOGPROBS: "{0} need a GGUF model (llama.cpp) for now; this server's model runs in {1}",
    RAW_PROMPT: "{0} need a GGUF model (llama.cpp) for now; this server's model runs in {1}",
    EMBEDDINGS: "{0} need a GGUF model (llama.cpp); this server's model cannot make them",
    IMAGES: (
        "{0} are not read by this server's model ({1}); use a vision model (a GGUF model "
        "with its projector, or a checkpoint with a vision tower)"
    ),
}
# {0}: what the request asked.  An engine that reads pictures, with a model that does not.
TEXT_ONLY = (
    "{0} need a model that reads images (a GGUF model with its projector, or a checkpoint "
    "with a vision tower); this one reads text only. Ollama's /api/show lists 'vision' "
    "among the capabilities of those that do"
)


def refusal(needs: dict[str, str], spec: ModelSpec) -> str | None:
    """Why the model of ``spec`` cannot serve a request that ``needs`` these features
    ({feature: what the request asked}), or None when it can."""
    record = BY_NAME.get(spec.engine)
    features = record.features if record is not None else frozenset()
    label = record.label if record is not None else spec.engine
    for feature, asked in needs.items():
        if feature not in features:
            return WORDS[feature].format(asked, label)
        if feature == IMAGES and not reads_images(spec):
            return TEXT_ONLY.format(asked)
    return None


def ollama_capabilities(engine: str, pictures: bool = False) -> list[str]:
    """What Ollama's clients may ask of the model (Continue offers tools only when listed;
    Open WebUI offers pictures with "vision", which a model has with its projector);
    fill-in-the-middle ("insert") depends on the model's tokens, which the request finds."""
    record = BY_NAME.get(engine)
    features = record.features if record is not None else frozenset()
    listed = ["completion"]
    listed += ["tools"] if TOOLS in features else []
    listed += ["embedding"] if EMBEDDINGS in features else []
    listed += ["vision"] if IMAGES in features and pictures else []
    return listed
