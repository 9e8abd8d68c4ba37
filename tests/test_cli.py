"""The command line, run as a user runs it: a separate process."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import no_gpu_here, run_hearth

pytestmark = pytest.mark.slow


def hearth(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_hearth(*args, stdin=stdin)


def assert_one_human_line(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0]


def test_chat_streams_the_reply_to_stdout(data_dir: Path) -> None:
    result = hearth(
        "chat", "--temperature", "0", "--max-tokens", "40", "--seed", "1", "What is 2+2?"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() and "\ufffd" not in result.stdout
    assert "tok/s" in result.stderr
    settings = json.loads((data_dir / "settings.json").read_text())
    assert settings["values"]["models.default"].endswith(".gguf")  # remembered as last used


def test_chat_json_events_and_system_prompt_from_stdin() -> None:
    result = hearth(
        "chat", "--json", "--max-tokens", "12", "--system", "Be brief.", "-", stdin="Say hello."
    )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert "delta" in kinds and kinds[-2:] == ["stats", "done"]
    assert events[-2]["generated_tokens"] > 0


def test_models_list(starter: Path) -> None:
    result = hearth("models", "list", "--json")
    assert result.returncode == 0
    models = json.loads(result.stdout)
    assert models[0]["path"] == str(starter)
    assert {
        "name",
        "path",
        "format",
        "architecture",
        "quantization",
        "size_bytes",
        "source",
    } <= set(models[0])
    plain = hearth("models", "list")
    assert "SmolLM2-135M-Instruct" in plain.stdout and "starter" in plain.stdout


def test_a_name_the_output_encoding_lacks_ends_no_command(data_dir: Path) -> None:
    """As a pipe on Windows is written in its ANSI code page: a model named in Chinese is
    listed (with "?" for what the code page lacks) and the command succeeds."""
    import os

    from tests.gguf_files import build_gguf

    build_gguf(data_dir / "models" / "中文模型-Q4_K_M.gguf")
    result = run_hearth("models", "list", env=dict(os.environ, PYTHONIOENCODING="cp1252"))
    assert result.returncode == 0, result.stderr
    assert "SmolLM2-135M-Instruct" in result.stdout and "-Q4_K_M" in result.stdout


def test_unknown_model_is_one_sentence() -> None:
    assert_one_human_line(hearth("chat", "--model", "no-such-model", "hi"), "No model called")


def test_a_file_that_is_not_a_model_is_one_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "notes.gguf"
    bad.write_text("shopping list")
    assert_one_human_line(hearth("chat", "--model", str(bad), "hi"), "not a GGUF model file")


def test_out_of_range_options_are_one_sentence() -> None:
    assert_one_human_line(hearth("chat", "--top-p", "3", "hi"), "--top-p")


def test_an_unusable_data_dir_is_one_sentence(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert_one_human_line(
        hearth("--data-dir", str(blocker / "sub"), "models", "list"), "data folder"
    )


def test_self_test_passes() -> None:
    result = hearth("--self-test")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "passed" in result.stdout


@pytest.mark.timeout(3000)
def test_bench_prints_each_figure_with_its_budget_as_json() -> None:
    # The whole bench on a shared CI machine under load can take many minutes: the test
    # waits for its figures, and a run that hangs prints every thread's stack instead.
    result = run_hearth(
        "bench",
        "--json",
        "--tokens",
        "24",
        "--rounds",
        "1",
        "--download-mb",
        "8",
        "--chat-tokens",
        "3000",
        "--tools",
        env={**os.environ, "HEARTH_BENCH_DEADLINE_S": "2400"},
        timeout=2700,
    )
    assert result.returncode == 0, result.stderr
    figures = {f["name"]: f for f in json.loads(result.stdout)}
    for name in (
        "tokens_per_s_ratio",
        "ttft_added_ms",
        "cold_start_to_painted_window_s",
        "longest_main_thread_stall_ms",
        "ui_peak_rss_mb",
        "ui_imports_engine_libraries",
        "download_ratio",
        "chat_ui_cost_growth",
        "chat_longest_stall_ms",
        "open_2000_messages_ms",
        "switch_conversation_ms",
        "stop_with_esc_ms",
        "stop_with_button_ms",
        "stop_esc_later_than_button_ms",
        "tool_call_to_result_ms",
    ):
        assert set(figures[name]) == {"name", "value", "unit", "budget", "ok"}
    assert figures["tokens_per_s_ratio"]["value"] > 0  # measured; budgets are judged by bench
    assert figures["stop_with_esc_ms"]["value"] > 0  # Esc did stop the replies
    assert figures["tool_call_to_result_ms"]["value"] > 0  # the calls ran and were timed
    assert figures["ui_imports_engine_libraries"] == {
        "name": "ui_imports_engine_libraries",
        "value": 0,
        "unit": "count",
        "budget": "== 0",
        "ok": True,
    }


def test_the_picture_bench_says_what_it_needs_when_it_lacks_it() -> None:
    """Without llama-mtmd-cli (make bench-tools) the picture figures are left out, in
    words that say how to get them, and the bench still prints its JSON."""
    result = run_hearth(
        "bench", "--vision-only", "--json", "--rounds", "1", unset=("HEARTH_LLAMA_MTMD_CLI",)
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []
    assert "llama-mtmd-cli (make bench-tools" in result.stderr


def test_sysinfo_json_has_the_promised_fields() -> None:
    result = hearth("sysinfo", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["cpu"]["physical_cores"] >= 1 and data["cpu"]["logical_cores"] >= 1
    assert isinstance(data["cpu"]["features"], list) and isinstance(data["gpus"], list)
    assert data["memory"]["total_bytes"] > 0 and data["memory"]["available_bytes"] > 0
    assert "CPU:" in hearth("sysinfo").stdout


@no_gpu_here
def test_fit_json_for_the_starter_model() -> None:
    result = hearth("fit", "SmolLM2-135M-Instruct.Q4_1", "--ctx", "4096", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    # As Hearth would load it: four replies at once (the setting), a KV cache each.
    assert data["weights_bytes"] == 96_576_768 and data["kv_cache_bytes"] == 4 * 94_371_840
    assert (data["slots"], data["n_ctx"]) == (4, 4096)
    assert (
        data["total_bytes"]
        == data["weights_bytes"] + data["kv_cache_bytes"] + data["overhead_bytes"]
    )
    assert data["verdict"] == "cpu"
    one = json.loads(
        hearth("fit", "SmolLM2-135M-Instruct.Q4_1", "--parallel", "1", "--json").stdout
    )
    assert one["kv_cache_bytes"] == 94_371_840
    plain = hearth("fit", "SmolLM2-135M-Instruct.Q4_1")
    assert "CPU and RAM" in plain.stdout and "KV cache" in plain.stdout
    assert "4 replies at once" in plain.stdout
    assert_one_human_line(hearth("fit", "nothing-like-this"), "No model called")
