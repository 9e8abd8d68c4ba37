"""The GPU check kit: everything ``packaging/gpu-check.sh`` needs beyond the repository and
a machine's own Python packages, and the check itself.

    python packaging/gpu_kit.py make [KIT]          # here: stage the kit (about 12 MB)
    python packaging/gpu_kit.py run [KIT] [--cpu]   # there: build, measure, print JSON

The kit (``.cache/gpu-kit`` by default) holds llama-cpp-python's Python code and
``diskcache`` (pure Python), the llama.cpp source that llama-cpp-python vendors (without
its models, docs and web UI), and the starter model's tokenizer.  ``run`` builds the CUDA
runtime (and the Vulkan one where glslc is installed) from that source with CMake for this
GPU's architecture only, together with ``llama-bench`` and ``llama-quantize`` from the same
build; writes a model of a real shape with random weights (speed does not depend on the
weights), quantised to Q4_K_M for llama.cpp and in bfloat16 for transformers; then measures
Hearth's engines through the real worker against ``llama-bench`` on the same build, and what
``fit`` predicted against the memory ``nvidia-smi`` saw.  It uses what is installed and says
what it skipped.  ``--cpu`` runs the same steps on a machine without a GPU (a CPU build of
a small shape), which is how the kit itself is tested.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_KIT = REPO / ".cache" / "gpu-kit"
# Left out of the llama.cpp source: what no build needs.
SOURCE_SKIP = ("models", "docs", "media", "examples", "tools/ui", ".github", "scripts", "ci")
# A model of SmolLM2-1.7B's shape (the starter model's family, so its tokenizer fits).
GPU_SHAPE = {"hidden": 2048, "layers": 24, "heads": 32, "kv_heads": 32, "ffn": 8192}
CPU_SHAPE = {"hidden": 256, "layers": 4, "heads": 4, "kv_heads": 4, "ffn": 768}
ROUNDS = 3
GENERATE = 128


# -- here: staging the kit -------------------------------------------------------------
def make_kit(kit: Path) -> None:
    import importlib.util

    kit.mkdir(parents=True, exist_ok=True)
    python = kit / "python"
    shutil.rmtree(python, ignore_errors=True)
    for package in ("llama_cpp", "diskcache"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None, f"{package} is not installed"
        shutil.copytree(
            Path(spec.origin).parent,
            python / package,
            ignore=shutil.ignore_patterns("lib", "__pycache__", "server"),
        )
    version = _llama_version(python)
    sdist = _sdist(version, kit)
    with tarfile.open(sdist) as archive, tarfile.open(kit / "llama.cpp.tar.gz", "w:gz") as out:
        prefix = f"llama_cpp_python-{version}/vendor/llama.cpp/"
        for member in archive.getmembers():
            if not member.name.startswith(prefix):
                continue
            relative = member.name[len(prefix) :]
            if any(relative == s or relative.startswith(s + "/") for s in SOURCE_SKIP):
                continue
            member.name = "llama.cpp/" + relative
            out.addfile(member, archive.extractfile(member) if member.isfile() else None)
    sdist.unlink()
    _save_tokenizer(kit / "tokenizer")
    size = sum(p.stat().st_size for p in kit.rglob("*") if p.is_file())
    print(f"gpu kit ready in {kit}: {size / 2**20:.1f} MiB")


def _llama_version(python: Path) -> str:
    text = (python / "llama_cpp" / "__init__.py").read_text()
    return text.split('__version__ = "')[1].split('"')[0]


def _sdist(version: str, kit: Path) -> Path:
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"),
            *("--no-binary", ":all:", "-d", str(kit), f"llama-cpp-python=={version}"),
        ],
        check=True,
    )
    return kit / f"llama_cpp_python-{version}.tar.gz"


def _save_tokenizer(folder: Path) -> None:
    """The starter model's tokenizer: GGUF fields for llama.cpp, files for transformers."""
    import gguf
    from transformers import AutoTokenizer

    from app.models.library import starter_model_path

    starter = starter_model_path()
    assert starter is not None, "the starter model is not installed"
    folder.mkdir(parents=True, exist_ok=True)
    reader = gguf.GGUFReader(str(starter))
    fields: dict[str, Any] = {}
    for key, field in reader.fields.items():
        if key.startswith("tokenizer."):
            fields[key] = field.contents()
    (folder / "gguf_tokenizer.json").write_text(json.dumps(fields))
    tokenizer = AutoTokenizer.from_pretrained(str(starter.parent), gguf_file=starter.name)
    tokenizer.save_pretrained(str(folder / "hf"))


