"""Hearth's core: everything that is neither a widget nor an engine.

Never imports PySide6, torch, transformers or llama_cpp (enforced by tests/test_layers.py).
"""

__version__ = "0.1.0"
