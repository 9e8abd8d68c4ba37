"""The library served on demand: models load when a request names them, stay resident
together under the memory budget, make room by unloading the least recently used idle
one (never one that is generating), and leave after their time to live."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import ollama
import pytest
from openai import NotFoundError, OpenAI

from app.core import Core
from app.engine_client import EngineClient
from app.library_offer import LibraryOffer
from app.serve.api_server import ApiServer, ServerConfig, build_app_for
from app.serve.model_pool import LoadFailed, ModelPool
from app.serve.served_models import LibraryModels
from tests.conftest import collect, free_port

pytestmark = pytest.mark.slow
STARTER = "SmolLM2-135M-Instruct.Q4_1"
COPIES = ("alpha.Q4_1", "beta.Q4_1")
LONG = {"temperature": 0.7, "max_tokens": 4000, "ignore_eos": True, "seed": 3}


class Clock:
    """Time that moves when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def library(core: Core, starter: Path) -> Core:
    """The starter model and two more GGUF files (links to it, under other names)."""
    core.models_dir.mkdir(parents=True, exist_ok=True)
    for name in COPIES:
        os.link(starter, core.models_dir / f"{name}.gguf")
    return core


def measured_budget(pool: ModelPool, models: int) -> int:
    """Room for ``models`` loaded starters, and not one more (from a measured worker)."""
    resident = pool.acquire(pool.find(STARTER))
    pool.release(resident)
    return int(resident.memory() * (models + 0.5))


@pytest.fixture
def pool(library: Core) -> Iterator[ModelPool]:
    clock = Clock()
    offer = LibraryOffer(library, 1024)
    made = ModelPool(offer.offered, library.paths.logs_dir, 10**12, 300.0, clock=clock)
    made.budget_bytes = measured_budget(made, 2)
    yield made
    made.close()


def names(pool: ModelPool) -> set[str]:
    return {r.offered.name for r in pool.resident()}


def use(pool: ModelPool, name: str, clock_step: float = 1.0) -> None:
    """One short request for ``name``, answered."""
    resident = pool.acquire(pool.find(name))
    try:
        text, _ = collect(
            resident.client.chat(
                resident.spec, [{"role": "user", "content": "Hi"}], {"max_tokens": 2}
            )
        )
        assert text
    finally:
        pool.release(resident)
    pool._clock.now += clock_step  # type: ignore[attr-defined]


def test_two_models_stay_resident_and_a_third_unloads_the_least_recently_used(
    pool: ModelPool,
) -> None:
    use(pool, STARTER)
    use(pool, "alpha.Q4_1")
    assert names(pool) == {STARTER, "alpha.Q4_1"}, "both fit the budget"
    use(pool, STARTER)  # alpha is now the least recently used
    use(pool, "beta.Q4_1")
    assert names(pool) == {STARTER, "beta.Q4_1"}


def test_a_model_that_is_generating_is_never_unloaded(pool: ModelPool) -> None:
    use(pool, "alpha.Q4_1")
    busy = pool.acquire(pool.find(STARTER))
    long = busy.client.chat(busy.spec, [{"role": "user", "content": "A story."}], LONG)
    pool.release(busy)  # the job is sent: the model is busy while it generates
    next(e for e in long.events(timeout=120) if e["type"] == "delta")
    use(pool, "beta.Q4_1")  # the starter is older than alpha, but generating
    assert names(pool) == {STARTER, "beta.Q4_1"}
    assert not long.finished, "the long reply goes on"
    blocker = pool.acquire(pool.find("beta.Q4_1"))  # now both residents are busy
    try:
        with pytest.raises(LoadFailed) as no_room:
            pool.acquire(pool.find("alpha.Q4_1"))
        assert "generating" in str(no_room.value)
    finally:
        pool.release(blocker)
        long.cancel()
    assert long.wait(60) is not None


def test_an_idle_model_leaves_after_its_time_to_live(pool: ModelPool) -> None:
    use(pool, STARTER, clock_step=0)
    use(pool, "alpha.Q4_1", clock_step=0)
    resident = pool.acquire(pool.find("alpha.Q4_1"), keep_alive_s=10_000)
    pool.release(resident)
    pool._clock.now += 301  # type: ignore[attr-defined]
    pool.sweep()
    assert names(pool) == {"alpha.Q4_1"}, "the starter's 300 s are over, alpha asked for more"
    resident = pool.acquire(pool.find("alpha.Q4_1"), keep_alive_s=0)  # Ollama's keep_alive 0
    pool.release(resident)
    pool.sweep()
    assert names(pool) == set()


def test_the_time_to_live_counts_from_the_end_of_a_long_reply(pool: ModelPool) -> None:
    clock: Any = pool._clock
    busy = pool.acquire(pool.find(STARTER))
    long = busy.client.chat(busy.spec, [{"role": "user", "content": "A story."}], LONG)
    pool.release(busy)
    next(e for e in long.events(timeout=120) if e["type"] == "delta")
    clock.now += 301
    pool.sweep()
    assert names(pool) == {STARTER}, "generating for longer than its time to live"
    long.cancel()
    assert long.wait(60) is not None
    clock.now += 1
    pool.sweep()
    assert names(pool) == {STARTER}, "idle for one second only"
    clock.now += 300
    pool.sweep()
    assert names(pool) == set()


