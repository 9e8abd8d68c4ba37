"""The figures ``hearth bench`` prints: one per measurement, with its budget where it has
one (docs/DESIGN budgets), as a line each or, with ``--json``, a list of
``{"name", "value", "unit", "budget", "ok"}``."""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hearth.bench.download import Connections


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    budget: str | None
    ok: bool | None


def chat_figures(chat: Any) -> list[Figure]:
    """The chat window streaming a long Markdown reply, and a long conversation."""
    return [
        Figure("chat_ui_ms_per_1k_tokens_first", round(chat.first_ms_per_1k, 1), "ms", None, None),
        Figure("chat_ui_ms_per_1k_tokens_last", round(chat.last_ms_per_1k, 1), "ms", None, None),
        Figure("chat_ui_cost_growth", round(chat.growth, 3), "ratio", "<= 1.5", chat.growth <= 1.5),
        Figure(
            "chat_longest_stall_ms",
            round(chat.longest_stall_ms, 1),
            "ms",
            "<= 50",
            chat.longest_stall_ms <= 50,
        ),
        Figure(
            "open_2000_messages_ms",
            round(chat.open_2000_ms, 1),
            "ms",
            "<= 300",
            chat.open_2000_ms <= 300,
        ),
        Figure(
            "switch_conversation_ms",
            round(chat.switch_ms, 1),
            "ms",
            "<= 100",
            chat.switch_ms <= 100,
        ),
        Figure("stop_with_esc_ms", round(chat.esc_stop_ms, 1), "ms", None, None),
        Figure("stop_with_button_ms", round(chat.button_stop_ms, 1), "ms", None, None),
        Figure(
            "stop_esc_later_than_button_ms",
            round(chat.esc_extra_ms, 1),
            "ms",
            "<= 100",
            chat.esc_extra_ms <= 100,
        ),
    ]


def download_figures(
    hearth_mb_s: float, session_mb_s: float, urllib_mb_s: float, shaped: tuple[float, float, float]
) -> list[Figure]:
    """A download on loopback against a plain GET of the same file."""
    ratio_dl = hearth_mb_s / session_mb_s
    return [
        Figure("download_mb_s_hearth", round(hearth_mb_s, 1), "MB/s", None, None),
        Figure("download_mb_s_plain_get_hub_client", round(session_mb_s, 1), "MB/s", None, None),
        Figure("download_mb_s_plain_get_urllib", round(urllib_mb_s, 1), "MB/s", None, None),
        Figure("download_ratio", round(ratio_dl, 3), "ratio", ">= 0.9", ratio_dl >= 0.9),
        Figure(
            "download_ratio_vs_urllib", round(hearth_mb_s / urllib_mb_s, 3), "ratio", None, None
        ),
        Figure("download_ratio_at_100_mb_s", round(shaped[2] / shaped[0], 3), "ratio", None, None),
    ]


def connection_figures(result: Connections) -> list[Figure]:
    """One file over Hearth's connections against one connection, each capped by the
    server: the issue's budget is three times faster, in flat memory."""
    return [
        Figure("download_mb_s_one_connection", round(result.one_mb_s, 2), "MB/s", None, None),
        Figure(
            f"download_mb_s_{result.connections}_connections",
            round(result.parallel_mb_s, 2),
            "MB/s",
            None,
            None,
        ),
        Figure(
            "download_parallel_ratio",
            round(result.ratio, 2),
            "ratio",
            ">= 3",
            result.ratio >= 3,
        ),
        Figure(
            "download_peak_memory_mb",
            round(result.peak_memory_mb, 1),
            "MB",
            "<= 64",
            result.peak_memory_mb <= 64,
        ),
    ]


def api_figures(api: dict[str, float]) -> list[Figure]:
    """``hearth serve`` against the engine directly, a library of two models, and the
    remote engine against the ``openai`` client alone."""
    serve_ratio = api["serve"] / api["engine_client"]
    added_ms = (api["serve_ttft_s"] - api["engine_client_ttft_s"]) * 1000
    return [
        Figure("tokens_per_s_hearth_serve", round(api["serve"], 2), "tok/s", None, None),
        Figure("tokens_per_s_engine_client", round(api["engine_client"], 2), "tok/s", None, None),
        Figure("serve_ratio", round(serve_ratio, 3), "ratio", ">= 0.95", serve_ratio >= 0.95),
        Figure("serve_ttft_added_ms", round(added_ms, 1), "ms", "<= 30", added_ms <= 30),
        Figure(
            "serve_first_request_s",
            round(api["first_request_s"], 3),
            "s",
            "<= 1.5",
            api["first_request_s"] <= 1.5,
        ),
        Figure(
            "serve_switch_added_ttft_ms",
            round((api["switching_ttft_s"] - api["same_model_ttft_s"]) * 1000, 1),
            "ms",
            "<= 50",
            (api["switching_ttft_s"] - api["same_model_ttft_s"]) * 1000 <= 50,
        ),
        Figure("tokens_per_s_remote_engine", round(api["remote_engine"], 2), "tok/s", None, None),
        Figure("tokens_per_s_openai_client", round(api["openai_client"], 2), "tok/s", None, None),
        Figure(
            "remote_ratio",
            round(api["remote_engine"] / api["openai_client"], 3),
            "ratio",
            None,
            None,
        ),
    ]


