"""A conversation's *Use tools* choice, and whether its model is likely to call a tool on
its own, said in words before the person waits for a call that never comes.

Why: the starter (a 135M demo) never wrote a valid call when left to decide, however the
question was put, and its chat template knows no tools (Hearth then describes them in a
system message of its own, ``backends/tool_prompt.py``, which small models rarely follow).
*Use tools: always* makes the reply's first answer a call (``tool_choice`` ``required``,
enforced by a grammar in the engine); *never* offers no tools; *automatically* lets the
model decide.
"""

from __future__ import annotations

from app.models.gguf_header import GGUFError, read_gguf
from app.models.library import ModelEntry
from wire.phrases import Phrase
from wire.templates import takes_tools

CHOICE_KEY = "tools.choice"  # among a conversation's own settings; absent: automatic
AUTO, ALWAYS, NEVER = "auto", "required", "none"  # the request's tool_choice
CHOICES = (AUTO, ALWAYS, NEVER)
# Below this, a model rarely decides by itself to call a tool (the starter has 135M).
SMALL_MODEL_PARAMETERS = 1_000_000_000


def choice_of(settings: dict[str, object]) -> str:
    """A conversation's choice (automatic when it chose none, or something unknown)."""
    chosen = settings.get(CHOICE_KEY)
    return chosen if isinstance(chosen, str) and chosen in CHOICES else AUTO


def template_of(entry: ModelEntry) -> str | None:
    """The model's chat template ("" when it has none); None when it cannot be told
    (a server's model, an unreadable file).  Reads a header: call it off the main thread."""
    if entry.format == "gguf":
        try:
            template = read_gguf(entry.path).metadata.get("tokenizer.chat_template")
        except (GGUFError, OSError):
            return None
        return template if isinstance(template, str) else ""
    if entry.format == "transformers":
        from app.json_document import read_json_object

        jinja = entry.path / "chat_template.jinja"
        try:
            if jinja.is_file():
                return jinja.read_text(encoding="utf-8", errors="replace")
            config = read_json_object(entry.path / "tokenizer_config.json")
        except (OSError, ValueError):
            return None
        template = config.get("chat_template")
        return str(template) if template else ""
    return None


def tool_advice(entry: ModelEntry, choice: str, template: str | None) -> str:
    """A sentence when the model is unlikely to call a tool of its own accord (the choice
    is automatic and it is small, or its template knows no tools); else ""."""
    if choice != AUTO:
        return ""
    if entry.parameters is not None and entry.parameters < SMALL_MODEL_PARAMETERS:
        return Phrase(
            "{0} is a small model: it rarely calls a tool on its own. Choose Use tools: "
            "always to make its first answer a call.",
            entry.name,
        )
    if template is not None and not takes_tools(template):
        return Phrase(
            "The chat template of {0} knows no tools: Hearth describes them to it in a "
            "message of its own, which a model may not follow. Choose Use tools: always to "
            "make its first answer a call.",
            entry.name,
        )
    return ""
