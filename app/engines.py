"""The engine catalogue: one record per engine, read by everything that needs to know one.

``Core.model_spec`` (which engine runs a model and with which options), the per-model
settings (what may be overridden, and its range), ``fit`` (each engine's memory model) and
the Model settings dialog (built from the options) all read this table, so adding an engine
means adding a record here and a module in ``backends/`` (registered in
``backends.engine.ENGINES`` under the same name) — nothing else.

Ranges that the settings declaration already owns (the context length, threads) are taken
from it, so a limit is written once.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any

from app.settings import BY_KEY
from wire.engine_traits import EngineTraits, traits_of
from wire.model_spec import LLAMA_CPP, REMOTE, SYNTHETIC, TRANSFORMERS, ModelSpec
from wire.phrases import Phrase

# How an engine may use a GPU, as the hardware facts tell (see app.machine.fit).
GPU_LLAMA_OFFLOAD = "llama_offload"  # the installed llama.cpp build can offload layers
GPU_TORCH_CUDA = "torch_cuda"  # the installed PyTorch sees CUDA
GPU_NONE = "none"

# What a request may ask of an engine beyond a chat in text.  The API checks a request's
# needs against its model's engine before anything reaches it, and names what is missing
# (``app.serve.capabilities``).
GRAMMAR = "grammar"  # output held to JSON or a schema, or a forced tool call
TOOLS = "tools"  # tools offered to the model through its chat template
LOGPROBS = "logprobs"  # the probabilities of the tokens generated
RAW_PROMPT = "raw_prompt"  # a prompt without the chat template, fill-in-the-middle
EMBEDDINGS = "embeddings"
IMAGES = "images"  # images in the conversation
FEATURES = (GRAMMAR, TOOLS, LOGPROBS, RAW_PROMPT, EMBEDDINGS, IMAGES)


@dataclass(frozen=True)
class EngineOption:
    """A per-model choice (a field of ``ModelChoice`` and of ``ModelSpec``); ``None`` in
    the per-model settings always means "let Hearth decide"."""

    key: str
    label: str
    description: str
    kind: type  # int, str or bool
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    # Plain words for a choice whose value is a library's term ("sdpa"), shown in Model
    # settings with the term kept in brackets; a choice not named here shows as itself.
    choice_words: tuple[tuple[str, str], ...] = ()

    def words_for(self, choice: str) -> str:
        return dict(self.choice_words).get(choice, choice)

    def validate(self, value: Any) -> Any:
        """``value`` if it is allowed; ValueError with a sentence otherwise."""
        if value is None:
            return None
        if self.kind is bool:
            if not isinstance(value, bool):
                raise ValueError(Phrase("{0} must be true or false", self.label))
            return value
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(Phrase("{0} must be a whole number", self.label))
            low = self.minimum if self.minimum is not None else value
            high = self.maximum if self.maximum is not None else value
            if not low <= value <= high:
                raise ValueError(Phrase("{0} must be between {1} and {2}", self.label, low, high))
            return value
        if self.choices and value not in self.choices:
            raise ValueError(Phrase("{0} must be one of {1}", self.label, ", ".join(self.choices)))
        return str(value)


def _from_setting(key: str, setting: str, label: str, description: str, low: int) -> EngineOption:
    declared = BY_KEY[setting]
    high = int(declared.maximum) if declared.maximum is not None else None
    return EngineOption(key, label, description, int, low, high)


GPU_LAYERS = EngineOption(
    "gpu_layers",
    "Layers on the GPU",
    "How many of the model's layers go on the GPU (GPU layers, -ngl in llama.cpp): -1 all, "
    "0 none. Automatic puts as many as fit.",
    int,
    -1,
    10_000,
)
THREADS = _from_setting(
    "threads",
    "engine.threads",
    "CPU threads",
    "Threads for generation; automatic: physical cores.",
    1,
)
CONTEXT = _from_setting(
    "n_ctx",
    "engine.context_length",
    "Context length",
    "How much conversation the model sees at once; automatic: the setting in Settings.",
    int(BY_KEY["engine.context_length"].minimum or 1),
)
PARALLEL = _from_setting(
    "parallel",
    "engine.parallel",
    "Replies at once",
    "How many replies this model writes at the same time, each with the whole context of "
    "its own (the context's memory counted that many times); automatic: the setting in "
    "Settings, fewer where more would not fit.",
    int(BY_KEY["engine.parallel"].minimum or 1),
)
RUNTIME = EngineOption(
    "runtime",
    "llama.cpp runtime",
    "Which build of llama.cpp runs the model: CUDA (NVIDIA), Vulkan (NVIDIA, AMD, Intel), "
    "Metal (Apple) or the CPU. Automatic: the fastest that works here (see System check).",
    str,
    choices=("", "cpu", "vulkan", "cuda", "metal"),
)
NO_PROMPT_LOOKUP = EngineOption(
    "no_prompt_lookup",
    "Don't guess ahead from the conversation",
    "Hearth guesses the next words from the conversation and checks several at once "
    "(prompt-lookup decoding): faster when the reply repeats the prompt (editing code, "
    "quoting), the same reply either way. On unless turned off here.",
    bool,
)
DTYPE = EngineOption(
    "dtype",
    "Data type (checkpoints)",
    "bfloat16 on GPUs that support it, float16 on older ones, float32 on the CPU.",
    str,
    choices=("auto", "bfloat16", "float16", "float32"),
    choice_words=(
        ("auto", "Automatic: 16-bit on a GPU, full precision on the CPU"),
        ("bfloat16", "16-bit, for newer GPUs (bfloat16)"),
        ("float16", "16-bit, for older GPUs (float16)"),
        ("float32", "Full precision, twice the memory (float32)"),
    ),
)
QUANTIZATION = EngineOption(
    "quantization",
    "Quantization on loading",
    "Load a checkpoint in 4 or 8 bits (NVIDIA GPUs, bitsandbytes).",
    str,
    choices=("", "4bit", "8bit"),
    choice_words=(
        ("", "None: load the weights as they are"),
        ("4bit", "4 bits: about a quarter of the memory (bitsandbytes)"),
        ("8bit", "8 bits: about half the memory (bitsandbytes)"),
    ),
)
ATTENTION = EngineOption(
    "attention",
    "Attention method",
    "How the model's attention is computed: SDPA works everywhere; FlashAttention-2 (flash "
    "attention) needs an NVIDIA GPU and the flash-attn package.",
    str,
    choices=("sdpa", "flash_attention_2"),
    choice_words=(
        ("sdpa", "PyTorch's own, works everywhere (SDPA)"),
        ("flash_attention_2", "Flash attention: faster on NVIDIA GPUs (flash-attn package)"),
    ),
)
STATIC_CACHE = EngineOption(
    "static_cache",
    "Static cache and torch.compile",
    "Faster replies on NVIDIA GPUs after a slower first one.",
    bool,
)
ALLOW_PICKLE = EngineOption(
    "allow_pickle",
    "Allow pickle weights (.bin): they can run code from the file",
    "Only for checkpoints without safetensors, from sources you trust.",
    bool,
)


@dataclass(frozen=True)
class Engine:
    name: str  # the name in ModelSpec.engine and backends.engine.ENGINES
    label: str
    formats: tuple[str, ...]  # the model formats it runs (ModelEntry.format)
    options: tuple[EngineOption, ...] = ()
    # Its memory model for fit: what the worker itself takes, and how it uses a GPU.
    runtime_bytes: int = 0
    gpu: str = GPU_NONE
    modules: tuple[str, ...] = ()  # Python packages it needs (looked up, never imported)
    offered: bool = True  # a user may choose it in Model settings
    features: frozenset[str] = frozenset()  # what a request may ask of it (FEATURES)

    @property
    def traits(self) -> EngineTraits:
        """How the engine host and the worker treat it (``wire.engine_traits``)."""
        return traits_of(self.name)

    @property
    def installed(self) -> bool:
        return all(importlib.util.find_spec(name) is not None for name in self.modules)


CATALOGUE: tuple[Engine, ...] = (
    Engine(
        LLAMA_CPP,
        "llama.cpp",
        ("gguf",),
        (GPU_LAYERS, THREADS, CONTEXT, PARALLEL, RUNTIME, NO_PROMPT_LOOKUP),
        runtime_bytes=40 * 2**20,  # Python + llama.cpp in the worker, measured
        gpu=GPU_LLAMA_OFFLOAD,
        modules=("llama_cpp",),
        # Pictures: a model with its projector (``ModelSpec.projector``).
        features=frozenset({GRAMMAR, TOOLS, LOGPROBS, RAW_PROMPT, EMBEDDINGS, IMAGES}),
    ),
    Engine(
        TRANSFORMERS,
        "PyTorch / transformers",
        ("transformers",),
        (CONTEXT, DTYPE, QUANTIZATION, ATTENTION, STATIC_CACHE, ALLOW_PICKLE),
        runtime_bytes=700 * 2**20,  # Python + torch + transformers
        gpu=GPU_TORCH_CUDA,
        modules=("torch", "transformers"),
        # Pictures: a checkpoint with a vision tower (``ModelSpec.vision``).
        features=frozenset({TOOLS, IMAGES}),
    ),
    # A server's own grammar holds its output to a schema: response_format is passed on.
    Engine(
        REMOTE,
        "OpenAI-compatible server",
        ("remote",),
        offered=False,
        # Tools pass through to the server, and its calls come back (vLLM, llama-server,
        # LM Studio, Ollama, another Hearth).
        features=frozenset({GRAMMAR, TOOLS}),
    ),
    Engine(
        SYNTHETIC,
        "Scripted replies (tests)",
        ("synthetic",),
        offered=False,
        features=frozenset({GRAMMAR, TOOLS, LOGPROBS, RAW_PROMPT}),
    ),
)
BY_NAME: dict[str, Engine] = {engine.name: engine for engine in CATALOGUE}


def reads_images(spec: ModelSpec) -> bool:
    """Whether the model of ``spec`` reads pictures: its engine does, and a GGUF model has
    its projector, a checkpoint its vision tower."""
    record = BY_NAME.get(spec.engine)
    if record is None or IMAGES not in record.features:
        return False
    return bool(spec.projector) if spec.engine == LLAMA_CPP else spec.vision


OPTIONS: dict[str, EngineOption] = {
    option.key: option for engine in CATALOGUE for option in engine.options
}


def engine_for(model_format: str) -> Engine:
    """The engine that runs a model of this format unless the user chose another."""
    for engine in CATALOGUE:
        if model_format in engine.formats:
            return engine
    raise LookupError(Phrase("No engine runs models of the format {0!r}.", model_format))


def embeds(model_format: str) -> bool:
    """Whether the engine for a model of this format gives embeddings (the documents'
    embedding model, ``/v1/embeddings``)."""
    return any(EMBEDDINGS in e.features for e in CATALOGUE if model_format in e.formats)


def engines_for(model_format: str) -> list[Engine]:
    """The engines a user may choose for a model of this format."""
    return [e for e in CATALOGUE if e.offered and model_format in e.formats]


def can_run(model_format: str) -> bool:
    """Is an engine for this format installed in this edition?"""
    try:
        return engine_for(model_format).installed
    except LookupError:
        return False
