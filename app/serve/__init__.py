"""Hearth as a server: the local OpenAI-compatible API (``hearth serve`` and the window's
switch)."""
