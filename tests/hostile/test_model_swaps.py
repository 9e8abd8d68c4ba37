"""Class 24: with room for one model, two models asked in turn are each answered.

Alternating two models on a budget that fits one, 4 of 99 requests got a 503 ("does not
fit beside the models that are generating"): the previous reply's job was marked finished
only after its answer was sent, so a quick client's next request still saw it busy.  A
job now leaves its worker before anyone hears of its end.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from app.core import Core
from app.library_offer import LibraryOffer
from tests.conftest import link_or_copy
from wire.model_spec import ModelSpec

pytestmark = pytest.mark.slow


@pytest.fixture
def two_models_room_for_one(core: Core, starter: Path) -> Core:
    core.models_dir.mkdir(parents=True, exist_ok=True)
    for name in ("first", "second"):
        link_or_copy(starter, core.models_dir / f"{name}.gguf")
    one = core.memory_needs(ModelSpec(str(starter), n_ctx=2048)).ram_bytes
    core.settings.set("engine.memory_budget_gb", round(one * 1.5 / 1e9, 3))
    return core


def test_two_models_asked_in_turn_are_each_answered(
    two_models_room_for_one: Core, library_server: tuple[int, LibraryOffer]
) -> None:
    url = f"http://127.0.0.1:{library_server[0]}"
    names = [m["id"] for m in httpx.get(url + "/v1/models", timeout=60).json()["data"]]
    pair = [n for n in names if n in ("first", "second")]
    assert len(pair) == 2, names
    statuses = []
    for turn in range(24):
        answer = httpx.post(
            url + "/v1/chat/completions",
            json={
                "model": pair[turn % 2],
                "messages": [{"role": "user", "content": "Hi"}],
                "max_tokens": 2,
            },
            timeout=600,
        )
        statuses.append((answer.status_code, answer.text[:120]))
    assert all(status == 200 for status, _ in statuses), statuses
