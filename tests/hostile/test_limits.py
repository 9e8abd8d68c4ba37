"""Class 5: limits enforced where data enters, with an answer that reaches the person who
asked (a prompt too long for the worker's pipe, a runaway line on the pipe itself)."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HEARTH, REPO, kill_hard
from wire import protocol


def test_a_runaway_line_is_skipped_and_the_next_message_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(protocol, "MAX_LINE_BYTES", 1000)
    stream = io.BytesIO(b"x" * 5000 + b"\n" + protocol.encode({"type": "hello", "id": 1}))
    with pytest.raises(protocol.ProtocolError, match="skipped"):
        protocol.read_message(stream)
    assert protocol.read_message(stream) == {"type": "hello", "id": 1}


@pytest.mark.slow
def test_a_prompt_too_long_for_the_engine_is_one_sentence_not_a_hang(data_dir: Path) -> None:
    prompt = b"word " * (14 * 1024 * 1024)  # 70 MB
    result = subprocess.run(
        [*HEARTH, "chat", "--json", "-"],
        input=prompt,
        capture_output=True,
        cwd=REPO,
        timeout=600,
        check=False,
    )
    assert result.returncode == 1
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[-1]["type"] == "error" and "too long to send" in events[-1]["message"]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_a_temperature_that_is_not_a_number_is_refused(tmp_path: Path, value: float) -> None:
    from app.settings import Settings

    settings = Settings(tmp_path / "settings.json")
    with pytest.raises(ValueError, match="must be a number"):
        settings.set("sampling.temperature", value)
    assert settings.get("sampling.temperature") == 0.7


@pytest.mark.slow
def test_an_impossible_layer_count_is_refused_before_the_engine_sees_it(
    data_dir: Path, tmp_path: Path
) -> None:
    """llama.cpp aborts the whole worker on a block count of 2^32-1, at every try."""
    from tests.conftest import run_hearth
    from tests.gguf_files import build_gguf

    crafted = build_gguf(tmp_path / "four-billion-layers.gguf", block_count=2**32 - 1)
    result = run_hearth("chat", "--model", str(crafted), "Hi")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "layer count is impossible (4294967295)" in result.stderr
    assert "request load" not in _worker_log(data_dir)


@pytest.mark.slow
def test_a_context_that_cannot_fit_is_refused_with_the_numbers(data_dir: Path) -> None:
    from tests.conftest import run_hearth

    result = run_hearth("chat", "--ctx", "1048576", "Hi")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "with a context of 1048576 tokens needs about" in result.stderr
    assert "GB can be used on this computer" in result.stderr
    assert "request load" not in _worker_log(data_dir)


def _worker_log(data_dir: Path) -> str:
    path = data_dir / "logs" / "worker.log"
    return path.read_text() if path.exists() else ""


@pytest.mark.slow
def test_an_engine_that_dies_before_answering_does_not_invite_a_retry(
    client: Any, spec: Any, expect_error_logs: None
) -> None:
    """A model that crashes the engine while loading would crash it again: the message
    says what may be wrong instead of "send a message to start the engine again"."""
    import time

    job = client.chat(spec, [{"role": "user", "content": "Hi"}], {"max_tokens": 4})
    deadline = time.monotonic() + 300
    while client.worker_pid is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    kill_hard(client.worker_pid)
    assert job.wait(300)
    assert job.final is not None and job.final["kind"] == protocol.ERR_WORKER_DIED
    assert "before the model answered" in job.final["message"]
    assert "send a message to start" not in job.final["message"]