def two_models_figures(shared: list[float], unshared: list[float]) -> list[Figure]:
    """Two models answering at once: the engine host sharing the cores (a core each on
    two cores) against each worker taking every core."""
    ratio = statistics.median(a / b for a, b in zip(shared, unshared, strict=True))
    return [
        Figure(
            "two_models_tokens_per_s_shared",
            round(statistics.median(shared), 2),
            "tok/s",
            None,
            None,
        ),
        Figure(
            "two_models_tokens_per_s_unshared",
            round(statistics.median(unshared), 2),
            "tok/s",
            None,
            None,
        ),
        Figure("two_models_shared_vs_unshared", round(ratio, 3), "ratio", ">= 1.0", ratio >= 1.0),
    ]


def engine_figures(engine: Any) -> list[Figure]:
    """The llama.cpp engine against llama-bench, and prompt-lookup decoding."""
    ratio = engine.ratio
    tg = ratio(engine.tokens_per_s_hearth, engine.tokens_per_s_llama_bench)
    pp = ratio(engine.prompt_per_s_hearth, engine.prompt_per_s_llama_bench)
    lookup = ratio(engine.lookup_with, engine.lookup_without)
    unrelated = ratio(engine.unrelated_with, engine.unrelated_without)
    median = statistics.median
    figures = [
        Figure(
            "tokens_per_s_engine", round(median(engine.tokens_per_s_hearth), 2), "tok/s", None, None
        ),
        Figure(
            "tokens_per_s_llama_bench",
            round(median(engine.tokens_per_s_llama_bench), 2),
            "tok/s",
            None,
            None,
        ),
        Figure("tokens_per_s_vs_llama_bench", round(tg, 3), "ratio", ">= 0.95", tg >= 0.95),
        Figure(
            "prompt_per_s_engine", round(median(engine.prompt_per_s_hearth), 1), "tok/s", None, None
        ),
        Figure(
            "prompt_per_s_llama_bench",
            round(median(engine.prompt_per_s_llama_bench), 1),
            "tok/s",
            None,
            None,
        ),
        Figure("prompt_vs_llama_bench", round(pp, 3), "ratio", ">= 0.95", pp >= 0.95),
        Figure("prompt_lookup_speedup", round(lookup, 3), "ratio", ">= 1.5", lookup >= 1.5),
        Figure(
            "prompt_lookup_unrelated", round(unrelated, 3), "ratio", ">= 0.95", unrelated >= 0.95
        ),
    ]
    if engine.installer:  # the installer's CPU build against the dev build, same worker path
        installer = ratio(engine.installer, engine.dev)
        unit = f"ratio ({engine.installer_runtime})"  # which build an installer chose here
        figures.append(
            Figure("installer_cpu_vs_dev", round(installer, 3), unit, ">= 0.97", installer >= 0.97)
        )
    if engine.avx512_tg:  # where it is faster, installers choose it (docs/RUNTIMES.md)
        figures += [
            Figure(
                "cpu_avx512_vs_avx2_tokens",
                round(ratio(engine.avx512_tg, engine.avx2_tg), 3),
                "ratio",
                None,
                None,
            ),
            Figure(
                "cpu_avx512_vs_avx2_prompt",
                round(ratio(engine.avx512_pp, engine.avx2_pp), 3),
                "ratio",
                None,
                None,
            ),
        ]
    return figures


def print_figures(figures: list[Figure], args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps([asdict(f) for f in figures], indent=2))
    else:
        for f in figures:
            verdict = "" if f.ok is None else ("  ok" if f.ok else "  OVER BUDGET")
            budget = f"  (budget {f.budget})" if f.budget else ""
            print(f"{f.name:<34} {f.value:>10} {f.unit:<6}{budget}{verdict}")
    return 0


def parallel_figures(found: dict[str, float]) -> list[Figure]:
    """Four streams at once through ``hearth serve`` and ``llama-server -np 4``."""
    versus = found["hearth_four"] / found["llama_four"]
    gain = found["hearth_four"] / found["hearth_one"]
    server_gain = found["llama_four"] / found["llama_one"]
    spread, server_spread = found["hearth_spread"], found["llama_spread"]
    single = found["single_slots"] / found["single_plain"]
    back = found["switch_back"]
    return [
        Figure("parallel_tokens_per_s", round(found["hearth_four"], 2), "tok/s", None, None),
        Figure(
            "parallel_llama_server_tokens_per_s", round(found["llama_four"], 2), "tok/s", None, None
        ),
        Figure("parallel_vs_llama_server", round(versus, 3), "ratio", ">= 0.95", versus >= 0.95),
        Figure(
            "parallel_gain",
            round(gain, 3),
            "ratio",
            f">= {server_gain:.3f} (llama-server's)",
            gain >= server_gain,
        ),
        Figure("parallel_gain_llama_server", round(server_gain, 3), "ratio", None, None),
        Figure(
            "parallel_first_token_spread",
            round(spread, 3),
            "ratio",
            f"<= {1.2 * server_spread:.3f} (1.2 x llama-server's)",
            spread <= 1.2 * server_spread,
        ),
        Figure(
            "parallel_first_token_spread_llama_server", round(server_spread, 3), "ratio", None, None
        ),
        Figure("single_stream_ratio", round(single, 3), "ratio", ">= 0.97", single >= 0.97),
        Figure("switch_back_ttft", round(back, 3), "ratio", "<= 0.1", back <= 0.1),
    ]
