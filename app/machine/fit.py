"""Will it fit?  Memory for a model on this machine, and where its layers should go.

Everything is computed from metadata (the GGUF header or config.json) and the hardware
facts, never by loading weights.  The parts of the estimate, for llama.cpp:

* **weights**: the tensor bytes the GGUF header declares (per layer, plus embeddings/head),
  and a vision model's projector with the buffers of encoding a picture
  (``with_projector``);
* **KV cache**: ``2 × layers × context × kv_heads × head_dim × bytes per element``
  (f16: 2 bytes; q8_0: 34/32; q4_0: 18/32), once per slot (replies at once: each has a
  whole context of its own);
* **compute buffer**: llama.cpp reserves the worst case of one 512-token batch.  Without
  flash attention the attention scores dominate: ``heads × context × 512 × 4`` bytes, plus
  the feed-forward activations ``512 × (6·embedding + 3·feed_forward) × 4``, times 1.1 for
  the rest (within 3 % of what llama.cpp reports for the starter model).  With flash
  attention (used on GPUs) the scores are never materialised.
* **runtime**: the worker process itself (Python and the engine library: each engine's
  ``runtime_bytes`` in the catalogue, about 40 MiB for llama.cpp), and on a GPU the CUDA
  context (about 400 MiB of VRAM).

``total_bytes`` is what stays resident in normal chat: weights + KV + runtime + a quarter of
the compute buffer (a short prompt touches only part of it; measured on the starter model,
245 MiB resident after loading at 4096 tokens against 246 MiB estimated).  ``peak_bytes``
adds the whole compute buffer (a prompt of 512 tokens or more touches all of it) and is
what the verdict uses, so "fits" stays true for long prompts too.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from app.engines import BY_NAME, GPU_LLAMA_OFFLOAD, GPU_TORCH_CUDA, engine_for
from app.json_document import read_json_object
from app.machine.hardware import GpuFacts, SystemFacts
from app.models.gguf_header import GGUFInfo

UBATCH = 512
CUDA_CONTEXT = 400 * 2**20
COMPUTE_RESIDENT_SHARE = 0.25
RAM_SHARE = 0.85  # leave the rest to the system and other programs
VRAM_SHARE = 0.95
METAL_SHARE = 0.70  # macOS lets the GPU use about this much of unified memory
KV_BYTES = {"f16": 2.0, "f32": 4.0, "q8_0": 34 / 32, "q4_0": 18 / 32}
DTYPE_BYTES = {"float32": 4.0, "float16": 2.0, "bfloat16": 2.0, "int8": 1.0, "int4": 0.55}

FITS_GPU, PARTIAL, CPU, NO_FIT = "gpu", "partial", "cpu", "no"

# Memory bandwidth in GB/s of well-known GPUs, for the speed hint only.
GPU_BANDWIDTH = {
    "H200": 4800,
    "H100": 3350,
    "A100": 2000,
    "L40S": 864,
    "RTX 5090": 1792,
    "RTX 4090": 1008,
    "RTX 4080": 717,
    "RTX 4070": 504,
    "RTX 4060": 272,
    "RTX 3090": 936,
    "RTX 3080": 760,
    "RTX 3070": 448,
    "RTX 3060": 360,
    "A10": 600,
    "T4": 320,
    "V100": 900,
}
CPU_BANDWIDTH = 25.0
APPLE_BANDWIDTH = 100.0


@dataclass
class ModelShape:
    name: str
    format: str  # "gguf" or "transformers"
    weights_bytes: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    n_embd: int
    n_ff: int
    n_vocab: int
    layer_bytes: list[int] = field(default_factory=list)
    other_bytes: int = 0
    context_length: int | None = None


@dataclass
class Estimate:
    model: str
    n_ctx: int  # each reply's (slot's) context
    engine: str
    weights_bytes: int
    kv_cache_bytes: int
    overhead_bytes: int
    total_bytes: int
    peak_bytes: int
    verdict: str  # gpu, partial, cpu or no
    verdict_text: str
    gpu_layers: int | None
    n_layers: int
    gpu_bytes: int
    ram_bytes: int
    speed_hint: str
    notes: list[str] = field(default_factory=list)
    tokens_per_s: float = 0.0  # the rough generation speed the hint is about (0: unknown)
    slots: int = 1  # replies at once, a KV cache each (counted in kv_cache_bytes)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class ShapeError(ValueError):
    """The metadata is missing or absurd; the message says which part.  ``impossible``:
    a value is there but no engine could load it (a crafted or damaged file), as opposed
    to facts an unusual architecture simply does not give."""

    def __init__(self, message: str, impossible: bool = False) -> None:
        super().__init__(message)
        self.impossible = impossible


def _positive(value: int | None, what: str, limit: int) -> int:
    if value is None:
        raise ShapeError(f"the model's {what} is missing")
    if value <= 0 or value > limit:
        raise ShapeError(f"the model's {what} is impossible ({value})", impossible=True)
    return int(value)


def shape_from_gguf(info: GGUFInfo) -> ModelShape:
    layers = _positive(info.number("block_count"), "layer count", 10_000)
    heads = _positive(info.number("attention.head_count"), "attention head count", 100_000)
    kv_heads = info.number("attention.head_count_kv") or heads
    embd = _positive(info.number("embedding_length"), "embedding size", 1_000_000)
    head_dim = info.number("attention.key_length") or embd // heads
    vocab = info.number("vocab_size") or info.array_lengths.get("tokenizer.ggml.tokens", 0)
    per_layer = [info.layer_bytes.get(i, 0) for i in range(layers)]
    if not any(per_layer):  # no tensor table: spread the weights evenly
        per_layer = [info.data_size // (layers + 1)] * layers
    return ModelShape(
        name=info.name or info.path.stem,
        format="gguf",
        weights_bytes=info.data_size,
        n_layers=layers,
        n_heads=heads,
        n_kv_heads=_positive(kv_heads, "KV head count", 100_000),
        head_dim=_positive(head_dim, "head size", 100_000),
        n_embd=embd,
        n_ff=info.number("feed_forward_length") or 4 * embd,
        n_vocab=int(vocab or 32_000),
        layer_bytes=per_layer,
        other_bytes=info.other_bytes or max(info.data_size - sum(per_layer), 0),
        context_length=info.context_length,
    )


def shape_from_config(
    folder: Path, dtype: str = "bfloat16", parameters: int | None = None
) -> ModelShape:
    try:
        config = read_json_object(folder / "config.json")
    except (OSError, ValueError) as exc:
        raise ShapeError(f"config.json cannot be read ({exc})") from exc
    config = config.get("text_config", config) if isinstance(config, dict) else {}
    layers = _positive(config.get("num_hidden_layers"), "layer count", 10_000)
    heads = _positive(config.get("num_attention_heads"), "attention head count", 100_000)
    hidden = _positive(config.get("hidden_size"), "hidden size", 1_000_000)
    vocab = int(config.get("vocab_size") or 32_000)
    ff = int(config.get("intermediate_size") or 4 * hidden)
    if not parameters:
        parameters = layers * (4 * hidden * hidden + 3 * hidden * ff) + 2 * vocab * hidden
    weights = int(parameters * DTYPE_BYTES.get(dtype, 2.0))
    per_layer = (weights - 2 * vocab * hidden * DTYPE_BYTES.get(dtype, 2.0)) / layers
    return ModelShape(
        name=folder.name,
        format="transformers",
        weights_bytes=weights,
        n_layers=layers,
        n_heads=heads,
        n_kv_heads=int(config.get("num_key_value_heads") or heads),
        head_dim=int(config.get("head_dim") or hidden // heads),
        n_embd=hidden,
        n_ff=ff,
        n_vocab=vocab,
        layer_bytes=[int(max(per_layer, 0))] * layers,
        other_bytes=int(2 * vocab * hidden * DTYPE_BYTES.get(dtype, 2.0)),
        context_length=config.get("max_position_embeddings"),
    )


def with_projector(shape: ModelShape, projector_bytes: int) -> None:
    """A vision model's projector counts with its weights: its own weights, and an
    allowance of half as much again for the buffers of encoding one picture (llama.cpp
    reserves them for the largest picture the projector takes; an allowance, not yet
    measured against real projectors)."""
    extra = projector_bytes + projector_bytes // 2
    shape.weights_bytes += extra
    shape.other_bytes += extra


def kv_cache_bytes(shape: ModelShape, n_ctx: int, kv_type: str = "f16") -> int:
    per_element = KV_BYTES.get(kv_type, 2.0)
    return int(2 * shape.n_layers * n_ctx * shape.n_kv_heads * shape.head_dim * per_element)


def compute_buffer_bytes(shape: ModelShape, n_ctx: int, flash_attention: bool) -> int:
    scores = 0 if flash_attention else shape.n_heads * n_ctx * UBATCH * 4
    activations = UBATCH * (6 * shape.n_embd + 3 * shape.n_ff) * 4
    return round(1.1 * (scores + activations))


def _gpu_bandwidth(gpu: GpuFacts) -> float:
    if gpu.memory_bandwidth_gb_s:
        return gpu.memory_bandwidth_gb_s
    for key, value in GPU_BANDWIDTH.items():
        if key.lower() in gpu.name.lower():
            return float(value)
    return 300.0


def _speed_hint(gpu_bytes: int, cpu_bytes: int, gpu_bw: float, cpu_bw: float) -> tuple[str, float]:
    """In words, and the rough tokens per second a reply is generated at (0: unknown)."""
    seconds = gpu_bytes / (gpu_bw * 1e9) + cpu_bytes / (cpu_bw * 1e9)
    if seconds <= 0:
        return "", 0.0
    rate = 0.6 / seconds  # about 60 % of the memory bandwidth is reached in practice
    word = (
        "fast"
        if rate >= 30
        else ("usable" if rate >= 8 else ("slow" if rate >= 2 else "very slow"))
    )
    text = f"{word}, roughly {rate:.0f} tokens/s" if rate >= 1 else f"{word}, under 1 token/s"
    return text, rate


def estimate(
    shape: ModelShape,
    facts: SystemFacts,
    n_ctx: int,
    kv_type: str = "f16",
    engine: str | None = None,
    allow_gpu: bool = True,
    slots: int = 1,
) -> Estimate:
    """Memory needed and where to put it on the machine ``facts`` describes; ``slots``
    replies at once, each with a context of ``n_ctx`` tokens (a KV cache each)."""
    if n_ctx <= 0 or n_ctx > 10_000_000:
        raise ShapeError(f"a context of {n_ctx} tokens is impossible", impossible=True)
    slots = max(1, slots)
    chosen = BY_NAME[engine] if engine in BY_NAME else engine_for(shape.format)
    engine = chosen.name
    notes: list[str] = []
    kv = kv_cache_bytes(shape, n_ctx * slots, kv_type)
    ram_budget = int(facts.memory.total_bytes * RAM_SHARE)
    gpus = facts.usable_gpus if allow_gpu else []
    metal = allow_gpu and facts.metal and facts.apple_silicon
    can_offload = bool(gpus or metal) and (
        chosen.gpu != GPU_LLAMA_OFFLOAD or facts.engines.llama_gpu_offload is not False
    )
    if (gpus or metal) and not can_offload:
        notes.append("The installed llama.cpp cannot use the GPU; it runs on the CPU.")
    if chosen.gpu == GPU_TORCH_CUDA:
        torch = facts.engines.torch
        if gpus and not (torch.installed and torch.cuda_available):
            can_offload = False
            notes.append("The installed PyTorch cannot use the GPU (CPU build or no CUDA).")
    runtime = chosen.runtime_bytes
    compute_cpu = compute_buffer_bytes(shape, n_ctx, flash_attention=False)
    overhead = runtime + int(COMPUTE_RESIDENT_SHARE * compute_cpu)
    peak = shape.weights_bytes + kv + runtime + compute_cpu
    cpu_bw = APPLE_BANDWIDTH if facts.apple_silicon else CPU_BANDWIDTH

    def result(
        verdict: str,
        text: str,
        gpu_layers: int | None,
        overhead_bytes: int,
        peak_bytes: int,
        gpu_bytes: int,
        ram_bytes: int,
        speed: tuple[str, float],
    ) -> Estimate:
        return Estimate(
            model=shape.name,
            n_ctx=n_ctx,
            slots=slots,
            engine=engine,
            weights_bytes=shape.weights_bytes,
            kv_cache_bytes=kv,
            overhead_bytes=overhead_bytes,
            total_bytes=shape.weights_bytes + kv + overhead_bytes,
            peak_bytes=peak_bytes,
            verdict=verdict,
            verdict_text=text,
            gpu_layers=gpu_layers,
            n_layers=shape.n_layers,
            gpu_bytes=gpu_bytes,
            ram_bytes=ram_bytes,
            speed_hint=speed[0],
            notes=notes,
            tokens_per_s=round(speed[1], 1),
        )

    no_gpu_layers = 0 if gpus or metal else None
    if can_offload:
        if metal and not gpus:
            vram = int(facts.memory.total_bytes * METAL_SHARE)
            device_overhead, bandwidth = 0, APPLE_BANDWIDTH
        else:
            vram = int(sum(g.vram_free_bytes or g.vram_total_bytes for g in gpus) * VRAM_SHARE)
            device_overhead = CUDA_CONTEXT * len(gpus)
            bandwidth = min(_gpu_bandwidth(g) for g in gpus)
        compute_gpu = compute_buffer_bytes(shape, n_ctx, flash_attention=True)
        per_layer_kv = kv / shape.n_layers
        full = shape.weights_bytes + kv + compute_gpu + device_overhead
        if full <= vram:
            gpu_overhead = compute_gpu + device_overhead + runtime
            speed = _speed_hint(shape.weights_bytes, 0, bandwidth, cpu_bw)
            everything = full + runtime  # no CPU compute buffer on this path: peak == total
            return result(
                FITS_GPU,
                "fits on the GPU",
                shape.n_layers,
                gpu_overhead,
                everything,
                full,
                runtime,
                speed,
            )
        room = vram - compute_gpu - device_overhead
        layers = 0
        used = 0.0
        for size in reversed(shape.layer_bytes):
            if used + size + per_layer_kv > room:
                break
            used += size + per_layer_kv
            layers += 1
        gpu_bytes = int(used) + compute_gpu + device_overhead if layers else 0
        gpu_weights = int(used - per_layer_kv * layers)
        ram_bytes = (
            shape.weights_bytes
            - gpu_weights
            + int(kv - per_layer_kv * layers)
            + runtime
            + compute_cpu
        )
        if layers and ram_bytes <= ram_budget:
            extra = compute_gpu + device_overhead
            speed = _speed_hint(gpu_weights, shape.weights_bytes - gpu_weights, bandwidth, cpu_bw)
            return result(
                PARTIAL,
                f"partly on the GPU ({layers} of {shape.n_layers} layers)",
                layers,
                overhead + extra,
                peak + extra,
                gpu_bytes,
                ram_bytes,
                speed,
            )
        if not layers:
            notes.append("Not even one layer fits in the free GPU memory.")

    if peak <= ram_budget:
        if chosen.gpu == GPU_TORCH_CUDA and gpus:
            notes.append("Without a usable GPU this model runs on the CPU in float32: slowly.")
        return result(
            CPU,
            "CPU and RAM",
            no_gpu_layers,
            overhead,
            peak,
            0,
            peak,
            _speed_hint(0, shape.weights_bytes, 1.0, cpu_bw),
        )
    notes.append(
        f"It needs about {peak / 1e9:.1f} GB but about {ram_budget / 1e9:.1f} GB of memory is "
        "usable here. Choose a smaller quantization or a shorter context."
    )
    return result(NO_FIT, "will not fit", no_gpu_layers, overhead, peak, 0, peak, ("", 0.0))