# -- there: the check ------------------------------------------------------------------
class Report:
    """The JSON report, with a step log that says what ran, what was skipped and why."""

    def __init__(self, budget_s: float) -> None:
        self.started = time.monotonic()
        self.budget_s = budget_s
        self.data: dict[str, Any] = {"steps": []}

    def left(self) -> float:
        return self.budget_s - (time.monotonic() - self.started)

    def step(self, name: str, status: str, **details: Any) -> None:
        entry = {"step": name, "status": status, "at_s": round(time.monotonic() - self.started, 1)}
        self.data["steps"].append({**entry, **details})
        print(f"gpu-check: {name}: {status} {details or ''}", file=sys.stderr, flush=True)


def run_check(kit: Path, cpu: bool, budget_s: float) -> dict[str, Any]:
    report = Report(budget_s)
    work = kit / "work"
    work.mkdir(parents=True, exist_ok=True)
    report.data["machine"] = _machine(cpu)
    arch = report.data["machine"].get("cuda_arch")
    if not (kit / "llama.cpp.tar.gz").is_file():
        report.step("kit", "failed", reason=f"no kit at {kit}: run 'make gpu-kit' first")
        return report.data
    source = work / "llama.cpp"
    if not source.is_dir():
        with tarfile.open(kit / "llama.cpp.tar.gz") as archive:
            archive.extractall(work, filter="data")
    version = _llama_version(kit / "python")
    builds: dict[str, Path] = {}
    kinds = ["cpu"] if cpu else ["cuda", "vulkan"]
    for kind in kinds:
        reason = _cannot_build(kind, arch)
        if reason:
            report.step(f"build {kind}", "skipped", reason=reason)
            continue
        started = time.monotonic()
        try:
            builds[kind] = _build(source, work / f"build-{kind}", kind, arch, version, work)
            report.step(f"build {kind}", "ok", seconds=round(time.monotonic() - started, 1))
        except subprocess.CalledProcessError as exc:
            report.step(f"build {kind}", "failed", reason=str(exc), log=_tail(exc))
    if not builds:
        return report.data
    first = builds[kinds[0]] if kinds[0] in builds else next(iter(builds.values()))
    shape = CPU_SHAPE if cpu else GPU_SHAPE
    started = time.monotonic()
    try:
        model = _gguf_model(kit, source, first, work, shape)
    except Exception as exc:  # noqa: BLE001 - reported
        report.step("model", "failed", reason=f"{type(exc).__name__}: {exc}")
        return report.data
    report.step("model", "ok", path=model.name, seconds=round(time.monotonic() - started, 1))
    results = {}
    for kind, build in builds.items():
        if report.left() < 60:
            report.step(f"measure {kind}", "skipped", reason="out of time")
            continue
        try:
            results[kind] = _measure_llama(kit, build, kind, model, cpu)
            report.step(f"measure {kind}", "ok")
        except Exception as exc:  # noqa: BLE001 - reported
            report.step(f"measure {kind}", "failed", reason=f"{type(exc).__name__}: {exc}")
    report.data["llama_cpp"] = results
    if cpu:
        report.step("transformers", "skipped", reason="--cpu (the check is for CUDA)")
    elif report.left() < 90:
        report.step("transformers", "skipped", reason="out of time")
    else:
        try:
            report.data["transformers"] = _measure_transformers(kit, work, shape)
            report.step("transformers", "ok")
        except Exception as exc:  # noqa: BLE001
            report.step("transformers", "failed", reason=f"{type(exc).__name__}: {exc}")
    report.data["seconds"] = round(time.monotonic() - report.started, 1)
    return report.data


def _machine(cpu: bool) -> dict[str, Any]:
    facts: dict[str, Any] = {"python": sys.version.split()[0]}
    if shutil.which("nvidia-smi"):
        query = "name,memory.total,driver_version,compute_cap"
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if out:
            name, memory, driver, cap = [p.strip() for p in out.splitlines()[0].split(",")]
            facts.update(gpu=name, memory=memory, driver=driver)
            facts["cuda_arch"] = cap.replace(".", "")
    try:
        import torch

        facts["torch"] = torch.__version__
        facts["torch_cuda"] = bool(torch.cuda.is_available())
    except ImportError:
        facts["torch"] = None
    facts["nvcc"] = shutil.which("nvcc")
    facts["glslc"] = shutil.which("glslc")
    facts["mode"] = "cpu" if cpu else "gpu"
    return facts


