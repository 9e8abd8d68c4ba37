"""``hearth bench``: Hearth measured against its budgets (DESIGN.md), side by side in one run.

Each comparison is a ratio or a difference of two measurements taken alternately in the
same run, so a noisy machine moves both sides alike:

* tokens/s of a reply streamed through the worker into the real window, against
  llama-cpp-python streaming the same reply in a process of its own (same model, prompt,
  seed, sampling, fixed length);
* time to first token in the window minus the library's own time to first token;
* cold start of ``hearth`` to a painted window (median of several starts);
* peak resident memory of this UI process, and whether it ever imported an engine
  library.

Prints one line per figure with its budget, or with ``--json`` a list of
``{"name", "value", "unit", "budget", "ok"}``.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from app.core import Core
from hearth.bench.figures import (
    Figure,
    api_figures,
    chat_figures,
    connection_figures,
    download_figures,
    engine_figures,
    parallel_figures,
    print_figures,
    two_models_figures,
)
from hearth.bench.stalls import StallMonitor
from wire import protocol
from wire.model_spec import LLAMA_CPP
from wire.platforms import peak_rss_bytes

if TYPE_CHECKING:
    from hearth.bench.download import Connections

PROMPT = "Write a short story about a lighthouse keeper and a storm."
SEED = 1234
STARTUP_RUNS = 3
DEADLINE_ENV = "HEARTH_BENCH_DEADLINE_S"  # tests: seconds after which a stuck run dumps


@dataclass
class Side:
    tokens_per_s: list[float]
    ttft_ms: list[float]


class Baseline:
    """llama-cpp-python alone, in its own process (see hearth.bench.baseline)."""

    def __init__(self, model_path: str, n_ctx: int, threads: int, flash_attn: bool) -> None:
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "hearth.bench.baseline", model_path),
                *(str(n_ctx), str(threads), "1" if flash_attn else "0"),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin: IO[bytes] = self.process.stdin
        self.stdout: IO[bytes] = self.process.stdout
        ready = protocol.read_message(self.stdout)
        if ready is None:
            raise RuntimeError("the llama-cpp-python reference process failed to start")

    def run(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
        protocol.write_message(self.stdin, {"type": "run", "messages": messages, "params": params})
        result = protocol.read_message(self.stdout)
        if result is None:
            raise RuntimeError("the llama-cpp-python reference process died")
        return result

    def close(self) -> None:
        protocol.write_message(self.stdin, {"type": "shutdown"})
        self.stdin.close()
        self.process.wait(10)
        self.stdout.close()


def measure_window(window: Any, tokens: int) -> tuple[float, float, float]:
    """One reply through the window: tokens/s as painted, ms to first text, UI CPU ms/1k tokens."""
    from PySide6.QtCore import QEventLoop, QTimer

    marks: list[float] = []
    window.chat.new_chat()
    watcher_texts: list[float] = marks
    done: dict[str, Any] = {}
    loop = QEventLoop()

    def on_finished(final: dict[str, Any]) -> None:
        done.update(final)
        loop.quit()

    original = window.chat.transcript.append_stream

    def timed_append(text: str) -> None:
        original(text)
        watcher_texts.append(time.perf_counter())

    window.chat.transcript.append_stream = timed_append
    window.reply_finished.connect(on_finished)
    cpu_before = time.process_time()
    sent = time.perf_counter()
    try:
        if not window.chat.send(PROMPT):
            raise RuntimeError(window.error_banner.message or "could not send")
        QTimer.singleShot(300_000, loop.quit)
        loop.exec()
    finally:
        window.reply_finished.disconnect(on_finished)
        window.chat.transcript.append_stream = original
    if done.get("type") != "done" or len(marks) < 2:
        raise RuntimeError(f"the reply failed: {done.get('message', done)}")
    cpu = time.process_time() - cpu_before
    message = window.store.message(int(done["message_id"]))
    generated = int(message.stats.get("generated_tokens", tokens))
    return (
        (generated - 1) / (marks[-1] - marks[0]),
        (marks[0] - sent) * 1000,
        cpu * 1000 / generated * 1000,
    )


def measure_stop(window: Any) -> float:
    """Milliseconds from Stop during a long reply until the reply has ended (the engine
    stopped between two tokens and said so)."""
    from PySide6.QtCore import QEventLoop, QTimer

    done: dict[str, Any] = {}
    loop = QEventLoop()

    def on_finished(final: dict[str, Any]) -> None:
        done.update(final)
        loop.quit()

    def stop_when_streaming() -> None:
        if len(window.chat.transcript.streamed_text) < 40:
            QTimer.singleShot(5, stop_when_streaming)
            return
        done["asked"] = time.perf_counter()
        window.chat.stop()

    overrides = dict(window.chat.sampling_overrides)
    window.chat.sampling_overrides = {**overrides, "max_tokens": 4096}
    window.chat.new_chat()
    window.reply_finished.connect(on_finished)
    try:
        if not window.chat.send(PROMPT):
            raise RuntimeError(window.error_banner.message or "could not send")
        stop_when_streaming()
        QTimer.singleShot(300_000, loop.quit)
        loop.exec()
    finally:
        window.reply_finished.disconnect(on_finished)
        window.chat.sampling_overrides = overrides
    if done.get("status") != "stopped" or "asked" not in done:
        raise RuntimeError(f"the reply was not stopped: {done}")
    return (time.perf_counter() - float(done["asked"])) * 1000


def measure_startup(runs: int) -> list[float]:
    """Seconds from launching ``hearth`` to its window's first paint.

    As an installed Hearth starts: with its Python code already compiled to bytecode (an
    untimed first start writes it, even where PYTHONDONTWRITEBYTECODE is set for
    development)."""
    from ui.gui import EXIT_AFTER_PAINT_ENV

    results = []
    for index in range(runs + 1):
        with tempfile.TemporaryDirectory(prefix="hearth-bench-") as data:
            env = dict(
                os.environ,
                **{
                    EXIT_AFTER_PAINT_ENV: "1",
                    "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                },
            )
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            started = time.time()
            output = subprocess.run(
                [sys.executable, "-m", "hearth", "--data-dir", data],
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
                check=False,
            ).stdout
            painted = [line for line in output.splitlines() if line.startswith("PAINTED ")]
            if not painted:
                raise RuntimeError("the window did not report its first paint")
            if index:  # the first start only compiled the code
                results.append(float(painted[0].split()[1]) - started)
    return results


def docs_figures(core: Core, args: argparse.Namespace, say: Any) -> list[Figure]:
    """The documents benchmark (``hearth.bench.documents``), with the chosen model (the
    starter by default) as the embedding model for hybrid search."""
    from pathlib import Path

    from app.docs.embedding import WorkerEmbedder
    from app.engine.host import EngineHost
    from hearth.bench.documents import measure as measure_docs

    entry = core.find_model(getattr(args, "model", None))
    corpus = Path(args.docs_corpus) if getattr(args, "docs_corpus", None) else None
    say(f"bench: documents, embedding with {entry.name}")
    with tempfile.TemporaryDirectory(prefix="hearth-bench-docs-") as scratch:
        host = EngineHost(Path(scratch) / "logs")
        try:
            embedder = None
            if entry.format == "gguf":
                embedder = WorkerEmbedder(host, core.model_spec(entry), entry.name)
            docs = measure_docs(Path(scratch), embedder, entry.name, corpus, say)
        finally:
            host.close()
    figures = [
        Figure("docs_recall_at_5_bm25", round(docs.recall_bm25[0], 3), "ratio", None, None),
        Figure("docs_recall_at_5_bm25_en", round(docs.recall_bm25[1], 3), "ratio", None, None),
        Figure("docs_recall_at_5_bm25_zh", round(docs.recall_bm25[2], 3), "ratio", None, None),
        Figure("docs_index_mb_s", round(docs.index_mb_s, 2), "MB/s", None, None),
        Figure(
            "docs_query_p95_ms",
            round(docs.query_p95_ms, 2),
            "ms",
            "<= 50",
            docs.query_p95_ms <= 50,
        ),
        Figure(
            "docs_latency_passages",
            docs.passages_for_latency,
            "count",
            ">= 10000",
            docs.passages_for_latency >= 10_000,
        ),
    ]
    figures += [
        Figure(
            "docs_indexing_longest_stall_ms",
            round(docs.indexing_stall_ms, 1),
            "ms",
            "<= 50",
            docs.indexing_stall_ms <= 50,
        ),
        Figure("docs_indexing_1000_files_s", round(docs.indexing_1000_files_s, 1), "s", None, None),
    ]
    if docs.recall_hybrid is not None:
        figures += [
            Figure(f"docs_recall_at_5_hybrid{part}", round(value, 3), "ratio", None, None)
            for part, value in zip(("", "_en", "_zh"), docs.recall_hybrid, strict=True)
        ]
    if docs.query_p95_hybrid_ms is not None:
        figures.append(
            Figure(
                "docs_query_p95_hybrid_ms",
                round(docs.query_p95_hybrid_ms, 2),
                "ms",
                "<= 50",
                docs.query_p95_hybrid_ms <= 50,
            )
        )
    if docs.embed_question_ms is not None:
        figures.append(
            Figure("docs_embed_question_ms", round(docs.embed_question_ms, 1), "ms", None, None)
        )
    if corpus is not None:
        figures += [
            Figure("docs_corpus_files", docs.corpus_files, "count", None, None),
            Figure("docs_corpus_mb", round(docs.corpus_mb, 1), "MB", None, None),
            Figure("docs_corpus_index_mb_s", round(docs.corpus_mb_s, 2), "MB/s", None, None),
            Figure("docs_corpus_passages", docs.corpus_passages, "count", None, None),
            Figure("docs_corpus_skipped", docs.corpus_skipped, "count", None, None),
        ]
    return figures


def _measure_connections(args: argparse.Namespace) -> Connections:
    from hearth.bench.download import measure_connections

    # A file of 64 MB, or of --download-mb when that is smaller (a quick run): one
    # connection takes a quarter of a second per MB, the others an eighth of that.
    size_mb = max(8, min(64, int(getattr(args, "download_mb", 256))))
    _say_unless(args.json)(
        f"bench: one file of {size_mb} MB from a loopback server capping each connection "
        "at 4 MB/s: one connection, then Hearth's, 2 rounds"
    )
    return measure_connections(size_mb)


def run_bench(core: Core, args: argparse.Namespace) -> int:
    deadline = os.environ.get(DEADLINE_ENV, "")
    if deadline:  # a run that hangs ends with every thread's stack on stderr, not silently
        faulthandler.dump_traceback_later(float(deadline), exit=True)
    if getattr(args, "docs_only", False):
        return print_figures(docs_figures(core, args, _say_unless(args.json)), args)
    if getattr(args, "tools_only", False):
        return print_figures(tools_figures(), args)
    if getattr(args, "engines_only", False):
        from hearth.bench.engines import pytorch_engine_figures

        return print_figures(pytorch_engine_figures(_say_unless(args.json)), args)
    if getattr(args, "vision_only", False):
        return print_figures(picture_figures(args), args)
    if getattr(args, "download", False):
        return print_figures(connection_figures(_measure_connections(args)), args)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from ui.gui import dispose_window, make_application
    from ui.main_window import MainWindow

    entry = core.find_model(getattr(args, "model", None))
    tokens, rounds = int(args.tokens), int(args.rounds)
    quiet = bool(args.json)

    def say(text: str) -> None:
        if not quiet:
            print(text, file=sys.stderr, flush=True)

    say(f"bench: model {entry.name}, {tokens} tokens per reply, {rounds} rounds per side")
    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as scratch:
        from app.core import open_core

        bench_core = open_core(scratch)
        bench_core.settings.set("models.default", str(entry.path))
        spec = bench_core.model_spec(entry)
        params = {**bench_core.sampling(), "seed": SEED, "max_tokens": tokens}
        make_application()
        window = MainWindow(bench_core)
        window.chat.sampling_overrides = {"ignore_eos": True, "seed": SEED, "max_tokens": tokens}
        window.show()
        from PySide6.QtCore import QEventLoop, QTimer

        loop = QEventLoop()
        window.model_loaded.connect(loop.quit)
        QTimer.singleShot(120_000, loop.quit)
        loop.exec()
        # Let the start-up system check (a probe subprocess) finish: measure steady state.
        settle = QEventLoop()
        window.system_screen.facts_ready.connect(settle.quit)
        QTimer.singleShot(60_000, settle.quit)
        if window.core.facts is None:
            settle.exec()
        baseline = Baseline(spec.path, spec.n_ctx, spec.threads, spec.flash_attn)
        hearth = Side([], [])
        library = Side([], [])
        ui_cpu: list[float] = []
        messages = [{"role": "user", "content": PROMPT}]
        try:
            # The warm-up reply doubles as the stall measurement: the 5 ms probe timer costs
            # CPU of its own, so it stays out of the rounds that measure speed.
            stalls = StallMonitor()
            stalls.start()
            measure_window(window, tokens)
            stalls.stop()
            baseline.run(messages, params)
            # Then alternate: window, library, window, library, …
            for index in range(rounds):
                speed, ttft, cpu_per_1k = measure_window(window, tokens)
                hearth.tokens_per_s.append(speed)
                hearth.ttft_ms.append(ttft)
                result = baseline.run(messages, params)
                library.tokens_per_s.append((tokens - 1) / result["decode_s"])
                library.ttft_ms.append(result["ttft_ms"])
                ui_cpu.append(cpu_per_1k)
                say(
                    f"  round {index + 1}: window {speed:.1f} tok/s, {ttft:.1f} ms first token; "
                    f"library {library.tokens_per_s[-1]:.1f} tok/s, {result['ttft_ms']:.1f} ms"
                )
            stops = [measure_stop(window) for _ in range(3)]
        finally:
            baseline.close()
            dispose_window(window)
    chat_tokens = int(getattr(args, "chat_tokens", 20_000))
    chat = None
    if chat_tokens > 0:
        from pathlib import Path

        from hearth.bench.chat import measure_chat

        say(f"bench: a {chat_tokens}-token Markdown reply, a 2,000-message conversation")
        with tempfile.TemporaryDirectory(prefix="hearth-bench-chat-") as chat_scratch:
            chat = measure_chat(Path(chat_scratch), chat_tokens)
    engine = None
    two_models: tuple[list[float], list[float]] | None = None
    if spec.engine == LLAMA_CPP:
        from hearth.bench.engine_speed import find_llama_bench
        from hearth.bench.engine_speed import measure as measure_engine

        binary = find_llama_bench()
        if binary is None:
            say("bench: llama-bench not found ('make bench-tools' builds it): skipping the engine")
        else:
            engine_rounds = max(3, rounds)
            say(
                f"bench: the llama.cpp engine against {binary.name}, prompt lookup, "
                f"{engine_rounds} rounds"
            )
            engine = measure_engine(spec, binary, engine_rounds)
        from hearth.bench.two_models import measure as measure_two_models

        say(
            f"bench: two models answering at once, cores shared or not, {rounds} rounds of "
            f"{tokens} tokens each"
        )
        two_models = measure_two_models(entry.path, rounds, tokens)
    startup = measure_startup(STARTUP_RUNS)
    download_mb = int(getattr(args, "download_mb", 256))
    if download_mb > 0:
        from hearth.bench.download import measure as measure_download

        say(f"bench: downloading {download_mb} MB on loopback, 5 rounds per side")
        session_mb_s, urllib_mb_s, hearth_mb_s = measure_download(download_mb)
        say("bench: the same over a link shaped to 100 MB/s (a 1 Gbit/s network)")
        shaped = measure_download(max(download_mb // 4, 8), rounds=3, rate_mb_s=100)
        connections = _measure_connections(args)
    api: dict[str, float] = {}
    if getattr(args, "api", False):
        from hearth.bench.api import measure as measure_api

        say("bench: hearth serve and the remote engine, 3 alternating rounds")
        api = measure_api(entry.path)
        from hearth.bench.api import measure_router

        say("bench: hearth serve of a two-model library: first request, switching models")
        api.update(measure_router(entry.path))
    parallel: dict[str, float] = {}
    if getattr(args, "parallel", False):
        from app.engine.cores import physical_cores
        from hearth.bench.parallel import find_llama_server
        from hearth.bench.parallel import measure as measure_parallel

        server = find_llama_server()
        if server is None:
            say("bench: llama-server not found ('make bench-tools' builds it): skipping it")
        else:
            say(f"bench: four replies at once, hearth serve against {server.name} -np 4")
            parallel = measure_parallel(entry.path, server, physical_cores(), max(5, rounds))
    peak_rss = peak_rss_bytes()
    leaked = [m for m in ("torch", "transformers", "llama_cpp") if m in sys.modules]

    window_tps = statistics.median(hearth.tokens_per_s)
    library_tps = statistics.median(library.tokens_per_s)
    ratio = window_tps / library_tps
    added_ttft = statistics.median(hearth.ttft_ms) - statistics.median(library.ttft_ms)
    cold = statistics.median(startup)
    figures = [
        Figure("tokens_per_s_window", round(window_tps, 2), "tok/s", None, None),
        Figure("tokens_per_s_llama_cpp_python", round(library_tps, 2), "tok/s", None, None),
        Figure("tokens_per_s_ratio", round(ratio, 3), "ratio", ">= 0.97", ratio >= 0.97),
        Figure("ttft_added_ms", round(added_ttft, 1), "ms", "<= 30", added_ttft <= 30),
        Figure("cold_start_to_painted_window_s", round(cold, 3), "s", "<= 0.7", cold <= 0.7),
        Figure(
            "longest_main_thread_stall_ms",
            round(stalls.longest_ms, 1),
            "ms",
            "<= 50",
            stalls.longest_ms <= 50,
        ),
        Figure("ui_cpu_ms_per_1k_tokens", round(statistics.median(ui_cpu), 1), "ms", None, None),
        Figure("stop_until_ended_ms", round(statistics.median(stops), 1), "ms", None, None),
        Figure("ui_peak_rss_mb", round(peak_rss / 2**20, 1), "MB", None, None),
        Figure("ui_imports_engine_libraries", len(leaked), "count", "== 0", not leaked),
    ]
    if chat is not None:
        figures += chat_figures(chat)
    if engine is not None:
        figures += engine_figures(engine)
    if two_models is not None:
        figures += two_models_figures(*two_models)
    if download_mb > 0:
        figures += download_figures(hearth_mb_s, session_mb_s, urllib_mb_s, shaped)
        figures += connection_figures(connections)
    if api:
        figures += api_figures(api)
    if parallel:
        figures += parallel_figures(parallel)
    if getattr(args, "docs", False):
        figures += docs_figures(core, args, say)
    if getattr(args, "tools", False):
        figures += tools_figures()
    if getattr(args, "engines", False):
        from hearth.bench.engines import pytorch_engine_figures

        figures += pytorch_engine_figures(say)
    if getattr(args, "vision", False):
        figures += picture_figures(args)
    return print_figures(figures, args)


def picture_figures(args: argparse.Namespace) -> list[Figure]:
    from hearth.bench.vision import vision_bench

    # A skip is said whatever the output: the JSON alone would not say why it is empty.
    return vision_bench(int(args.rounds), _say_unless(False))


def tools_figures() -> list[Figure]:
    from hearth.bench.tools import measure_tool_rounds, tool_figures

    with tempfile.TemporaryDirectory(prefix="hearth-bench-tools-") as scratch:
        return tool_figures(measure_tool_rounds(Path(scratch)))


def _say_unless(quiet: bool) -> Any:
    def say(text: str) -> None:
        if not quiet:
            print(text, file=sys.stderr, flush=True)

    return say
