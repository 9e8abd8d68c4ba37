"""The memory estimator against worked examples computed by hand.

Three GGUF files are built with the ``gguf`` package.  They carry only the header (the
estimator never reads weights), with the real shapes of:

* 1.5B (Qwen2.5-1.5B): 28 layers, 12 heads, 2 KV heads, head size 128, embedding 1536,
  feed-forward 8960; 30,000,000 bytes per layer + 140,000,000 other → weights 980,000,000.
* 7B (Qwen2.5-7B / DeepSeek-R1-Distill-Qwen-7B): 28 layers, 28 heads, 4 KV heads, head 128,
  embedding 3584, feed-forward 18944; 150,000,000 per layer + 480,000,000 → 4,680,000,000.
* 70B (Llama-3.1-70B / R1-Distill-Llama-70B): 80 layers, 64 heads, 8 KV heads, head 128,
  embedding 8192, feed-forward 28672; 520,000,000 per layer + 900,000,000 → 42,500,000,000.

KV cache = 2 × layers × context × KV heads × 128 × 2 bytes:
  1.5B: 117,440,512 at 4k, 939,524,096 at 32k; 7B: 234,881,024 / 1,879,048,192;
  70B: 1,342,177,280 / 10,737,418,240 (16,777,216 and 134,217,728 per layer).

Flash-attention compute buffer (GPU) = 1.1 × 512 × (6·embedding + 3·feed-forward) × 4:
  1.5B 81,317,069; 7B 176,475,341; 70B 304,506,470.  Without flash attention (CPU) add
  1.1 × heads × context × 512 × 4: 70B at 4k → 895,064,474 in all, at 32k → 5,028,970,496.

Worked verdicts (usable VRAM = free × 0.95, minus 419,430,400 of CUDA context; usable RAM =
total × 0.85; Apple: 70 % of memory for Metal, no CUDA context):

* H200 (142 GB free): everything fits on the GPU; the largest, 70B at 32k, needs
  42.5e9 + 10.74e9 + 0.30e9 + 0.42e9 = 53.96e9 of 134.9e9.
* RTX 3060 (12.0e9 free → 11.4e9; 64 GB RAM → 54.4e9): 1.5B and 7B fit on the GPU
  (7B at 32k: 4.68e9 + 1.88e9 + 0.18e9 + 0.42e9 = 7.16e9).  70B at 4k: room for layers
  11.4e9 − 0.30e9 − 0.42e9 = 10.676e9 at 536,777,216 per layer (weights + KV) → 19 layers;
  the rest in RAM: 42.5e9 − 9.88e9 + 1.342e9 − 0.319e9 + 0.042e9 + 0.895e9 = 34.58e9 ≤ 54.4e9 →
  partly on the GPU (19 of 80).  At 32k: 654,217,728 per layer → 16 layers; RAM 47.8e9 →
  partly (16 of 80).
* Laptop without GPU (16 GB → 13.6e9): 1.5B and 7B run on the CPU (7B at 32k peaks at
  4.68e9 + 1.88e9 + 0.04e9 + 2.24e9 = 8.84e9); 70B will not fit.
* Apple M2 (16 GB; 11.2e9 for Metal): 1.5B and 7B fit on the GPU; 70B: 20 layers would fit
  in 11.2e9 but 34.0e9 would remain for 13.6e9 of RAM → will not fit.
"""

import os
from pathlib import Path

import gguf
import numpy as np
import pytest

from app.core import Core
from app.machine.fit import (
    CPU,
    FITS_GPU,
    NO_FIT,
    PARTIAL,
    Estimate,
    ModelShape,
    ShapeError,
    compute_buffer_bytes,
    estimate,
    kv_cache_bytes,
    shape_from_gguf,
)
from app.models.gguf_header import read_gguf
from tests.conftest import recorded_machine as machine

SHAPES = {
    "1.5B": dict(
        layers=28,
        heads=12,
        kv=2,
        embd=1536,
        ff=8960,
        vocab=151936,
        layer_bytes=30_000_000,
        other=140_000_000,
    ),
    "7B": dict(
        layers=28,
        heads=28,
        kv=4,
        embd=3584,
        ff=18944,
        vocab=152064,
        layer_bytes=150_000_000,
        other=480_000_000,
    ),
    "70B": dict(
        layers=80,
        heads=64,
        kv=8,
        embd=8192,
        ff=28672,
        vocab=128256,
        layer_bytes=520_000_000,
        other=900_000_000,
    ),
}