def _cannot_build(kind: str, arch: str | None) -> str:
    if shutil.which("cmake") is None:
        return "cmake is not installed"
    if kind == "cuda":
        if shutil.which("nvcc") is None:
            return "nvcc is not installed"
        if not arch:
            return "nvidia-smi named no GPU"
    if kind == "vulkan" and (
        shutil.which("glslc") is None or not Path("/usr/include/vulkan/vulkan.h").exists()
    ):
        return "glslc or the Vulkan headers are not installed"
    return ""


def _build(
    source: Path, build: Path, kind: str, arch: str | None, version: str, work: Path
) -> Path:
    """llama.cpp's shared libraries, llama-bench and llama-quantize from one build; the
    libraries become the runtime folder ``work/runtimes/KIND``."""
    flags = {
        "cpu": ["-DGGML_NATIVE=ON"],
        "cuda": ["-DGGML_CUDA=ON", f"-DCMAKE_CUDA_ARCHITECTURES={arch}"],
        "vulkan": ["-DGGML_VULKAN=ON"],
    }[kind]
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(
        [
            *("cmake", "-S", str(source), "-B", str(build), *generator),
            *("-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=ON", "-DLLAMA_BUILD_TESTS=OFF"),
            *("-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=OFF", "-DLLAMA_CURL=OFF"),
            *("-DLLAMA_OPENSSL=OFF", *flags),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    subprocess.run(
        [
            *("cmake", "--build", str(build), "-j", str(os.cpu_count() or 2)),
            *("--target", "llama", "llama-bench", "llama-quantize"),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    name = runtime_name(kind)
    runtime = work / "runtimes" / name
    shutil.rmtree(runtime, ignore_errors=True)
    runtime.mkdir(parents=True)
    for library in (build / "bin").glob("lib*.so*"):
        shutil.copy2(library, runtime / library.name)
    manifest = {"name": name, "kind": kind, "llama_cpp_python": version}
    (runtime / "runtime.json").write_text(json.dumps(manifest))
    return build


def runtime_name(kind: str) -> str:
    """ "cpu" is the built-in runtime's name: the kit's CPU build needs another."""
    return "cpu-kit" if kind == "cpu" else kind


def _tail(exc: subprocess.CalledProcessError) -> str:
    return str(exc.stderr or exc.stdout or "")[-2000:]


def _gguf_model(kit: Path, source: Path, build: Path, work: Path, shape: dict[str, int]) -> Path:
    """A Llama-shaped model with random F16 weights and the starter's tokenizer, quantised
    to Q4_K_M with llama-quantize."""
    quantised = work / f"random-{shape['hidden']}x{shape['layers']}.Q4_K_M.gguf"
    if quantised.is_file():
        return quantised
    sys.path.insert(0, str(source / "gguf-py"))
    import gguf
    import numpy as np

    tokenizer = json.loads((kit / "tokenizer" / "gguf_tokenizer.json").read_text())
    vocab = len(tokenizer["tokenizer.ggml.tokens"])
    hidden, heads, kv_heads = shape["hidden"], shape["heads"], shape["kv_heads"]
    head_dim = hidden // heads
    f16 = work / "random-f16.gguf"
    writer = gguf.GGUFWriter(str(f16), "llama")
    writer.add_name("random weights, SmolLM2 shape")
    writer.add_block_count(shape["layers"])
    writer.add_context_length(8192)
    writer.add_embedding_length(hidden)
    writer.add_feed_forward_length(shape["ffn"])
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(130000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(vocab)
    writer.add_file_type(1)  # mostly F16
    _add_tokenizer(writer, tokenizer)
    rng = np.random.default_rng(0)

    def weights(*dims: int) -> Any:
        return (rng.standard_normal(dims, dtype=np.float32) * 0.02).astype(np.float16)

    writer.add_tensor("token_embd.weight", weights(vocab, hidden))
    writer.add_tensor("output_norm.weight", np.ones(hidden, dtype=np.float32))
    for layer in range(shape["layers"]):
        block = f"blk.{layer}."
        writer.add_tensor(block + "attn_norm.weight", np.ones(hidden, dtype=np.float32))
        writer.add_tensor(block + "ffn_norm.weight", np.ones(hidden, dtype=np.float32))
        writer.add_tensor(block + "attn_q.weight", weights(hidden, hidden))
        writer.add_tensor(block + "attn_k.weight", weights(kv_heads * head_dim, hidden))
        writer.add_tensor(block + "attn_v.weight", weights(kv_heads * head_dim, hidden))
        writer.add_tensor(block + "attn_output.weight", weights(hidden, hidden))
        writer.add_tensor(block + "ffn_gate.weight", weights(shape["ffn"], hidden))
        writer.add_tensor(block + "ffn_up.weight", weights(shape["ffn"], hidden))
        writer.add_tensor(block + "ffn_down.weight", weights(hidden, shape["ffn"]))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    subprocess.run(
        [str(build / "bin" / "llama-quantize"), str(f16), str(quantised), "Q4_K_M"],
        check=True,
        capture_output=True,
        env=_library_env(build),
    )
    f16.unlink()
    return quantised


def _add_tokenizer(writer: Any, fields: dict[str, Any]) -> None:
    writer.add_tokenizer_model(fields["tokenizer.ggml.model"])
    writer.add_tokenizer_pre(fields.get("tokenizer.ggml.pre", "default"))
    writer.add_token_list(fields["tokenizer.ggml.tokens"])
    writer.add_token_types(fields["tokenizer.ggml.token_type"])
    writer.add_token_merges(fields["tokenizer.ggml.merges"])
    writer.add_bos_token_id(fields["tokenizer.ggml.bos_token_id"])
    writer.add_eos_token_id(fields["tokenizer.ggml.eos_token_id"])
    writer.add_add_bos_token(bool(fields.get("tokenizer.ggml.add_bos_token", False)))
    writer.add_chat_template(fields["tokenizer.chat_template"])


def _library_env(build: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = f"{build / 'bin'}:{env.get('LD_LIBRARY_PATH', '')}"
    return env


def _llama_bench(build: Path, model: Path, layers: int, prompt: int, generate: int) -> float:
    output = subprocess.run(
        [
            *(str(build / "bin" / "llama-bench"), "-m", str(model), "-ngl", str(layers)),
            *("-p", str(prompt), "-n", str(generate), "-r", "1", "-o", "json"),
        ],
        capture_output=True,
        text=True,
        check=True,
        env=_library_env(build),
        timeout=300,
    ).stdout
    return float(json.loads(output)[0]["avg_ts"])


def _hearth_env(kit: Path, runtimes: Path) -> None:
    """The worker finds the kit's llama_cpp and the runtimes just built."""
    paths = [str(REPO), str(kit / "python"), os.environ.get("PYTHONPATH", "")]
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    os.environ["HEARTH_RUNTIMES_DIR"] = str(runtimes)
    for path in (str(REPO), str(kit / "python")):
        if path not in sys.path:
            sys.path.insert(0, path)


def _measure_llama(kit: Path, build: Path, kind: str, model: Path, cpu: bool) -> dict[str, Any]:
    _hearth_env(kit, build.parent / "runtimes")
    from app.engine_client import EngineClient
    from hearth.bench.engine_speed import reply_stats
    from wire.model_spec import ModelSpec

    layers = 0 if cpu else 99
    spec = ModelSpec(
        path=str(model),
        n_ctx=4096,
        threads=os.cpu_count() or 2,
        gpu_layers=-1 if layers else 0,
        runtime=runtime_name(kind),
    )
    client = EngineClient()
    prompt = [{"role": "user", "content": "Write a long story about a lighthouse keeper."}]
    long_prompt = [{"role": "user", "content": "lighthouse storm keeper ship " * 100}]
    figures: dict[str, list[float]] = {
        k: [] for k in ("hearth_tg", "bench_tg", "hearth_pp", "bench_pp", "ttft_ms")
    }
    used = _GpuMemory(lambda: client.worker_pid)
    try:
        plain = {"temperature": 0, "max_tokens": GENERATE, "ignore_eos": True}
        stats = reply_stats(client, spec, prompt, **plain, prompt_lookup=False)
        runtime = stats.get("runtime")
        used.start()
        for index in range(ROUNDS):
            stats = reply_stats(client, spec, prompt, **plain, prompt_lookup=False)
            figures["hearth_tg"].append(float(stats["tokens_per_s"]))
            figures["ttft_ms"].append(float(stats["ttft_ms"]))
            figures["bench_tg"].append(_llama_bench(build, model, layers, 0, GENERATE))
            varied = [{"role": "user", "content": f"{index} " + long_prompt[0]["content"]}]
            stats = reply_stats(client, spec, varied, **{**plain, "max_tokens": 1})
            figures["hearth_pp"].append(stats["prompt_tokens"] / (stats["ttft_ms"] / 1000))
            figures["bench_pp"].append(_llama_bench(build, model, layers, 512, 0))
        used.stop()
    finally:
        client.close()
    median = _median
    result: dict[str, Any] = {
        "runtime_used": runtime,
        "tokens_per_s": round(median(figures["hearth_tg"]), 1),
        "llama_bench_tg": round(median(figures["bench_tg"]), 1),
        "tokens_per_s_vs_llama_bench": round(
            median(figures["hearth_tg"]) / median(figures["bench_tg"]), 3
        ),
        "ttft_ms": round(median(figures["ttft_ms"]), 1),
        "prompt_per_s": round(median(figures["hearth_pp"]), 1),
        "llama_bench_pp512": round(median(figures["bench_pp"]), 1),
        "prompt_vs_llama_bench": round(
            median(figures["hearth_pp"]) / median(figures["bench_pp"]), 3
        ),
        "rounds": figures,
    }
    if used.peak_mib is not None:
        result["gpu_memory_used_mib"] = used.peak_mib
        result["fit_estimate_mib"] = _fit_estimate_mib(model, spec.n_ctx)
    return result


def _median(values: list[float]) -> float:
    import statistics

    return float(statistics.median(values))


class _GpuMemory:
    """The most GPU memory ``nvidia-smi`` saw the engine's worker use (MiB): its own
    process only, not llama-bench's, which runs in between."""

    def __init__(self, pid: Any) -> None:
        self._pid = pid  # a callable giving the worker's pid
        self.peak_mib: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def start(self) -> None:
        if shutil.which("nvidia-smi"):
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)

    def _watch(self) -> None:
        query = "--query-compute-apps=pid,used_memory"
        while not self._stop.wait(0.5):
            out = subprocess.run(
                ["nvidia-smi", query, "--format=csv,noheader,nounits"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout
            pid = self._pid()
            for line in out.splitlines():
                parts = [p.strip() for p in line.split(",")]
                if len(parts) == 2 and parts[0] == str(pid) and parts[1].isdigit():
                    self.peak_mib = max(self.peak_mib or 0, int(parts[1]))


def _fit_estimate_mib(model: Path, n_ctx: int) -> int | None:
    from app.machine.fit_service import estimate_entry
    from app.machine.hardware import probe_system
    from app.models.library import describe

    try:
        entry = describe(model, "gpu-check")
        result = estimate_entry(entry, probe_system(model.parent, engines=False), n_ctx)
    except Exception:  # noqa: BLE001 - the estimate is a bonus in the report
        return None
    return int(result.gpu_bytes / 2**20) if getattr(result, "gpu_bytes", None) else None


def _measure_transformers(kit: Path, work: Path, shape: dict[str, int]) -> dict[str, Any]:
    """bf16 through the transformers engine, with and without the static cache."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    folder = work / "random-hf"
    if not (folder / "config.json").is_file():
        tokenizer = AutoTokenizer.from_pretrained(str(kit / "tokenizer" / "hf"))
        config = LlamaConfig(
            vocab_size=len(tokenizer),
            hidden_size=shape["hidden"],
            intermediate_size=shape["ffn"],
            num_hidden_layers=shape["layers"],
            num_attention_heads=shape["heads"],
            num_key_value_heads=shape["kv_heads"],
            max_position_embeddings=8192,
        )
        model = LlamaForCausalLM(config).to(torch.bfloat16)  # type: ignore[arg-type]
        model.save_pretrained(str(folder))
        tokenizer.save_pretrained(str(folder))
    _hearth_env(kit, work / "runtimes")
    from app.engine_client import EngineClient
    from hearth.bench.engine_speed import reply_stats
    from wire.model_spec import ModelSpec

    results: dict[str, Any] = {}
    for static in (False, True):
        client = EngineClient()
        spec = ModelSpec(str(folder), n_ctx=2048, engine="transformers", static_cache=static)
        try:
            prompt = [{"role": "user", "content": "Write a long story."}]
            params = {"temperature": 0, "max_tokens": GENERATE, "ignore_eos": True}
            reply_stats(client, spec, prompt, **params)
            stats = reply_stats(client, spec, prompt, **params)
        finally:
            client.close()
        results["static_cache" if static else "dynamic_cache"] = {
            "tokens_per_s": stats.get("tokens_per_s"),
            "ttft_ms": stats.get("ttft_ms"),
        }
    return results


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("make", "run"))
    parser.add_argument("kit", nargs="?", default=str(DEFAULT_KIT))
    parser.add_argument("--cpu", action="store_true", help="run without a GPU (tests the kit)")
    parser.add_argument("--budget-s", type=float, default=480.0)
    args = parser.parse_args(argv)
    kit = Path(args.kit)
    if args.command == "make":
        sys.path.insert(0, str(REPO))
        make_kit(kit)
        return 0
    report = run_check(kit, args.cpu, args.budget_s)
    print(json.dumps(report, indent=2))
    failed = [s for s in report["steps"] if s["status"] == "failed"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
