"""The GPU check kit: everything ``packaging/gpu-check.sh`` needs beyond the repository and
a machine's own Python packages, and the check itself.

    python packaging/gpu_kit.py make [KIT]          # here: stage the kit (about 20 MB)
    python packaging/gpu_kit.py run [KIT] [--cpu]   # there: build, measure, print JSON

The kit (``.cache/gpu-kit`` by default) holds llama-cpp-python's Python code and
``diskcache``, the llama.cpp source that llama-cpp-python vendors (without its models,
docs and web UI), the starter model's tokenizer, and copies of Hearth's pure-Python
dependencies (and psutil's abi3 build) used only where the machine lacks them.

``run`` starts the CUDA build for this GPU's architecture only and, while it compiles,
writes the models (a real shape with random weights) and measures the transformers engine
in bfloat16; then measures Hearth's llama.cpp engine with every layer on the GPU against
``llama-bench`` from the same build, and reports what the System check and ``fit`` said
against the memory ``nvidia-smi`` saw; then installs a llama.cpp runtime pack through the
app's own code and replies on it (``gpu_check/pack_side.py``: a pack the kit carries, which
``make`` copies from ``.cache/packs`` or ``$HEARTH_KIT_PACKS`` when a release's packs are
there, else one made from this check's build; skipped with its reason when neither), and
the PyTorch engine's CUDA build as the app installs it, from a local folder of its wheels,
with a reply on it (``gpu_check/engine_side.py``; skipped when no folder holds them); the
Vulkan runtime last, where glslc is installed and time is left.  It uses what is installed
and says what it skipped; the report is kept in ``WORK/report.json`` (and
``$OUT/gpu-check.json``) after every step and printed however the run ends.  ``--cpu``
runs the same steps on a machine without a GPU (a CPU build of a small shape), which is
how the kit itself is checked.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
from pathlib import Path
from types import FrameType
from typing import Any

from gpu_check import engine_side, llama_side, models, pack_side, system_view, torch_side
from gpu_check.builds import Build, BuildFailed, build_jobs, cannot_build, cores, find_nvcc
from gpu_check.gpu_memory import gpu_facts
from gpu_check.hearth_env import REPO, use_kit
from gpu_check.report import Report

DEFAULT_KIT = REPO / ".cache" / "gpu-kit"
# Where ``make`` takes runtime packs from: a release's hearth-runtime-packs.json and zips.
PACKS_ENV = "HEARTH_KIT_PACKS"
DEFAULT_PACKS = REPO / ".cache" / "packs"
DEFAULT_WORK = REPO / ".cache" / "gpu-check-work"
# Left out of the llama.cpp source: what no build needs.
SOURCE_SKIP = ("models", "docs", "media", "examples", "tools/ui", ".github", "scripts", "ci")
# In the kit's own folder, first on the path: the Python side of llama.cpp.
KIT_PACKAGES = ("llama_cpp", "diskcache")
# Last on the path, used only where the machine has none: what Hearth's worker, its
# System check and transformers' device_map need that torch and transformers do not bring.
FALLBACK_PACKAGES = (
    "psutil",
    "pynvml",
    "platformdirs",
    "accelerate",
    "jinja2",
    "markupsafe",
    "typing_extensions",
)
# Seconds kept for what follows the CUDA build: quantising, loading, measuring.
AFTER_BUILD_S = 150
VULKAN_NEEDS_S = 300


# -- here: staging the kit -------------------------------------------------------------
def make_kit(kit: Path) -> None:
    kit.mkdir(parents=True, exist_ok=True)
    for folder, packages in (("python", KIT_PACKAGES), ("fallback", FALLBACK_PACKAGES)):
        target = kit / folder
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir()
        entries = {package: _copy_package(package, target) for package in packages}
    (kit / "fallback" / "packages.json").write_text(json.dumps(entries, indent=1))
    version = _llama_version(kit / "python")
    sdist = _sdist(version, kit)
    with tarfile.open(sdist) as archive, tarfile.open(kit / "llama.cpp.tar.gz", "w:gz") as out:
        prefix = f"llama_cpp_python-{version}/vendor/llama.cpp/"
        for member in archive.getmembers():
            if not member.name.startswith(prefix):
                continue
            relative = member.name[len(prefix) :]
            if any(relative == s or relative.startswith(s + "/") for s in SOURCE_SKIP):
                continue
            # A long name is kept in the member's pax header too, which would win over the
            # new name when the kit is unpacked (and the CUDA sources would land elsewhere).
            member.pax_headers = {
                k: v for k, v in member.pax_headers.items() if k not in ("path", "linkpath")
            }
            member.name = "llama.cpp/" + relative
            out.addfile(member, archive.extractfile(member) if member.isfile() else None)
    sdist.unlink()
    with tarfile.open(kit / "llama.cpp.tar.gz") as packed:
        stray = [n for n in packed.getnames() if n.split("/")[0] != "llama.cpp"]
    assert not stray, f"the kit's source has files outside llama.cpp/: {stray[:3]}"
    _save_tokenizer(kit / "tokenizer")
    _copy_packs(Path(os.environ.get(PACKS_ENV) or DEFAULT_PACKS), kit / "packs")
    size = sum(p.stat().st_size for p in kit.rglob("*") if p.is_file())
    print(f"gpu kit ready in {kit}: {size / 2**20:.1f} MiB")


def _copy_packs(source: Path, target: Path) -> None:
    """The Linux runtime packs of ``source`` (a release's manifest and zips) into the kit,
    with a manifest of those alone; none when ``source`` has none."""
    shutil.rmtree(target, ignore_errors=True)
    listed = source / pack_side.MANIFEST
    packs = json.loads(listed.read_text())["packs"] if listed.is_file() else []
    carried = [
        pack
        for pack in packs
        if pack["os"] == "linux" and (source / pack["archive"]["name"]).is_file()
    ]
    if not carried:
        print(f"no runtime pack in {source}: the check will make one from its own build")
        return
    target.mkdir(parents=True)
    for pack in carried:
        shutil.copy2(source / pack["archive"]["name"], target / pack["archive"]["name"])
    (target / pack_side.MANIFEST).write_text(json.dumps({"format": 1, "packs": carried}))


def _copy_package(name: str, target: Path) -> list[str]:
    """The module or package ``name`` and its dist-info (transformers asks
    ``importlib.metadata`` whether accelerate is there) into ``target``; their names."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, f"{name} is not installed"
    origin = Path(spec.origin)
    if origin.name == "__init__.py":
        shutil.copytree(
            origin.parent,
            target / name,
            ignore=shutil.ignore_patterns("lib", "__pycache__", "server", "tests"),
        )
        copied = [name]
    else:
        shutil.copy2(origin, target / origin.name)
        copied = [origin.name]
    for distribution in importlib.metadata.packages_distributions().get(name, []):
        for file in importlib.metadata.distribution(distribution).files or []:
            if file.name == "METADATA" and file.parent.name.endswith(".dist-info"):
                info = Path(str(importlib.metadata.distribution(distribution).locate_file(file)))
                shutil.copytree(info.parent, target / info.parent.name)
                copied.append(info.parent.name)
    return copied


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

    sys.path.insert(0, str(REPO))
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
class Check:
    """One run of the check; ``build`` is the build in progress (stopped if the run is)."""

    def __init__(self, kit: Path, work: Path, cpu: bool, report: Report) -> None:
        self.kit, self.work, self.cpu, self.report = kit, work, cpu, report
        self.build: Build | None = None
        self.built: Path | None = None  # the runtime folder of the first build that finished
        self.checkpoint: Path | None = None  # the transformers model's folder, once made
        self.logs = work / "logs"

    def run(self) -> None:
        report, kit, work = self.report, self.kit, self.work
        report.data["machine"] = self._machine()
        report.save()
        if not (kit / "llama.cpp.tar.gz").is_file():
            report.step("kit", "failed", reason=f"no kit at {kit}: run 'make gpu-kit' first")
            return
        linked = use_kit(kit, work / "runtimes", work / "data", work / "fallback")
        report.data["machine"]["from_kit"] = linked
        source = _unpack(kit / "llama.cpp.tar.gz", work)
        kinds = ["cpu"] if self.cpu else ["cuda", "vulkan"]
        self._start_build(kinds[0], source)
        if not self.cpu:
            report.data["machine"].update(torch_side.versions())
            report.save()
        shape = models.CPU_SHAPE if self.cpu else models.GPU_SHAPE
        f16 = self._part("model gguf", lambda: models.gguf_f16(kit, source, work, shape))
        if self.cpu:
            self.report.step("transformers", "skipped", reason="--cpu (the check is for CUDA)")
        else:
            self._transformers(shape)
        model = self._finish_build(f16)
        report.data["system_check"] = system_view.system_check(timeout=report.timeout(60))
        report.save()
        if model is not None and self.build is not None:
            self._measure_llama(self.build, model)
        pack_side.check(kit, work, self.built, model or f16, self.cpu, report)
        if self.cpu:
            report.step("pytorch engine", "skipped", reason="--cpu (the check is for CUDA)")
        else:
            engine_side.check(kit, work, self.checkpoint, report)
        if len(kinds) > 1:
            self._vulkan(source, f16)

    def _machine(self) -> dict[str, Any]:
        facts: dict[str, Any] = {
            "python": sys.version.split()[0],
            "mode": "cpu" if self.cpu else "gpu",
            "cores": cores(),
            **gpu_facts(),
            "nvcc": find_nvcc(),
            "cmake": shutil.which("cmake"),
            "glslc": shutil.which("glslc"),
        }
        return facts

    def _part(self, name: str, work: Any) -> Any:
        """``work()``, reported as step ``name``; None when it failed."""
        started = self.report.elapsed()
        try:
            value = work()
        except Exception as exc:  # noqa: BLE001 - reported, the other parts go on
            self.report.step(name, "failed", reason=f"{type(exc).__name__}: {exc}")
            return None
        self.report.step(name, "ok", seconds=round(self.report.elapsed() - started, 1))
        return value

    def _start_build(self, kind: str, source: Path) -> None:
        self.build = None
        reason = cannot_build(kind, self.report.data["machine"].get("cuda_arch"))
        if reason:
            self.report.step(f"build {kind}", "skipped", reason=reason)
            return
        arch = self.report.data["machine"].get("cuda_arch")
        try:
            self.build = Build(source, self.work / f"build-{kind}", kind, arch, build_jobs())
        except Exception as exc:  # noqa: BLE001 - reported, the other parts go on
            self.report.step(f"build {kind}", "failed", reason=f"{type(exc).__name__}: {exc}")
            return
        where = {"cublas_from": self.build.cublas} if self.build.cublas else {}
        self.report.step(f"build {kind}", "started", jobs=cores(), log=str(self.build.log), **where)

    def _finish_build(self, f16: Path | None) -> Path | None:
        """Waits for the build, installs its runtime; the quantised model (None if
        anything failed)."""
        build = self.build
        if build is None:
            return None
        try:
            build.wait(self.report.timeout(AFTER_BUILD_S))
        except BuildFailed as exc:
            self.report.step(f"build {build.kind}", "failed", reason=str(exc), log=exc.log)
            self.build = None
            return None
        version = _llama_version(self.kit / "python")
        installed = build.install_runtime(self.work / "runtimes", version)
        self.built = self.built or installed
        self.report.step(f"build {build.kind}", "ok", seconds=build.seconds())
        if f16 is None:
            return None
        quantised: Path | None = self._part(
            "model quantise",
            lambda: models.quantise(
                build.tool("llama-quantize"), build.environment(), f16, self.report.timeout(90)
            ),
        )
        return quantised

    def _transformers(self, shape: dict[str, int]) -> None:
        results: dict[str, Any] = {}
        self.report.data["transformers"] = results
        facts = self.report.data["machine"]
        if not str(facts.get("torch", "")).strip()[:1].isdigit():
            self.report.step("transformers", "skipped", reason=f"torch: {facts.get('torch')}")
            return
        folder = self._part("model bf16", lambda: models.hf_bf16(self.kit, self.work, shape))
        self.checkpoint = folder
        if folder is None:
            return
        build = self.build
        if build is not None and build.process.poll() is None:
            results["measured_while_building"] = (
                "llama.cpp's build ran meanwhile (niced), on the CPU only"
            )
        torch_side.measure(folder, self.report, results, self.logs, AFTER_BUILD_S)

    def _measure_llama(self, build: Build, model: Path) -> None:
        results = self.report.data.setdefault("llama_cpp", {})
        result: dict[str, Any] = {}
        results[build.kind] = result
        if self.report.left() < 60:
            self.report.step(f"measure {build.kind}", "skipped", reason="out of time")
            return
        result["fit"] = system_view.fit(model, 4096, timeout=self.report.timeout(50))
        try:
            llama_side.measure(build, model, self.cpu, self.report, result, self.logs)
        except Exception as exc:  # noqa: BLE001 - reported with the worker's log
            self.report.step(
                f"measure {build.kind}",
                "failed",
                reason=f"{type(exc).__name__}: {exc}",
                log=torch_side.worker_log_tail(self.logs),
            )
            return
        self.report.step(
            f"measure {build.kind}",
            "ok",
            tokens_per_s_vs_llama_bench=result.get("tokens_per_s_vs_llama_bench"),
        )

    def _vulkan(self, source: Path, f16: Path | None) -> None:
        if self.report.left() < VULKAN_NEEDS_S:
            self.report.step("build vulkan", "skipped", reason="out of time")
            return
        self._start_build("vulkan", source)
        model = self._finish_build(f16)
        if model is not None and self.build is not None:
            self._measure_llama(self.build, model)

    def stop(self) -> None:
        if self.build is not None:
            self.build.stop()


def _unpack(archive_path: Path, work: Path) -> Path:
    """The kit's llama.cpp source, unpacked once (into a temporary folder first: a run
    stopped while unpacking leaves no half tree for the next)."""
    source = work / "llama.cpp"
    if source.is_dir():
        return source
    partial = work / "llama.cpp.part"
    shutil.rmtree(partial, ignore_errors=True)
    with tarfile.open(archive_path) as archive:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
            archive.extractall(partial, filter="data")
        else:  # our own archive (make gpu-kit), not a stranger's
            archive.extractall(partial)
    (partial / "llama.cpp").rename(source)
    shutil.rmtree(partial, ignore_errors=True)
    return source


class Stopped(BaseException):
    """SIGTERM: a time limit around the check.  Not an Exception: no part's own error
    handling may take it for its failure and go on."""


_RUNNING: list[Check] = []


def _stopped(signum: int, frame: FrameType | None) -> None:
    signal.signal(signum, signal.SIG_IGN)  # once: a second one must not cut the report
    for check in _RUNNING:  # at once: a time limit's SIGKILL may follow soon
        check.stop()
    raise Stopped(signal.Signals(signum).name)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("make", "run"))
    parser.add_argument("kit", nargs="?", default=str(DEFAULT_KIT))
    parser.add_argument("--cpu", action="store_true", help="run without a GPU (tests the kit)")
    # Under the 8 minutes: what runs after the budget (closing workers, printing) fits.
    parser.add_argument("--budget-s", type=float, default=420.0)
    parser.add_argument("--work", default=str(DEFAULT_WORK), help="builds, models, logs")
    args = parser.parse_args(argv)
    kit = Path(args.kit).resolve()
    if args.command == "make":
        make_kit(kit)
        return 0
    work = Path(args.work).resolve()
    saved = [work / "report.json"]
    if os.environ.get("OUT"):
        saved.append(Path(os.environ["OUT"]) / "gpu-check.json")
    report = Report(args.budget_s, saved)
    check = Check(kit, work, args.cpu, report)
    _RUNNING.append(check)
    signal.signal(signal.SIGTERM, _stopped)
    try:
        check.run()
    except (Stopped, KeyboardInterrupt) as exc:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        report.step("check", "failed", reason=f"stopped ({str(exc) or type(exc).__name__})")
    except Exception as exc:  # noqa: BLE001 - whatever happened, the report is printed
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        report.step("check", "failed", reason=f"{type(exc).__name__}: {exc}")
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        check.stop()
        report.save()
        print(report.text(), flush=True)
    return 1 if report.failed() else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