def header_only_gguf(
    path: Path,
    layers: int,
    heads: int,
    kv: int,
    embd: int,
    ff: int,
    vocab: int,
    layer_bytes: int,
    other: int,
) -> Path:
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(layers)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv)
    writer.add_embedding_length(embd)
    writer.add_feed_forward_length(ff)
    writer.add_vocab_size(vocab)
    writer.add_context_length(131072)
    writer.add_file_type(15)  # Q4_K_M
    f32 = np.dtype(np.float32)
    writer.add_tensor_info("token_embd.weight", [other // 4], f32, other)
    for layer in range(layers):
        writer.add_tensor_info(f"blk.{layer}.weights", [layer_bytes // 4], f32, layer_bytes)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    writer.close()
    return path


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModelShape]:
    folder = tmp_path_factory.mktemp("ggufs")
    return {
        name: shape_from_gguf(
            read_gguf(header_only_gguf(folder / f"{name}.gguf", **spec), check_data=False)
        )
        for name, spec in SHAPES.items()
    }


def test_shapes_are_read_from_the_header(shapes: dict[str, ModelShape]) -> None:
    big = shapes["70B"]
    assert (big.n_layers, big.n_heads, big.n_kv_heads, big.head_dim) == (80, 64, 8, 128)
    assert big.weights_bytes == 42_500_000_000
    assert big.layer_bytes[0] == 520_000_000 and big.other_bytes == 900_000_000


@pytest.mark.parametrize(
    ("model", "ctx", "kv"),
    [
        ("1.5B", 4096, 117_440_512),
        ("1.5B", 32768, 939_524_096),
        ("7B", 4096, 234_881_024),
        ("7B", 32768, 1_879_048_192),
        ("70B", 4096, 1_342_177_280),
        ("70B", 32768, 10_737_418_240),
    ],
)
def test_kv_cache_by_hand(shapes: dict[str, ModelShape], model: str, ctx: int, kv: int) -> None:
    assert kv_cache_bytes(shapes[model], ctx) == kv


def test_compute_buffers_by_hand(shapes: dict[str, ModelShape]) -> None:
    assert compute_buffer_bytes(shapes["1.5B"], 4096, flash_attention=True) == 81_317_069
    assert compute_buffer_bytes(shapes["7B"], 4096, flash_attention=True) == 176_475_341
    assert compute_buffer_bytes(shapes["70B"], 4096, flash_attention=True) == 304_506_470
    assert compute_buffer_bytes(shapes["70B"], 4096, flash_attention=False) == 895_064_474
    assert compute_buffer_bytes(shapes["70B"], 32768, flash_attention=False) == 5_028_970_496


WORKED = [
    # machine, model, context, verdict, GPU layers
    ("h200", "1.5B", 4096, FITS_GPU, 28),
    ("h200", "1.5B", 32768, FITS_GPU, 28),
    ("h200", "7B", 4096, FITS_GPU, 28),
    ("h200", "7B", 32768, FITS_GPU, 28),
    ("h200", "70B", 4096, FITS_GPU, 80),
    ("h200", "70B", 32768, FITS_GPU, 80),
    ("rtx3060", "1.5B", 4096, FITS_GPU, 28),
    ("rtx3060", "1.5B", 32768, FITS_GPU, 28),
    ("rtx3060", "7B", 4096, FITS_GPU, 28),
    ("rtx3060", "7B", 32768, FITS_GPU, 28),
    ("rtx3060", "70B", 4096, PARTIAL, 19),
    ("rtx3060", "70B", 32768, PARTIAL, 16),
    ("laptop", "1.5B", 4096, CPU, None),
    ("laptop", "1.5B", 32768, CPU, None),
    ("laptop", "7B", 4096, CPU, None),
    ("laptop", "7B", 32768, CPU, None),
    ("laptop", "70B", 4096, NO_FIT, None),
    ("laptop", "70B", 32768, NO_FIT, None),
    ("m2", "1.5B", 4096, FITS_GPU, 28),
    ("m2", "1.5B", 32768, FITS_GPU, 28),
    ("m2", "7B", 4096, FITS_GPU, 28),
    ("m2", "7B", 32768, FITS_GPU, 28),
    ("m2", "70B", 4096, NO_FIT, 0),
    ("m2", "70B", 32768, NO_FIT, 0),
]


@pytest.mark.parametrize(("name", "model", "ctx", "verdict", "layers"), WORKED)
def test_worked_verdicts(
    shapes: dict[str, ModelShape], name: str, model: str, ctx: int, verdict: str, layers: int | None
) -> None:
    result = estimate(shapes[model], machine(name), ctx)
    assert (result.verdict, result.gpu_layers) == (verdict, layers), result.notes
    assert (
        result.total_bytes == result.weights_bytes + result.kv_cache_bytes + result.overhead_bytes
    )
    if verdict == PARTIAL:
        assert result.verdict_text == f"partly on the GPU ({layers} of 80 layers)"
    if verdict == NO_FIT:
        assert "smaller quantization" in result.notes[-1]


def test_rtx3060_70b_ram_share_by_hand(shapes: dict[str, ModelShape]) -> None:
    result = estimate(shapes["70B"], machine("rtx3060"), 4096)
    # 42.5e9 − 19×520e6 + 1,342,177,280 − 19×16,777,216 + 41,943,040 + 895,064,474
    assert (
        result.ram_bytes
        == 42_500_000_000 - 9_880_000_000 + 1_342_177_280 - 318_767_104 + 41_943_040 + 895_064_474
    )


def test_a_cpu_only_llama_build_is_not_offered_the_gpu(shapes: dict[str, ModelShape]) -> None:
    facts = machine("rtx3060")
    facts.engines.llama_gpu_offload = False
    result = estimate(shapes["7B"], facts, 4096)
    assert result.verdict == CPU and "cannot use the GPU" in result.notes[0]


def test_absurd_headers_are_a_clear_error(tmp_path: Path) -> None:
    broken = header_only_gguf(
        tmp_path / "b.gguf",
        layers=0,
        heads=8,
        kv=8,
        embd=64,
        ff=64,
        vocab=10,
        layer_bytes=4,
        other=4,
    )
    with pytest.raises(ShapeError, match="layer count"):
        shape_from_gguf(read_gguf(broken, check_data=False))
    with pytest.raises(ShapeError, match="context"):
        estimate(ModelShape("x", "gguf", 1, 1, 1, 1, 1, 1, 1, 1, [1]), machine("laptop"), -5)


@pytest.mark.linux_only(
    "llama.cpp reads the weights in at load (MAP_POPULATE) on Linux alone: on Windows and "
    "macOS they are not yet in the worker's resident memory, which the estimate is measured by"
)
def test_the_starter_model_estimate_matches_the_worker(starter: Path, client, spec) -> None:
    """Estimated resident memory within 15 % of the worker's RSS after loading."""
    from app.machine.hardware import probe_system
    from app.processes import tree_rss
    from wire.model_spec import ModelSpec

    at_4k = ModelSpec(spec.path, n_ctx=4096, threads=2)
    assert client.load(at_4k).wait(60) is not None
    rss = tree_rss(client.worker_pid)  # the interpreter, not a Windows venv's launcher
    result = estimate(
        shape_from_gguf(read_gguf(starter)), probe_system(starter.parent, engines=False), 4096
    )
    assert abs(result.total_bytes - rss) / rss < 0.15, (result.total_bytes, rss)


def test_on_a_mac_a_model_on_the_gpu_counts_against_the_ram(core: Core, starter: Path) -> None:
    """Apple silicon's GPU computes in the computer's RAM: a model placed on it counts
    there in the engines' budget (so an idle model ends for a new one, as on a PC), not as
    the runtime's few MiB; on a PC with an NVIDIA card its layers count against the card."""
    from app.engine.budget import MemoryBudget
    from wire.model_spec import ModelSpec

    spec = ModelSpec(str(starter), n_ctx=4096, gpu_layers=-1)
    core.facts = machine("m2")
    mac = core.memory_needs(spec)
    assert mac.vram_bytes == 0 and mac.ram_bytes > starter.stat().st_size, mac
    room_for_one = MemoryBudget(ram_bytes=int(mac.ram_bytes * 1.5))
    assert room_for_one.fits(mac.ram_bytes, 0, mac.vram_bytes)
    assert not room_for_one.fits(2 * mac.ram_bytes, 0, mac.vram_bytes), "not two at once"
    core.facts = machine("rtx3060")
    pc = core.memory_needs(spec)
    assert pc.vram_bytes > 0 and pc.ram_bytes < mac.ram_bytes, pc


def test_the_recommended_quantization_follows_the_machine(shapes: dict[str, ModelShape]) -> None:
    from app.hub.recommend import recommend
    from app.hub.remote_header import scaled
    from app.hub.repo_files import Offer

    base = shapes["7B"]
    sizes = {
        "Q2_K": 3_000_000_000,
        "Q4_K_M": 4_680_000_000,
        "Q6_K": 6_250_000_000,
        "Q8_0": 8_100_000_000,
    }
    offers = [Offer(q, "gguf", quantization=q) for q in sizes]

    def pick(name: str, ctx: int) -> str:
        results = {
            i: estimate_for(scaled(base, sizes[o.label], o.label), name, ctx)
            for i, o in enumerate(offers)
        }
        chosen = recommend(offers, results)
        return "" if chosen is None else chosen.label

    def estimate_for(shape: ModelShape, name: str, ctx: int) -> Estimate:
        return estimate(shape, machine(name), ctx)

    assert pick("h200", 4096) == "Q8_0"  # plenty of VRAM: best quality
    assert pick("rtx3060", 4096) == "Q8_0"  # 8.1e9 + 0.23e9 + 0.18e9 + 0.42e9 < 11.4e9
    # At 64k the KV cache is 3.76e9: Q8_0 needs 8.1e9 + 3.76e9 + 0.18e9 + 0.42e9 = 12.45e9 (too
    # much), Q6_K 6.25e9 + 3.76e9 + 0.59e9 = 10.6e9 (fits).
    assert pick("rtx3060", 65536) == "Q6_K"
    assert pick("laptop", 4096) == "Q4_K_M"  # CPU: the usual balance


def test_each_reply_at_once_has_a_kv_cache_of_its_own(shapes: dict[str, ModelShape]) -> None:
    one = estimate(shapes["7B"], machine("rtx3060"), 4096)
    four = estimate(shapes["7B"], machine("rtx3060"), 4096, slots=4)
    assert four.kv_cache_bytes == 4 * 234_881_024 == 4 * one.kv_cache_bytes
    assert (four.slots, four.n_ctx) == (4, 4096), "the context is each reply's"
    assert four.total_bytes - one.total_bytes == 3 * 234_881_024


@pytest.mark.parametrize(
    ("name", "model", "ctx", "slots"),
    [
        # 4.68e9 + n × 1.879e9 + 0.176e9 + 0.419e9 within 11.4e9: three on the GPU, not four.
        ("rtx3060", "7B", 32768, 3),
        # Partly on the GPU, 19 layers: with two KV caches 19 × 553,554,432 still fit in
        # 10.676e9; with three (570,331,648 a layer) only 18 would.
        ("rtx3060", "70B", 4096, 2),
        ("rtx3060", "70B", 32768, 1),  # 16 layers; with a second 134 MB cache a layer: 13
        # On the CPU: 8.84e9 + n−1 more KV caches within 13.6e9 of RAM.
        ("laptop", "7B", 32768, 3),
        ("h200", "7B", 32768, 4),
    ],
)
def test_replies_at_once_never_cost_one_reply_its_place(
    tmp_path: Path, name: str, model: str, ctx: int, slots: int
) -> None:
    from app.machine.fit_service import fitted_slots
    from app.models.library import describe

    path = header_only_gguf(tmp_path / f"{model}.gguf", **SHAPES[model])
    spec = SHAPES[model]
    data = spec["other"] + spec["layers"] * spec["layer_bytes"] + (spec["layers"] + 1) * 32
    os.truncate(path, path.stat().st_size + data)  # sparse: a whole file, nothing written
    entry = describe(path, "file")
    assert not entry.warning
    assert fitted_slots(entry, machine(name), ctx, 4) == slots
