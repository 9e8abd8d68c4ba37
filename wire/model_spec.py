"""What a ``load`` or ``chat`` request asks the worker to run: the model and how.

The app builds a ``ModelSpec`` (from the engine catalogue, the per-model settings and the
machine), sends it as a plain dictionary, and the worker's engines read the same fields.
Whether a worker that loaded one spec can answer a request for another is decided by one
rule, ``serves``, which the engine host (choosing a worker) and the worker (deciding to
load) both use: the same model loaded the same way, whatever runtimes each skips, as long
as the runtime it runs is not one the request skips.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Final

from wire.defaults import CONTEXT_TOKENS, PROMPT_CACHE_MB

# The engines a spec can name.  The worker's registry (``backends.engine``) and the app's
# catalogue (``app.engines``) are both keyed by these.
LLAMA_CPP: Final = "llama_cpp"
TRANSFORMERS: Final = "transformers"
REMOTE: Final = "remote"
SYNTHETIC: Final = "synthetic"  # a scripted reply, for tests and benchmarks only
ENGINE_NAMES: Final = (LLAMA_CPP, TRANSFORMERS, REMOTE, SYNTHETIC)
# The llama.cpp build installed with llama-cpp-python (backends.runtimes).
BUILT_IN_RUNTIME: Final = "cpu"


@dataclass(frozen=True)
class ModelSpec:
    """What to load; two equal specs share a worker."""

    path: str
    n_ctx: int = CONTEXT_TOKENS
    threads: int = 0
    gpu_layers: int = 0  # -1: all of them
    engine: str = LLAMA_CPP
    # On, as llama.cpp's own default (auto) has it wherever the device supports it: on the
    # CPU it was measured 5-15 % faster here.  (llama-cpp-python offers on or off only; a
    # device without it for some head size runs that step on the CPU.)
    flash_attn: bool = True
    # llama.cpp only: the runtime (build) to run on, "" for the best one here, and
    # prompt-lookup decoding (guessed tokens checked in batches).
    runtime: str = ""
    prompt_lookup: bool = True
    # Replies it answers at once (slots, each with a whole ``n_ctx`` of its own).
    parallel: int = 1
    # The KV state of conversations that left their slot, kept in RAM up to this (MiB).
    prompt_cache_mb: int = PROMPT_CACHE_MB
    # And on disk in this folder (entries RAM cannot hold, and the slots' at unload); "":
    # RAM only.
    prompt_cache_dir: str = ""
    skip_runtimes: tuple[str, ...] = ()  # runtimes that failed to load this model
    # llama.cpp only: the model's projector (``mmproj-*.gguf``), through which it reads
    # images; "": it reads text only.
    projector: str = ""
    # transformers only: the checkpoint has a vision tower and reads images.
    vision: bool = False
    # transformers engine only
    # The PyTorch engine's packages when it was added after install (``hearth engines
    # install pytorch``; ``wire.engine_overlay``); "": this environment's own.
    engine_path: str = ""
    dtype: str = "auto"
    quantization: str = ""  # "", "4bit" or "8bit"
    attention: str = "sdpa"  # or "flash_attention_2"
    static_cache: bool = False
    allow_pickle: bool = False
    trust_remote_code: bool = False
    # remote engine only: path is the server's base URL
    remote_model: str = ""
    secret_ref: str = ""  # where the API key is kept ("keyring:NAME"); never the key itself
    timeout: float = 120.0  # seconds without data before a remote server counts as gone

    @property
    def base(self) -> ModelSpec:
        """The spec as a front end asked for it: without the runtimes Hearth has avoided
        for it since (``skip_runtimes``), which say where to load it, not what."""
        return replace(self, skip_runtimes=()) if self.skip_runtimes else self

    def same_model_as(self, other: ModelSpec) -> bool:
        """The same model, whatever the settings it runs with: the same file on the same
        engine, or for a remote engine the same model of the same server with the same key."""
        same = (self.path, self.engine, self.remote_model, self.secret_ref)
        return same == (other.path, other.engine, other.remote_model, other.secret_ref)

    def with_gpu_layers(self, layers: int) -> ModelSpec:
        return replace(self, gpu_layers=layers)

    def on_runtime(self, name: str) -> ModelSpec:
        """This spec forced onto one llama.cpp runtime; a GPU runtime with no GPU layers
        chosen gets all of them (forcing the GPU means using it)."""
        if not name or self.engine != LLAMA_CPP:
            return self
        layers = -1 if name != "cpu" and self.gpu_layers == 0 else self.gpu_layers
        return replace(self, runtime=name, gpu_layers=layers)

    def to_wire(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ModelSpec:
        """The spec in a request (fields a newer app added are ignored)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        if "skip_runtimes" in values:
            values["skip_runtimes"] = tuple(values["skip_runtimes"] or ())
        return cls(**values)


def serves(loaded: ModelSpec, runtime: str | None, wanted: ModelSpec) -> bool:
    """A worker that loaded ``loaded``, on the llama.cpp ``runtime`` (None: not known, or
    another engine), answers a request for ``wanted`` without loading anything."""
    if loaded == wanted:
        return True
    return loaded.base == wanted.base and (runtime is None or runtime not in wanted.skip_runtimes)
