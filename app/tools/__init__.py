"""Tools for the chat: the MCP servers a person configured (``config.py``), running them and
calling their tools (``servers.py``), the tools Hearth has itself (``builtin.py``), asking
before every call (``approval.py``), and reading calls out of a model's reply
(``calls.py``, which the API uses too)."""