def test_over_http_the_request_names_the_model(
    library: Core, pool: ModelPool, stack: ExitStack
) -> None:
    """Each dialect loads what it names; an unknown name is a 404 with the close names;
    Ollama's ps lists the resident models with their memory."""
    config = ServerConfig(port=free_port(), model_name=STARTER)
    server = ApiServer(build_app_for(LibraryModels(pool), config), config)
    server.start()
    stack.callback(server.stop)
    base = f"http://127.0.0.1:{config.port}"
    client = stack.enter_context(OpenAI(base_url=f"{base}/v1", api_key="unused"))
    listed = sorted(m.id for m in client.models.list())
    assert listed == sorted([STARTER, *COPIES])
    reply = client.chat.completions.create(
        model="alpha.Q4_1", messages=[{"role": "user", "content": "Hi"}], max_tokens=2
    )
    assert reply.model == "alpha.Q4_1"
    pool._clock.now += 1  # type: ignore[attr-defined]
    with pytest.raises(NotFoundError) as unknown:
        client.chat.completions.create(
            model="alfa", messages=[{"role": "user", "content": "Hi"}], max_tokens=2
        )
    assert "alpha" in str(unknown.value), "the close names are offered"
    local = stack.enter_context(ollama.Client(host=base))
    local.generate(model="beta:q4_1", prompt="Hi", options={"num_predict": 2})
    running = {m.model: m for m in local.ps().models}
    assert "beta:q4_1" in running and "alpha:q4_1" in running
    assert all(m.size and m.size > 50_000_000 for m in running.values()), "measured memory"
    health: dict[str, Any] = httpx.get(f"{base}/health").json()
    assert set(health["loaded"]) == {"alpha.Q4_1", "beta.Q4_1"}
    # `ollama stop`: keep_alive 0 and nothing to generate unloads, and loads nothing.
    stopped = local.chat(model="alpha:q4_1", messages=[], keep_alive=0)
    assert stopped.done_reason == "unload"
    assert names(pool) == {"beta.Q4_1"}
    local.generate(model=STARTER, prompt="", keep_alive=0)
    assert names(pool) == {"beta.Q4_1"}, "a model that was not loaded is not loaded to stop it"


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as opened:
        yield opened


def test_the_window_and_the_api_share_their_workers(library: Core, pool: ModelPool) -> None:
    """The window's client takes a model the API already loaded instead of loading it
    twice; a request for the window's model runs on the window's worker; the model the
    window leaves stays loaded for the API; the window's model counts in the budget but
    is never unloaded to make room."""
    window = EngineClient(log_dir=library.paths.logs_dir)
    try:
        pool.share_with(window)
        starter = next(r for r in pool.resident() if r.offered.name == STARTER)
        api_pid = starter.client.worker_pid  # the fixture loaded it to measure it
        assert window.load(starter.spec).wait(300)["type"] == "loaded"  # type: ignore[index]
        assert window.worker_pid == api_pid, "taken from the API, not loaded again"
        assert [(r.offered.name, r.hosted) for r in pool.resident()] == [(STARTER, True)]
        use(pool, STARTER)
        served = pool.acquire(pool.find(STARTER))
        pool.release(served)
        window_worker = window.current_worker()
        assert window_worker is not None
        assert served.client.current_worker() is window_worker, "on the window's worker"
        assert window.worker_pid == api_pid
        use(pool, "alpha.Q4_1")
        use(pool, "beta.Q4_1")  # the budget holds two: alpha goes, the window's model stays
        assert [(r.offered.name, r.hosted) for r in pool.resident()] == [
            (STARTER, True),
            ("beta.Q4_1", False),
        ]
        beta = pool.resident()[1]
        beta_pid = beta.client.worker_pid
        assert window.load(beta.spec).wait(300)["type"] == "loaded"  # type: ignore[index]
        assert window.worker_pid == beta_pid
        kept = {r.offered.name: r for r in pool.resident()}
        assert kept["beta.Q4_1"].hosted and not kept[STARTER].hosted
        assert kept[STARTER].client.worker_pid == api_pid, "the starter stays for the API"
        use(pool, STARTER)
        assert kept[STARTER].client.worker_pid == api_pid
        # A request reserved for the window's model and sent after the window moved on
        # runs on that same worker (now the API's): it never switches the window back.
        served = pool.acquire(pool.find("beta.Q4_1"))
        assert window.load(kept[STARTER].spec).wait(300)["type"] == "loaded"  # type: ignore[index]
        text, _ = collect(
            served.client.chat(served.spec, [{"role": "user", "content": "Hi"}], {"max_tokens": 2})
        )
        pool.release(served)
        assert text and window.loaded_model == kept[STARTER].spec
        assert window.worker_pid == api_pid, "the window kept the model it chose"
        pool.close()
        assert window.worker_pid == api_pid and window.share is None, "the window keeps its own"
    finally:
        window.close()
