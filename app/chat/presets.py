"""System-prompt presets and the sampling settings a conversation uses.

A conversation's reply settings come from three places, each overriding the one before:
Hearth's settings (``sampling.*``), what the model's authors recommend (GGUF
``general.sampling.*`` keys or a checkpoint's ``generation_config.json``), and what the
user chose for this conversation.  ``CONVERSATION_KEYS`` names what a conversation may
override; ranges and descriptions come from the one settings declaration.

Presets are a name, a system prompt and optional sampling values.  A few are built in;
the user's own are kept in ``presets.json`` (written atomically; a damaged file is moved
aside and the built-in ones are used).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app import settings as settings_module
from app.json_document import JsonDocument, read_json_object
from app.models.library import ModelEntry
from wire.phrases import Phrase

log = logging.getLogger(__name__)

CONVERSATION_KEYS = (
    "sampling.temperature",
    "sampling.top_p",
    "sampling.top_k",
    "sampling.min_p",
    "sampling.repeat_penalty",
    "sampling.max_tokens",
    "sampling.seed",
    "engine.context_length",
)
PRESET_KEY = "preset"  # the conversation's preset name, kept among its settings
# The document collections a conversation answers from (names), kept among its settings.
COLLECTIONS_KEY = "documents.collections"


@dataclass(frozen=True)
class Preset:
    name: str
    system_prompt: str
    sampling: dict[str, Any] = field(default_factory=dict)
    builtin: bool = False


BUILTIN = (
    Preset("Default", "", builtin=True),
    Preset(
        "Concise assistant",
        "You are a helpful assistant. Answer briefly and precisely; use lists and tables "
        "when they make an answer clearer.",
        builtin=True,
    ),
    Preset(
        "Coding helper",
        "You are an expert programmer. Answer with correct, idiomatic code in fenced code "
        "blocks that name their language, then explain briefly.",
        {"sampling.temperature": 0.2},
        builtin=True,
    ),
    Preset(
        "Translator (English ⇄ 中文)",
        "Translate the user's text between English and Simplified Chinese. Reply with the "
        "translation only.",
        {"sampling.temperature": 0.1},
        builtin=True,
    ),
)


class PresetStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.problem = ""
        self._document = JsonDocument(path, Phrase("presets"))

    def presets(self) -> list[Preset]:
        return list(BUILTIN) + self._load()

    def get(self, name: str) -> Preset | None:
        return next((p for p in self.presets() if p.name == name), None)

    def save(self, preset: Preset) -> None:
        """Add or replace a preset of the user's (built-in ones cannot be replaced)."""
        if any(p.name == preset.name for p in BUILTIN):
            raise ValueError(f"“{preset.name}” is a built-in preset; choose another name.")
        valid_sampling(preset.sampling)
        own = [p for p in self._load() if p.name != preset.name] + [preset]
        self._write(own)

    def delete(self, name: str) -> None:
        self._write([p for p in self._load() if p.name != name])

    def _load(self) -> list[Preset]:
        def presets_of(document: dict[str, Any]) -> list[Preset]:
            return [
                Preset(str(p["name"]), str(p["system_prompt"]), valid_sampling(p.get("sampling")))
                for p in document["presets"]
            ]

        own = self._document.load(presets_of)
        self.problem = self._document.problem or self.problem
        return own or []

    def _write(self, presets: list[Preset]) -> None:
        self._document.save(
            {
                "presets": [
                    {"name": p.name, "system_prompt": p.system_prompt, "sampling": p.sampling}
                    for p in presets
                ]
            }
        )


def valid_sampling(values: Any) -> dict[str, Any]:
    """Only the keys a conversation may set, each checked against its declaration."""
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise ValueError("sampling settings must be a mapping")
    result: dict[str, Any] = {}
    for key, value in values.items():
        if key in CONVERSATION_KEYS:
            result[key] = settings_module.BY_KEY[key].validate(value)
    return result


