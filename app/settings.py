"""Hearth's settings: one typed declaration, a versioned file, and migrations.

Every setting is declared once in ``DECLARATIONS`` with its type, default, range and a
description for people; the settings dialog and validation are built from it, so there is
no second list to forget.  The file on disk carries a ``version``; ``MIGRATIONS`` upgrades
older files step by step, so an update never loses a user's choices.  A damaged file is
moved aside (never deleted) and the defaults are used, with a warning in the log.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.files import write_text_atomically

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Setting:
    key: str
    kind: type  # int, float, str or bool
    default: Any
    label: str
    description: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None
    advanced: bool = False  # shown under "Advanced" in the dialog
    multiline: bool = False  # edited in a text box rather than a line
    internal: bool = False  # kept by Hearth itself, not shown in the dialog

    def validate(self, value: Any) -> Any:
        """Return ``value`` converted to this setting's type; ValueError if it is not valid."""
        if self.kind is bool:
            if not isinstance(value, bool):
                raise ValueError(f"{self.key} must be true or false")
            return value
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
                raise ValueError(f"{self.key} must be a whole number")
            value = int(value)
        elif self.kind is float:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{self.key} must be a number")
            value = float(value)
        elif self.kind is str and not isinstance(value, str):
            raise ValueError(f"{self.key} must be text")
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"{self.key} must be at least {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"{self.key} must be at most {self.maximum}")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{self.key} must be one of {', '.join(map(str, self.choices))}")
        return value


DECLARATIONS: tuple[Setting, ...] = (
    Setting(
        "models.directory",
        str,
        "",
        "Models folder",
        "Folder where Hearth looks for and keeps GGUF models. Empty: the 'models' "
        "folder inside Hearth's data folder.",
    ),
    Setting(
        "models.added",
        str,
        "",
        "Other model files and folders",
        "GGUF files or checkpoint folders to use in place, one per line.",
        multiline=True,
    ),
    Setting(
        "models.scan_other_apps",
        bool,
        True,
        "Use models from other apps",
        "List models that the Hugging Face and ModelScope caches, LM Studio, Ollama and "
        "GPT4All already downloaded. They are used where they are, never copied.",
    ),
    Setting(
        "models.default",
        str,
        "",
        "Default model",
        "The model used when none is chosen: Hearth remembers the last one you used. "
        "Empty: the bundled starter model.",
        internal=True,
    ),
    Setting(
        "engine.context_length",
        int,
        4096,
        "Context length (tokens)",
        "How much conversation the model sees at once. Longer needs more memory. When a "
        "conversation is longer, the oldest messages are left out (the system prompt "
        "is always kept).",
        minimum=256,
        maximum=1_048_576,
    ),
    Setting(
        "engine.threads",
        int,
        0,
        "CPU threads",
        "Threads used for generation. 0 picks the number of physical cores.",
        minimum=0,
        maximum=512,
        advanced=True,
    ),
    Setting(
        "sampling.temperature",
        float,
        0.7,
        "Temperature",
        "Randomness of the reply. 0 always picks the most likely word.",
        minimum=0.0,
        maximum=2.0,
    ),
    Setting(
        "sampling.top_p",
        float,
        0.95,
        "Top-p",
        "Only words within this share of probability are considered.",
        minimum=0.0,
        maximum=1.0,
        advanced=True,
    ),
    Setting(
        "sampling.top_k",
        int,
        40,
        "Top-k",
        "Only the k most likely words are considered. 0 turns this off.",
        minimum=0,
        maximum=1000,
        advanced=True,
    ),
    Setting(
        "sampling.min_p",
        float,
        0.05,
        "Min-p",
        "Words less likely than this fraction of the best one are skipped.",
        minimum=0.0,
        maximum=1.0,
        advanced=True,
    ),
    Setting(
        "sampling.repeat_penalty",
        float,
        1.1,
        "Repeat penalty",
        "Discourages repeating the same words. 1 turns this off.",
        minimum=0.5,
        maximum=2.0,
        advanced=True,
    ),
    Setting(
        "sampling.max_tokens",
        int,
        0,
        "Maximum reply length (tokens)",
        "0 lets the reply run until the model stops or the context is full.",
        minimum=0,
        maximum=1_048_576,
    ),
    Setting(
        "sampling.seed",
        int,
        -1,
        "Seed",
        "The same seed, model and settings give the same reply. -1 picks a new one each time.",
        minimum=-1,
        maximum=2**31 - 1,
        advanced=True,
    ),
    Setting(
        "hub.huggingface_endpoint",
        str,
        "",
        "Hugging Face address",
        "Where Hearth finds Hugging Face models, e.g. a mirror such as https://hf-mirror.com. "
        "Empty: $HF_ENDPOINT, else https://huggingface.co.",
    ),
    Setting(
        "hub.modelscope_endpoint",
        str,
        "",
        "ModelScope address",
        "Where Hearth finds ModelScope models. Empty: $MODELSCOPE_ENDPOINT, else "
        "https://www.modelscope.cn.",
    ),
    Setting(
        "downloads.parallel",
        int,
        2,
        "Downloads at once",
        "How many files download at the same time; the others wait in the queue.",
        minimum=1,
        maximum=8,
    ),
    Setting(
        "chat.send_reasoning",
        bool,
        False,
        "Send the model's thinking back to it",
        "Reasoning models (DeepSeek-R1, QwQ…) write their thinking before the answer. By "
        "default only the answers are sent back in later turns, as their authors advise; "
        "this also sends the thinking (it fills the context faster).",
        advanced=True,
    ),
    Setting(
        "appearance.theme",
        str,
        "system",
        "Theme",
        "Light or dark; 'system' follows the operating system.",
        choices=("system", "light", "dark"),
    ),
    Setting(
        "appearance.font_size",
        int,
        0,
        "Conversation font size (points)",
        "Size of the text in conversations and the message box. 0 uses the system size.",
        minimum=0,
        maximum=48,
    ),
    Setting(
        "appearance.language",
        str,
        "system",
        "Language",
        "Language of Hearth's windows; 'system' follows the operating system. Takes effect "
        "the next time Hearth starts.",
        choices=("system", "en", "zh_CN"),
    ),
    Setting(
        "window.geometry",
        str,
        "",
        "Window position and size",
        "Restored when Hearth starts.",
        internal=True,
    ),
    Setting(
        "window.splitter",
        str,
        "",
        "Sidebar width",
        "Restored when Hearth starts.",
        internal=True,
    ),
    Setting(
        "chat.system_prompt",
        str,
        "",
        "System prompt",
        "Instructions given to the model at the start of every new conversation.",
        multiline=True,
    ),
)

