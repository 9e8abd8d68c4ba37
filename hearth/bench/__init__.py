"""``hearth bench``: Hearth measured against its budgets, side by side in one run.

Kept above the product's rooms (it drives the window, the engine client and reference
processes), so nothing in ``app``, ``ui`` or ``backends`` depends on it."""
