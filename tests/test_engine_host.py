"""The engine host: one owner of the workers of a process.  Models load when a lease sends
a request, stay resident together under one memory budget (the window's, the API's and the
documents' models alike), make room by ending the least recently used idle one (never one
that is in use), and leave after their time to live; the window and the API share workers."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import ollama
import psutil
import pytest
from openai import NotFoundError, OpenAI
from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from app.core import Core
from app.docs.embedding import WorkerEmbedder
from app.engine.budget import MemoryBudget
from app.engine.host import EngineHost
from app.engine.seat import Seat
from app.library_offer import LibraryOffer
from app.serve.api_server import ApiServer, build_app
from app.serve.config import ServerConfig
from app.serve.served_models import LibraryModels
from tests.conftest import collect, free_port, kill_hard, link_or_copy, until
from wire import protocol

pytestmark = pytest.mark.slow
STARTER = "SmolLM2-135M-Instruct.Q4_1"
COPIES = ("alpha.Q4_1", "beta.Q4_1")
LONG = {"temperature": 0.7, "max_tokens": 4000, "ignore_eos": True, "seed": 3}
HI: Any = [{"role": "user", "content": "Hi"}]
HELD_S = 300  # the longest a test holds a worker's start


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
        link_or_copy(starter, core.models_dir / f"{name}.gguf")
    return core


@pytest.fixture
def offer(library: Core) -> LibraryOffer:
    return LibraryOffer(library, 1024)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def host(library: Core, offer: LibraryOffer, clock: Clock) -> Iterator[EngineHost]:
    """A host whose budget holds two loaded starters and not one more (measured)."""
    made = EngineHost(
        library.paths.logs_dir, keep_alive_s=300.0, clock=clock, estimate=library.memory_needs
    )
    lease = made.lease(spec_of(offer, STARTER))
    assert collect(lease.chat(HI, {"max_tokens": 2}))[0]
    (counted,) = [model.memory_bytes for model in made.loaded()]
    lease.release()
    made.set_budget(MemoryBudget(int(counted * 2.5)))
    yield made
    made.close()


def spec_of(offer: LibraryOffer, name: str) -> Any:
    return next(o for o in offer.offered() if o.name == name).spec()


def names(host: EngineHost) -> set[str]:
    return {model.label for model in host.loaded()}


def use(host: EngineHost, offer: LibraryOffer, name: str, clock_step: float = 1.0) -> None:
    """One short request for ``name``, answered."""
    lease = host.lease(spec_of(offer, name), label=name)
    try:
        text, events = collect(lease.chat(HI, {"max_tokens": 2}))
        assert text, events
    finally:
        lease.release()
    host.clock.now += clock_step  # type: ignore[attr-defined]


def test_a_slow_start_holds_up_neither_the_event_loop_nor_another_models_reply(
    library: Core, offer: LibraryOffer, qtbot: QtBot
) -> None:
    """A worker whose start takes seconds (here its memory estimate, held for at least
    5 s of the window's timer): the request for it is sent from the Qt main thread, as the
    window sends, and returns at once; the event loop keeps turning (a 100 ms timer fires
    50 times) and another model's reply keeps streaming meanwhile.  Then the model starts
    and answers."""
    gate, estimated = threading.Event(), threading.Event()

    def estimate(spec: Any) -> Any:
        if Path(spec.path).name.startswith("alpha"):
            gate.wait(HELD_S)
            estimated.set()
        return library.memory_needs(spec)

    host = EngineHost(library.paths.logs_dir, estimate=estimate)
    try:
        running = host.lease(spec_of(offer, STARTER))
        deltas: list[dict[str, Any]] = []
        long = running.chat(
            [{"role": "user", "content": "A story."}],
            LONG,
            lambda event: deltas.append(event) if event["type"] == "delta" else None,
        )
        qtbot.waitUntil(lambda: bool(deltas), timeout=120_000)
        ticks: list[float] = []
        timer = QTimer()
        timer.setInterval(100)
        timer.timeout.connect(lambda: ticks.append(time.monotonic()))
        timer.start()
        heard: list[dict[str, Any]] = []
        slow = host.lease(spec_of(offer, "alpha.Q4_1"))
        job = slow.chat(HI, {"max_tokens": 2}, heard.append)  # on the Qt main thread
        assert not estimated.is_set(), "the call returned while the start was held"
        before = len(deltas)
        qtbot.waitUntil(lambda: len(ticks) >= 50 and len(deltas) > before + 5, timeout=120_000)
        assert not long.finished, "the other reply is still streaming"
        assert not job.finished and [e["stage"] for e in heard] == ["Starting the engine"]
        timer.stop()
        gate.set()
        final = job.wait(120)
        assert final is not None and final["type"] == "done", heard
        assert any(e["type"] == "delta" for e in heard)
        long.cancel()
        assert long.wait(60) is not None
    finally:
        gate.set()
        host.close()


def test_two_models_stay_resident_and_a_third_ends_the_least_recently_used(
    host: EngineHost, offer: LibraryOffer
) -> None:
    use(host, offer, STARTER)
    use(host, offer, "alpha.Q4_1")
    assert names(host) == {STARTER, "alpha.Q4_1"}, "both fit the budget"
    use(host, offer, STARTER)  # alpha is now the least recently used
    use(host, offer, "beta.Q4_1")
    assert names(host) == {STARTER, "beta.Q4_1"}


def test_a_model_in_use_is_never_ended_and_a_request_without_room_is_refused(
    host: EngineHost, offer: LibraryOffer
) -> None:
    use(host, offer, "alpha.Q4_1")
    busy = host.lease(spec_of(offer, STARTER), label=STARTER)
    long = busy.chat([{"role": "user", "content": "A story."}], LONG)
    busy.release()  # the job is sent: the model is busy while it generates
    next(e for e in long.events(timeout=120) if e["type"] == "delta")
    use(host, offer, "beta.Q4_1")  # the starter is older than alpha, but generating
    assert names(host) == {STARTER, "beta.Q4_1"}
    assert not long.finished, "the long reply goes on"
    blocker = host.lease(spec_of(offer, "beta.Q4_1"))  # now both residents are in use
    try:
        refused = host.lease(spec_of(offer, "alpha.Q4_1"))
        final = refused.chat(HI, {"max_tokens": 2}).wait(60)
        refused.release()
        assert final is not None and final["kind"] == protocol.ERR_NO_ROOM
        assert "generating" in final["message"] and "alpha.Q4_1" in final["message"]
    finally:
        blocker.release()
        long.cancel()
    assert long.wait(60) is not None


def test_an_idle_model_leaves_after_its_time_to_live(
    host: EngineHost, offer: LibraryOffer, clock: Clock
) -> None:
    use(host, offer, STARTER, clock_step=0)
    lease = host.lease(spec_of(offer, "alpha.Q4_1"), label="alpha.Q4_1")
    assert lease.load().wait(300) is not None
    lease.release(keep_alive_s=10_000)
    clock.now += 301
    host.sweep()
    assert names(host) == {"alpha.Q4_1"}, "the starter's 300 s are over, alpha asked for more"
    lease = host.lease(spec_of(offer, "alpha.Q4_1"))
    lease.release(keep_alive_s=0)  # Ollama's keep_alive 0: ends once idle
    host.sweep()
    assert names(host) == set()


def test_the_time_to_live_counts_from_the_end_of_a_long_reply(
    host: EngineHost, offer: LibraryOffer, clock: Clock
) -> None:
    busy = host.lease(spec_of(offer, STARTER), label=STARTER)
    long = busy.chat([{"role": "user", "content": "A story."}], LONG)
    busy.release()
    next(e for e in long.events(timeout=120) if e["type"] == "delta")
    clock.now += 301
    host.sweep()
    assert names(host) == {STARTER}, "generating for longer than its time to live"
    long.cancel()
    assert long.wait(60) is not None
    clock.now += 1
    host.sweep()
    assert names(host) == {STARTER}, "idle for one second only"
    clock.now += 300
    host.sweep()
    assert names(host) == set()


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as opened:
        yield opened


def serve(host: EngineHost, offer: LibraryOffer, stack: ExitStack) -> str:
    config = ServerConfig(port=free_port(), model_name=STARTER)
    server = ApiServer(build_app(LibraryModels(host, offer.offered), config), config)
    server.start()
    stack.callback(server.stop)
    return f"http://127.0.0.1:{config.port}"


def test_over_http_the_request_names_the_model(
    host: EngineHost, offer: LibraryOffer, clock: Clock, stack: ExitStack
) -> None:
    """Each dialect loads what it names; an unknown name is a 404 with the close names;
    Ollama's ps lists the resident models with their memory."""
    base = serve(host, offer, stack)
    client = stack.enter_context(OpenAI(base_url=f"{base}/v1", api_key="unused"))
    listed = sorted(m.id for m in client.models.list())
    assert listed == sorted([STARTER, *COPIES])
    reply = client.chat.completions.create(model="alpha.Q4_1", messages=HI, max_tokens=2)
    assert reply.model == "alpha.Q4_1"
    clock.now += 1
    with pytest.raises(NotFoundError) as unknown:
        client.chat.completions.create(model="alfa", messages=HI, max_tokens=2)
    assert "alpha" in str(unknown.value), "the close names are offered"
    local = stack.enter_context(ollama.Client(host=base))
    local.generate(model="beta:q4_1", prompt="Hi", options={"num_predict": 2})
    running = {m.model: m for m in local.ps().models}
    assert "beta:q4_1" in running and "alpha:q4_1" in running
    assert all(m.size and m.size > 50_000_000 for m in running.values()), "measured memory"
    health: dict[str, Any] = httpx.get(f"{base}/health").json()
    assert {"alpha.Q4_1", "beta.Q4_1"} <= set(health["loaded"])
    # `ollama stop`: keep_alive 0 and nothing to generate unloads, and loads nothing.
    stopped = local.chat(model="alpha:q4_1", messages=[], keep_alive=0)
    assert stopped.done_reason == "unload"
    assert "alpha.Q4_1" not in names(host)
    before = names(host)
    local.generate(model="beta:q4_1", prompt="", keep_alive=0)
    local.generate(model="alpha:q4_1", prompt="", keep_alive=0)
    assert names(host) == before - {"beta.Q4_1"}, "nothing is loaded to be stopped"


def test_the_window_and_the_api_share_their_workers(
    host: EngineHost, offer: LibraryOffer, stack: ExitStack
) -> None:
    """The window takes a model the API already loaded instead of loading it twice; a
    request for the window's model runs on the window's worker; the model the window leaves
    stays loaded for the API; the window's model counts in the budget but is never ended to
    make room."""
    window = Seat(host)
    base = serve(host, offer, stack)
    client = stack.enter_context(OpenAI(base_url=f"{base}/v1", api_key="unused"))
    client.chat.completions.create(model=STARTER, messages=HI, max_tokens=2)
    api_pid = next(m.pid for m in host.loaded() if m.label == STARTER)
    starter = spec_of(offer, STARTER)
    assert window.load(starter).wait(300)["type"] == "loaded"  # type: ignore[index]
    assert window.worker_pid == api_pid, "taken from the API, not loaded again"
    client.chat.completions.create(model=STARTER, messages=HI, max_tokens=2)
    assert window.worker_pid == api_pid, "the API's request ran on the window's worker"
    client.chat.completions.create(model="alpha.Q4_1", messages=HI, max_tokens=2)
    client.chat.completions.create(model="beta.Q4_1", messages=HI, max_tokens=2)
    assert names(host) == {STARTER, "beta.Q4_1"}, "alpha went; the window's model stays"
    beta = spec_of(offer, "beta.Q4_1")
    beta_pid = next(m.pid for m in host.loaded() if m.label == "beta.Q4_1")
    assert window.load(beta).wait(300)["type"] == "loaded"  # type: ignore[index]
    assert window.worker_pid == beta_pid
    kept = {m.label: m for m in host.loaded()}
    assert kept["beta.Q4_1"].pinned and not kept[STARTER].pinned
    assert kept[STARTER].pid == api_pid, "the starter stays for the API"
    client.chat.completions.create(model=STARTER, messages=HI, max_tokens=2)
    assert next(m.pid for m in host.loaded() if m.label == STARTER) == api_pid
    # "hearth" (and no name) means the window's model.
    named = client.chat.completions.create(model="hearth", messages=HI, max_tokens=2)
    assert named.model == "beta.Q4_1"
    # The window's own settings for the file (its context length): the API uses that
    # worker as it is rather than loading the file a second time.
    own = dataclasses.replace(beta, n_ctx=512)
    assert window.load(own).wait(300)["type"] == "loaded"  # type: ignore[index]
    client.chat.completions.create(model="beta.Q4_1", messages=HI, max_tokens=2)
    (mine,) = [m for m in host.loaded() if m.pid == window.worker_pid]
    assert mine.spec.n_ctx == 512 and "api" in mine.purposes


def test_the_documents_embedding_model_counts_in_the_budget(
    host: EngineHost, offer: LibraryOffer, library: Core
) -> None:
    """Its worker is one of the host's: listed, counted, and ended like any idle model when
    another needs the room."""
    alpha = spec_of(offer, "alpha.Q4_1")
    vectors = WorkerEmbedder(host, alpha, "alpha.Q4_1").embed(["a cat", "a dog"])
    assert len(vectors) == 2
    host.clock.now += 1  # type: ignore[attr-defined]
    use(host, offer, STARTER)
    loaded = {m.label: m for m in host.loaded()}
    assert "documents" in loaded["alpha.Q4_1"].purposes
    assert loaded["alpha.Q4_1"].memory_bytes > 50_000_000, "its memory is counted"
    use(host, offer, "beta.Q4_1")  # no room for three: the least recently used goes
    assert names(host) == {STARTER, "beta.Q4_1"}


def test_two_models_answering_at_once_never_run_more_threads_than_cores(
    library: Core, offer: LibraryOffer
) -> None:
    """Each worker says when its engine changes its thread count; together they never
    pass the cores (two here), and both answer side by side, a core each."""
    host = EngineHost(library.paths.logs_dir, cores=2)
    ended: dict[int, float] = {}

    def when_done(job_id: list[int]) -> Any:
        def heard(event: dict[str, Any]) -> None:
            if event["type"] in ("done", "error"):
                ended[job_id[0]] = time.monotonic()  # before the host lends its cores on

        return heard

    try:
        first, second = (host.lease(spec_of(offer, name)) for name in (STARTER, "alpha.Q4_1"))
        story = [{"role": "user", "content": "Tell me a long story."}]
        asked = {"temperature": 0.7, "max_tokens": 120, "ignore_eos": True, "seed": 3}
        ids_a: list[int] = []
        job_a = first.chat(story, asked, when_done(ids_a))
        ids_a.append(job_a.id)
        deadline = time.monotonic() + 300
        while not (first.hosted and first.hosted.worker and first.hosted.worker.threads_reported):
            assert time.monotonic() < deadline, "the first reply never started"
            time.sleep(0.05)
        ids_b: list[int] = []
        job_b = second.chat(story, asked, when_done(ids_b))
        ids_b.append(job_b.id)
        for job in (job_a, job_b):
            assert job.wait(600) is not None and job.final is not None
            assert job.final["type"] == "done", job.final
        workers = [lease.hosted.worker if lease.hosted else None for lease in (first, second)]
        assert all(w is not None for w in workers)
        spans = []
        for worker, job in zip(workers, (job_a, job_b), strict=True):
            assert worker is not None
            reports = list(worker.threads_reported)
            ends = [at for at, _n in reports[1:]] + [ended[job.id]]
            spans += [(at, end, n) for (at, n), end in zip(reports, ends, strict=True)]
        for start, _end, _n in spans:
            running = sum(n for a, b, n in spans if a <= start < b)
            assert running <= 2, f"{running} engine threads at once: {spans}"
        b_start, b_threads = spans[len(workers[0].threads_reported)][::2]  # type: ignore[union-attr]
        assert b_start < ended[job_a.id], "the second model answered beside the first"
        assert b_threads == 1, "a core each while both answer"
    finally:
        host.close()


def test_a_request_that_ends_before_its_worker_answers_gives_its_cores_back(
    library: Core, offer: LibraryOffer
) -> None:
    """A reply refused on its way to the worker (a conversation too big for the pipe)
    still gives back the core it was lent: the next model's reply is not held up."""
    host = EngineHost(library.paths.logs_dir, cores=1)
    try:
        first, second = (host.lease(spec_of(offer, name)) for name in (STARTER, "alpha.Q4_1"))
        huge = [{"role": "user", "content": "x" * protocol.MAX_LINE_BYTES}]
        refused = first.chat(huge, {"max_tokens": 2}).wait(300)
        assert refused is not None and "too long" in refused["message"], refused
        text, events = collect(second.chat(HI, {"max_tokens": 2}), timeout=300)
        assert text and events[-1]["type"] == "done"
    finally:
        host.close()


def test_a_reply_waiting_for_cores_survives_its_engine_dying(
    library: Core, offer: LibraryOffer
) -> None:
    """A reply that waits its turn for the cores has not reached its engine yet: when
    that engine dies meanwhile, the reply goes to a new one (its model counts as busy,
    never ended as idle, while it waits) and is answered once the cores are free."""
    host = EngineHost(library.paths.logs_dir, cores=1)
    try:
        first, second = (host.lease(spec_of(offer, name)) for name in (STARTER, "alpha.Q4_1"))
        long_reply = first.chat(HI, {**LONG, "max_tokens": 60})
        assert next(e for e in long_reply.events(timeout=300) if e["type"] == "delta")
        waiting = second.chat(HI, {"max_tokens": 4})
        assert second.busy, "busy from the moment it is asked"
        until(lambda: host.shares.waiting() == 1, what="the reply waits for the cores")
        doomed = second.worker_pid
        assert doomed is not None
        kill_hard(doomed)
        deadline = time.monotonic() + 120
        while second.worker_pid in (doomed, None):
            assert time.monotonic() < deadline, "no new engine for the waiting reply"
            time.sleep(0.05)
        assert not waiting.finished and host.shares.waiting() == 1
        assert long_reply.wait(300) is not None
        text, events = collect(waiting, timeout=300)
        assert text and events[-1]["type"] == "done", events[-1]
    finally:
        host.close()


def test_the_name_hearth_means_the_model_in_use(
    host: EngineHost, offer: LibraryOffer, clock: Clock, stack: ExitStack
) -> None:
    """The README's recipes name the model ``hearth`` (``openai/hearth`` in LiteLLM, the
    ``llm`` CLI): on a library server it is the model used last, and with nothing loaded
    the library's default; Ollama's clients may write ``hearth:latest``."""
    base = serve(host, offer, stack)
    client = stack.enter_context(OpenAI(base_url=f"{base}/v1", api_key="unused"))
    for model in list(host.loaded()):
        host.unload(model.spec)
    first = client.chat.completions.create(model="hearth", messages=HI, max_tokens=2)
    assert first.model == STARTER, "nothing loaded: the library's default"
    clock.now += 1
    client.chat.completions.create(model="beta.Q4_1", messages=HI, max_tokens=2)
    clock.now += 1
    again = client.chat.completions.create(model="hearth", messages=HI, max_tokens=2)
    assert again.model == "beta.Q4_1", "the model used last"
    local = stack.enter_context(ollama.Client(host=base))
    answer = local.chat(model="hearth:latest", messages=HI, options={"num_predict": 2})
    assert answer.model == "hearth:latest" and answer.done


def test_a_model_is_deleted_only_once_no_worker_of_hearths_holds_it(
    core: Core, starter: Path
) -> None:
    """Windows cannot delete a file a process has mapped: the model in use is refused in
    words, an idle one's worker ends first, then the file goes."""
    from app.errors import HearthError
    from app.hub.downloads import DownloadManager
    from app.library_actions import delete_model

    target = core.models_dir / "acme" / "mine-GGUF" / "mine.Q4_1.gguf"
    target.parent.mkdir(parents=True)
    link_or_copy(starter, target)
    downloads = DownloadManager(core.downloads_file, {})
    downloads.owned.append(str(target))
    downloads.save()
    entry = next(e for e in core.models() if e.path == target)  # as the library lists it
    seat = Seat(core.engines)
    assert seat.load(core.model_spec(entry)).wait(300) is not None
    with pytest.raises(HearthError, match="is in use"):
        delete_model(core, entry)
    assert target.exists() and len(core.engines.loaded()) == 1
    lease = seat.current
    assert lease is not None
    lease.release(keep_alive_s=600)  # another model was chosen: this one stays loaded, idle
    (loaded,) = core.engines.loaded()
    assert delete_model(core, entry) > 0
    assert not target.exists() and not (core.models_dir / "acme").exists()
    assert core.engines.loaded() == [] and not psutil.pid_exists(loaded.pid)
    core.engines.close()
