"""Fixtures shared by the hostile-input tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backends.llama_cpp_engine import LlamaCppEngine


@pytest.fixture(scope="module")
def engine(starter: Path) -> Iterator[Any]:
    """The real llama.cpp engine, in this process, with the starter model loaded."""
    loaded = LlamaCppEngine()
    loaded.load({"path": str(starter), "n_ctx": 512, "threads": 2}, lambda *_: None)
    yield loaded
    loaded.close()
