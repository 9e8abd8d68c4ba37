"""The defaults both processes need, written once.

The settings declaration (``app/setting_declarations.py``) takes its defaults for these
from here, the ``ModelSpec`` a load carries starts from them, and an engine fills what a
request leaves out with the same values (the window, ``hearth chat`` and the API always
send every sampler; ``hearth bench`` and the tests may not).  An engine's own sampler
chain reads a sampler that is absent as off (``backends.llama_loop.SamplerChain``): what a
request is given by default is decided here, not there.
"""

from __future__ import annotations

from typing import Any, Final

# The context a model loads with unless a setting or the model's own settings say other.
CONTEXT_TOKENS: Final = 4096

# The KV state of conversations that left their slot, kept in RAM up to this (MiB).
PROMPT_CACHE_MB: Final = 256

# Sampling, as the settings offer it (``sampling.*``).
SAMPLING: Final[dict[str, Any]] = {
    "temperature": 0.7,
    "top_p": 0.95,
    "top_k": 40,
    "min_p": 0.05,
    "repeat_penalty": 1.1,
}
