"""The chat template used when a model has none of its own (shared by the local engines).

Base models such as Gemma 3 270M come without ``tokenizer.chat_template``.  Each engine
module stays independent of the others, so what they share lives in helper modules like
this one.
"""

from __future__ import annotations

# Fallback for GGUFs without ``tokenizer.chat_template`` (base models such as Gemma 3
# 270M): a plain transcript.  The model continues after "Assistant:" and is stopped when
# it starts writing the next "User:" turn.
FALLBACK_TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'system' %}{{ message['content'] }}\n\n"
    "{% elif message['role'] == 'user' %}User: {{ message['content'] }}\n\n"
    "{% else %}Assistant: {{ message['content'] }}\n\n{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}Assistant:{% endif %}"
)
FALLBACK_STOPS = ("\nUser:", "\n\nUser", "User:")