# GGUF keys written by llama.cpp's converter (general.sampling.*) and the equivalent
# generation_config.json fields of Hugging Face checkpoints.
_GGUF_KEYS = {
    "general.sampling.temp": "sampling.temperature",
    "general.sampling.top_p": "sampling.top_p",
    "general.sampling.top_k": "sampling.top_k",
    "general.sampling.min_p": "sampling.min_p",
    "general.sampling.penalty_repeat": "sampling.repeat_penalty",
}
_GENERATION_CONFIG_KEYS = {
    "temperature": "sampling.temperature",
    "top_p": "sampling.top_p",
    "top_k": "sampling.top_k",
    "min_p": "sampling.min_p",
    "repetition_penalty": "sampling.repeat_penalty",
}


def recommended_sampling(entry: ModelEntry) -> dict[str, Any]:
    """What the model's authors recommend, where the model file says; {} otherwise (a
    server's model has no file here)."""
    raw: dict[str, Any] = {}
    try:
        if entry.format == "gguf":
            from app.models.gguf_header import read_gguf

            metadata = read_gguf(entry.path, check_data=False).metadata
            raw = {ours: metadata[key] for key, ours in _GGUF_KEYS.items() if key in metadata}
        elif entry.path.is_dir():
            config_path = entry.path / "generation_config.json"
            if config_path.is_file():
                config = read_json_object(config_path)
                if isinstance(config, dict) and config.get("do_sample", True):
                    raw = {
                        ours: config[key]
                        for key, ours in _GENERATION_CONFIG_KEYS.items()
                        if key in config
                    }
    except (OSError, ValueError) as exc:
        # Normal for a damaged or vanished file: the window says that when it loads.
        log.info("no recommended settings in %s: %s", entry.path, exc)
        return {}
    result: dict[str, Any] = {}
    for key, found in raw.items():
        # GGUF keeps float32: 0.95 reads back as 0.949999988.
        value = round(found, 4) if isinstance(found, float) else found
        try:
            result[key] = settings_module.BY_KEY[key].validate(value)
        except ValueError:
            continue  # a value outside our ranges is ignored, not an error
    return result


def effective_values(
    global_settings: settings_module.Settings,
    recommended: dict[str, Any],
    conversation: dict[str, Any],
) -> dict[str, Any]:
    """Every conversation key with the value that applies, and nothing else."""
    values = {key: global_settings.get(key) for key in CONVERSATION_KEYS}
    values.update({k: v for k, v in recommended.items() if k in CONVERSATION_KEYS})
    values.update({k: v for k, v in conversation.items() if k in CONVERSATION_KEYS})
    return values


def with_instructions(own: dict[str, Any], chosen: dict[str, Any]) -> dict[str, Any]:
    """A conversation's own settings after its Instructions were edited: the reply
    settings and preset as ``chosen`` there, and everything chosen elsewhere (under the
    composer: its collections, its tool servers and tool choice) kept as it was.  Keeping
    only what the dialog knew once dropped the conversation's tools."""
    elsewhere = {k: v for k, v in own.items() if k not in CONVERSATION_KEYS and k != PRESET_KEY}
    return {**elsewhere, **chosen}


def engine_params(values: dict[str, Any]) -> dict[str, Any]:
    """The request parameters for these values (0 and -1 mean "not set")."""
    params: dict[str, Any] = {
        "temperature": values["sampling.temperature"],
        "top_p": values["sampling.top_p"],
        "top_k": values["sampling.top_k"],
        "min_p": values["sampling.min_p"],
        "repeat_penalty": values["sampling.repeat_penalty"],
    }
    if int(values["sampling.max_tokens"]) > 0:
        params["max_tokens"] = int(values["sampling.max_tokens"])
    if int(values["sampling.seed"]) >= 0:
        params["seed"] = int(values["sampling.seed"])
    return params
