"""Where each declared setting is shown: the settings dialog's pages, in order.

A setting's page follows from its key's section (``engine.threads`` is an Engines
setting), so a new setting lands on the right page without a second list; the
fine-tuning of sampling and of the engine (settings declared ``advanced``) is gathered
on the Advanced page, where people who want it look for it.  The page names here are
English; the dialog translates them.
"""

from __future__ import annotations

from app.setting_type import Setting

# (id, name) in the order the dialog lists them.
PAGES: tuple[tuple[str, str], ...] = (
    ("general", "General"),
    ("chat", "Chat"),
    ("models", "Models and downloads"),
    ("engines", "Engines"),
    ("documents", "Documents"),
    ("tools", "Tools"),
    ("server", "API server"),
    ("privacy", "Privacy and updates"),
    ("advanced", "Advanced"),
)

_SECTION_PAGE = {
    "appearance": "general",
    "chat": "chat",
    "sampling": "chat",
    "models": "models",
    "hub": "models",
    "downloads": "models",
    "engine": "engines",
    "documents": "documents",
    "tools": "tools",
    "server": "server",
    "updates": "privacy",
}
# Sections whose advanced settings are gathered on the Advanced page; the others keep
# theirs on their own page, below its everyday ones.
_TO_ADVANCED = {"chat", "sampling", "engine"}
# Settings that belong elsewhere than their section says.
_OVERRIDES = {
    "hub.refresh_catalog": "privacy",  # a daily network request: privacy
    # Where engines are installed from: beside the list of engines they install.
    "engine.packs_manifest": "engines",
    "engine.packs_mirror": "engines",
    "engine.pypi_mirror": "engines",
    "engine.pytorch_mirror": "engines",
}


def page_of(setting: Setting) -> str:
    """The id of the page that shows ``setting``."""
    if setting.key in _OVERRIDES:
        return _OVERRIDES[setting.key]
    section = setting.key.split(".", 1)[0]
    if setting.advanced and section in _TO_ADVANCED:
        return "advanced"
    return _SECTION_PAGE.get(section, "advanced")
