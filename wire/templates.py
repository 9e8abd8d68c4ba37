"""What both processes read in a model's chat template: whether it renders tools itself.

The worker decides by it how tools reach the model (the template's own way, or Hearth's
Hermes-style system message, ``backends/tool_prompt.py``); the window says by it, before
anything is sent, that a model whose template knows no tools rarely calls one
(``app/chat/tool_advice.py``).  One test, so the two never disagree.
"""

from __future__ import annotations

import re

_TOOLS = re.compile(r"\btools\b")


def takes_tools(template: str) -> bool:
    """Whether a chat template renders a ``tools`` list itself."""
    return bool(_TOOLS.search(template))
