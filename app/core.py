"""The pieces every front end needs, opened once: paths, settings, models, defaults.

The GUI, the command line and the self-test all start from ``open_core`` so that
``--data-dir``/``HEARTH_DATA_DIR``, the settings and the model choice mean the same
everywhere.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import psutil

from app.chat.store import ChatStore, StoreError
from app.engine.budget import MemoryBudget, Needs
from app.engine.cores import physical_cores
from app.engine.host import EngineHost
from app.engines import can_run, engine_for
from app.errors import HearthError
from app.json_document import JsonDocument
from app.machine.hardware import SystemFacts
from app.models.endpoints import Endpoints, list_remote_models
from app.models.library import ModelEntry, ModelNotFound, describe, list_models, resolve_model
from app.models.overrides import ModelOverrides
from app.models.owned import downloads_document, owned_files
from app.packs.pytorch_engine import NO_PYTORCH, torch_here
from app.paths import Paths, resolve_data_dir
from app.settings import Settings
from wire.defaults import CONTEXT_TOKENS
from wire.engine_overlay import installed_site
from wire.engine_traits import traits_of
from wire.model_spec import LLAMA_CPP, REMOTE, SYNTHETIC, TRANSFORMERS, ModelSpec
from wire.phrases import Phrase, message_of

# When a model's memory cannot be estimated from its metadata: its file, plus this share
# for the context and the engine's buffers.
ESTIMATE_OVERHEAD = 0.25
BUDGET_SHARE_OF_FREE = 0.8


@dataclass
class Core:
    paths: Paths
    settings: Settings
    facts: SystemFacts | None = None  # filled in by the first system check
    parallel: int | None = None  # replies at once for every GGUF model (hearth serve --parallel)
    _gpu_layer_cache: dict[tuple[str, int, int, int], int] = field(default_factory=dict)
    _slots_cache: dict[tuple[str, int, int, int, int], int] = field(default_factory=dict)
    _ram_budget: int | None = None
    _engines: EngineHost | None = None

    @cached_property
    def overrides(self) -> ModelOverrides:
        return ModelOverrides(self.paths.data_dir / "model_settings.json")

    @property
    def models_dir(self) -> Path:
        configured = str(self.settings.get("models.directory"))
        return Path(configured).expanduser() if configured else self.paths.default_models_dir

    @property
    def downloads_file(self) -> Path:
        return self.paths.data_dir / "downloads.json"

    @cached_property
    def downloads_state(self) -> JsonDocument:
        """The download list as far as the library needs it (which files Hearth owns)."""
        return downloads_document(self.downloads_file)

    @cached_property
    def endpoints(self) -> Endpoints:
        return Endpoints(self.paths.data_dir / "endpoints.json")

    def state_problems(self) -> list[str]:
        """Sentences about every state file that was damaged and set aside at load, the
        settings included: the window shows them at start, each command prints them."""
        from app.chat.presets import PresetStore

        presets = PresetStore(self.paths.data_dir / "presets.json")
        presets.presets()
        self.endpoints.all()
        self.overrides.load()
        owned_files(self.downloads_state)
        documents = (self.endpoints.document, self.overrides.document, self.downloads_state)
        found = [*self.settings.problems, presets.problem, *(d.problem for d in documents)]
        return [p for p in found if p]

    def remote_models(self) -> list[ModelEntry]:
        """The models of every server endpoint the user added (one request each)."""
        found: list[ModelEntry] = []
        for endpoint in self.endpoints.all():
            found.extend(list_remote_models(endpoint))
        return found

    def models(self) -> list[ModelEntry]:
        added = [
            line.strip()
            for line in str(self.settings.get("models.added")).splitlines()
            if line.strip()
        ]
        return list_models(
            self.models_dir,
            owned=owned_files(self.downloads_state),
            added=added,
            other_apps=bool(self.settings.get("models.scan_other_apps")),
        )

    def chat_models(self, models: list[ModelEntry]) -> list[ModelEntry]:
        """The models the installed engines can run (checkpoints need the PyTorch engine)."""
        formats = {m.format for m in models}
        runnable = {f for f in formats if self.can_run(f)}  # each format's check once
        return [m for m in models if m.format in runnable]

    @property
    def engine_site(self) -> Path | None:
        """The PyTorch engine added after install, when one is installed and checked."""
        return installed_site(self.paths.data_dir)

    def can_run(self, model_format: str) -> bool:
        """Whether an engine here runs this format: the app's own, or the PyTorch engine
        added after install (``hearth engines install pytorch``)."""
        if can_run(model_format):
            return True
        return model_format == "transformers" and installed_site(self.paths.data_dir) is not None

    def find_model(
        self, name_or_path: str | None, models: list[ModelEntry] | None = None
    ) -> ModelEntry:
        """The named model, else the last one used, else the starter model."""
        models = self.models() if models is None else models
        if name_or_path:
            try:
                entry = resolve_model(name_or_path, models)
            except ModelNotFound as exc:
                raise HearthError(message_of(exc)) from exc
        else:
            entry = self.default_model(models)
        if not entry.usable:
            raise HearthError(Phrase("{0} cannot be used: {1}", entry.name, entry.problem))
        if not self.can_run(entry.format):
            raise HearthError(NO_PYTORCH)
        return entry

    def default_model(self, models: list[ModelEntry]) -> ModelEntry:
        remembered = str(self.settings.get("models.default"))
        usable = [m for m in self.chat_models(models) if m.usable]
        for entry in usable:
            if remembered and remembered in (str(entry.path), entry.name):
                return entry
        for entry in usable:
            if entry.source == "starter":
                return entry
        if usable:
            return usable[0]
        raise HearthError(
            Phrase(
                "Hearth found no model to use. Reinstall Hearth to restore the starter "
                "model, or put a .gguf file into {0}.",
                self.models_dir,
            )
        )

    def remember_model(self, entry: ModelEntry) -> None:
        if self.settings.get("models.default") != str(entry.path):
            self.settings.set("models.default", str(entry.path))

    def model_spec(self, entry: ModelEntry, n_ctx: int | None = None) -> ModelSpec:
        """How to load ``entry`` here: the per-model overrides, else the settings and an
        engine choice fitted to this machine (GPU layers from the memory estimate)."""
        default = engine_for(entry.format)
        if default.name == REMOTE:
            return self.remote_spec(entry, n_ctx)
        if default.name == SYNTHETIC:  # a scripted reply (tests and benchmarks)
            return ModelSpec(path=str(entry.path), n_ctx=n_ctx or CONTEXT_TOKENS, engine=SYNTHETIC)
        chosen = self.overrides.get(str(entry.path))
        threads = chosen.threads or int(self.settings.get("engine.threads")) or physical_cores()
        context = n_ctx or chosen.n_ctx or int(self.settings.get("engine.context_length"))
        gpu_layers = chosen.gpu_layers
        if gpu_layers is None:
            # A GPU runtime chosen by hand means: use the GPU.
            forced_gpu = bool(chosen.runtime) and chosen.runtime != "cpu"
            gpu_layers = -1 if forced_gpu else self.auto_gpu_layers(entry, context)
        engine = chosen.engine or default.name
        parallel = self.replies_at_once(entry, context, chosen.parallel, engine)
        return ModelSpec(
            path=str(entry.path),
            n_ctx=context,
            threads=threads,
            gpu_layers=gpu_layers,
            runtime=chosen.runtime or "",
            prompt_lookup=not chosen.no_prompt_lookup,
            parallel=parallel,
            prompt_cache_dir=str(self.paths.prompt_cache_dir)
            if engine == LLAMA_CPP and self.settings.get("engine.prompt_cache_on_disk")
            else "",
            engine=engine,
            projector=self.projector_of(entry, chosen.projector) if engine == LLAMA_CPP else "",
            vision=entry.vision and engine == TRANSFORMERS,
            dtype=chosen.dtype or "auto",
            quantization=chosen.quantization or "",
            attention=chosen.attention or "sdpa",
            static_cache=bool(chosen.static_cache),
            allow_pickle=bool(chosen.allow_pickle),
            trust_remote_code=bool(chosen.trusted_code)
            and chosen.trusted_code == code_fingerprint(entry.path),
            engine_path=str(installed_site(self.paths.data_dir) or "")
            if engine == TRANSFORMERS
            else "",
        )

    @staticmethod
    def projector_of(entry: ModelEntry, chosen: str | None) -> str:
        """The projector a GGUF model loads with: the one chosen in Model settings ("" for
        none), else the one beside it."""
        if chosen is not None:
            return chosen
        return str(entry.projector or "")

    def load_spec(self, entry: ModelEntry, n_ctx: int | None = None) -> ModelSpec:
        """``model_spec`` for a load that is about to start: a model that cannot load here
        is refused in words, with the numbers (``app.machine.fit_service.load_refusal``),
        before the engine sees it.  (``model_spec`` itself never refuses: the settings
        dialog and the context meter must work for a model that does not fit.)"""
        spec = self.model_spec(entry, n_ctx)
        if not traits_of(spec.engine).loads_weights:
            return spec  # nothing of its own to fit here
        if spec.engine == TRANSFORMERS and not spec.engine_path and not torch_here():
            raise HearthError(NO_PYTORCH)
        from app.machine.fit_service import load_refusal

        check_memory = bool(self.settings.get("engine.refuse_unfit"))
        facts = self.machine_facts()
        refusal = load_refusal(
            entry, facts, spec.n_ctx or CONTEXT_TOKENS, check_memory, spec.parallel
        )
        if refusal:
            raise HearthError(refusal)
        return spec

    def machine_facts(self) -> SystemFacts:
        """The system check's facts, else memory and GPUs probed now (once)."""
        return self.facts or self._memory_facts

    def learn_machine(self) -> None:
        """For commands without the window's system check: probe memory and GPUs now, so
        that models are placed on the GPU as the window would place them."""
        if self.facts is None:
            self.facts = self._memory_facts

    @cached_property
    def _memory_facts(self) -> SystemFacts:
        """What the fit check needs when the full system check has not run (a command):
        memory and GPUs, without the slower engine probe."""
        from app.machine.hardware import probe_system

        return probe_system(self.models_dir, engines=False)

    def remote_spec(self, entry: ModelEntry, n_ctx: int | None = None) -> ModelSpec:
        name = entry.source.removeprefix("endpoint:")
        endpoint = next((e for e in self.endpoints.all() if e.name == name), None)
        if endpoint is None:
            raise HearthError(Phrase("The server endpoint {0!r} is no longer configured.", name))
        return ModelSpec(
            path=endpoint.base_url,
            n_ctx=n_ctx or 0,
            engine=REMOTE,
            remote_model=entry.repo_id,
            secret_ref=f"keyring:{endpoint.secret_name}",
        )

    def auto_gpu_layers(self, entry: ModelEntry, n_ctx: int) -> int:
        """As many layers on the GPU as fit (0 without a usable GPU or facts).

        Called when a message is sent, so it answers at once without a GPU and remembers
        its answer otherwise (reading a GGUF header takes tens of milliseconds).
        """
        facts = self.facts
        if facts is None or entry.format != "gguf":
            return 0
        offload = facts.engines.llama_gpu_offload is not False
        if not offload or not (facts.usable_gpus or facts.metal):
            return 0
        try:
            stamp = entry.path.stat().st_mtime_ns
        except OSError:
            return 0
        key = (str(entry.path), stamp, n_ctx, id(facts))
        if key not in self._gpu_layer_cache:
            from app.machine.fit_service import estimate_entry

            try:
                result = estimate_entry(entry, facts, n_ctx)
            except HearthError:
                return 0
            self._gpu_layer_cache[key] = -1 if result.verdict == "gpu" else (result.gpu_layers or 0)
        return self._gpu_layer_cache[key]

    def replies_at_once(
        self, entry: ModelEntry, n_ctx: int, chosen: int | None, engine: str
    ) -> int:
        """How many replies ``entry`` writes at once (llama.cpp slots): the model's own
        choice, else ``engine.parallel`` where that costs a single reply nothing (the same
        place on the GPU, still fitting: ``fitted_slots``), else fewer.  Remembered like
        the GPU layers."""
        if engine != LLAMA_CPP:
            return 1
        if chosen or self.parallel:
            return chosen or self.parallel or 1
        wanted = int(self.settings.get("engine.parallel"))
        facts = self.facts
        if facts is None or wanted <= 1 or entry.format != "gguf":
            return wanted
        try:
            stamp = entry.path.stat().st_mtime_ns
        except OSError:
            return wanted
        key = (str(entry.path), stamp, n_ctx, wanted, id(facts))
        if key not in self._slots_cache:
            from app.machine.fit_service import fitted_slots

            self._slots_cache[key] = fitted_slots(entry, facts, n_ctx, wanted)
        return self._slots_cache[key]

    # -- the engine host -----------------------------------------------------------------
    @property
    def engines(self) -> EngineHost:
        """The process's one engine host: every front end of this core leases its models
        here, under one memory budget and one share of the cores (a new one once the last
        was closed, as the window closing closes it)."""
        if self._engines is None or self._engines.closed:
            self._engines = EngineHost(
                self.paths.logs_dir,
                budget=self.memory_budget,
                estimate=self.memory_needs,
                keep_alive_s=0.0,
            )
        return self._engines

    def memory_budget(self) -> MemoryBudget:
        """RAM for loaded models: *Settings › Memory for loaded models*, else four fifths
        of the memory free at the first load (plus what Hearth's workers already hold);
        GPU memory: the share of the usable GPUs' free memory the fit estimates plan with."""
        if self._ram_budget is None:
            chosen = float(self.settings.get("engine.memory_budget_gb"))
            if chosen > 0:
                self._ram_budget = int(chosen * 1e9)
            else:
                free = psutil.virtual_memory().available
                held = sum(model.memory_bytes for model in self.engines.loaded())
                self._ram_budget = int((free + held) * BUDGET_SHARE_OF_FREE)
        from app.machine.fit import VRAM_SHARE

        gpus = self.machine_facts().usable_gpus
        vram = int(sum(g.vram_free_bytes or g.vram_total_bytes for g in gpus) * VRAM_SHARE)
        return MemoryBudget(self._ram_budget, vram)

    def memory_needs(self, spec: ModelSpec) -> Needs:
        """The memory ``spec``'s model will take as it is loaded here: the ``fit`` estimate
        (the same that places its layers on the GPU), else its file and a quarter more; a
        remote model takes nothing here but its worker, which is measured.  On unified
        memory (Apple silicon) what the GPU holds is the computer's RAM, and counts there:
        the budget ends an idle model for a new one as it would on a PC, and the growth
        watch counts from the weights."""
        if not traits_of(spec.engine).loads_weights:
            return Needs(0)
        entry = describe(Path(spec.path), "file")
        if spec.projector:  # its projector loads with it
            entry = replace(entry, projector=Path(spec.projector))
        facts = self.machine_facts()
        try:
            from app.machine.fit_service import estimate_entry

            result = estimate_entry(
                entry, facts, spec.n_ctx or CONTEXT_TOKENS, max(1, spec.parallel)
            )
        except HearthError:
            return Needs(int(entry.size_bytes * (1 + ESTIMATE_OVERHEAD)))
        if facts.apple_silicon:
            return Needs(result.ram_bytes + result.gpu_bytes, 0)
        return Needs(result.ram_bytes, result.gpu_bytes)

    def sampling(self, advice: dict[str, Any] | None = None, **overrides: Any) -> dict[str, Any]:
        """Sampling parameters for a request: settings, then what the model's authors
        recommend (``advice``, see ``app.chat.presets``), then explicit overrides."""
        from app.chat.presets import effective_values, engine_params

        params = engine_params(effective_values(self.settings, advice or {}, {}))
        params.update({k: v for k, v in overrides.items() if v is not None})
        return params

    def open_store(self) -> ChatStore:
        try:
            return ChatStore(self.paths.database)
        except StoreError as exc:
            raise HearthError(message_of(exc)) from exc


def code_fingerprint(folder: Path) -> str:
    """A hash of a checkpoint's own Python files: consent is remembered for exactly these."""
    if not folder.is_dir():
        return ""
    digest = hashlib.sha256()
    for file in sorted(folder.glob("*.py")):
        digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def open_core(
    data_dir: str | os.PathLike[str] | None = None,
    before_settings: Callable[[Paths], object] | None = None,
) -> Core:
    """The core for ``data_dir``; ``before_settings`` runs once the folders exist (the
    launcher opens its log there, so that a damaged settings file is logged)."""
    paths = Paths(resolve_data_dir(data_dir))
    try:
        paths.ensure()
    except OSError as exc:
        raise HearthError(
            Phrase(
                "Hearth cannot use its data folder {0}: {1}. Choose another with --data-dir "
                "or HEARTH_DATA_DIR.",
                paths.data_dir,
                exc.strerror,
            )
        ) from exc
    if before_settings is not None:
        before_settings(paths)
    return Core(paths, Settings(paths.settings_file))