BY_KEY: dict[str, Setting] = {s.key: s for s in DECLARATIONS}

# MIGRATIONS[n] turns a version-n dictionary of values into a version n+1 one.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def migrate(values: dict[str, Any], from_version: int) -> dict[str, Any]:
    """Apply every migration from ``from_version`` up to ``SCHEMA_VERSION``."""
    for version in range(from_version, SCHEMA_VERSION):
        step = MIGRATIONS.get(version)
        if step is not None:
            values = step(dict(values))
    return values


class Settings:
    """The current values, backed by a JSON file written atomically on every change."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._values: dict[str, Any] = {}
        self.problems: list[str] = []  # human sentences about what was repaired at load
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except OSError as exc:
            self.problems.append(f"Hearth could not read its settings ({exc}); using defaults.")
            log.warning("cannot read %s", path, exc_info=True)
            return
        try:
            document = json.loads(raw)
            if not isinstance(document, dict) or not isinstance(document.get("values"), dict):
                raise ValueError("not a settings document")
            version = int(document.get("version", 1))
        except (ValueError, TypeError):
            aside = path.with_name(f"{path.name}.damaged-{int(time.time())}")
            os.replace(path, aside)
            log.warning("settings file was damaged; moved to %s", aside, exc_info=True)
            self.problems.append(
                f"Your settings file was damaged, so Hearth started with defaults. "
                f"The old file was kept as {aside.name}."
            )
            return
        if version > SCHEMA_VERSION:
            log.warning(
                "settings written by a newer Hearth (version %s); unknown keys kept", version
            )
        values = migrate(document["values"], version)
        for key, value in values.items():
            setting = BY_KEY.get(key)
            if setting is None:
                self._values[key] = value  # a newer version's key: keep it, untouched
                continue
            try:
                self._values[key] = setting.validate(value)
            except ValueError as exc:
                log.warning("ignoring invalid setting: %s", exc)
                self.problems.append(
                    f"The setting '{setting.label}' was invalid ({exc}) "
                    "and was reset to its default."
                )

    def get(self, key: str) -> Any:
        setting = BY_KEY[key]
        return self._values.get(key, setting.default)

    def set(self, key: str, value: Any) -> None:
        """Validate, store and save; ValueError (with a human sentence) if invalid."""
        self._values[key] = BY_KEY[key].validate(value)
        self.save()

    def reset(self, key: str) -> None:
        self._values.pop(key, None)
        self.save()

    def save(self) -> None:
        if self.path is None:
            return
        document = {"version": SCHEMA_VERSION, "values": self._values}
        write_text_atomically(self.path, json.dumps(document, indent=2, sort_keys=True))
