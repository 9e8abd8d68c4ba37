"""The PyTorch/transformers engine on the CPU with a real checkpoint (the starter model
converted to a Hugging Face folder once per session), through the real worker."""

import json
import os
import sys
import time
from pathlib import Path

import pytest

from app.engine.host import EngineHost
from app.engine.seat import Seat
from backends.engine import EngineError
from backends.transformers_engine import (
    build_load_kwargs,
    generation_kwargs,
)
from tests.conftest import collect, until
from wire import protocol
from wire.model_spec import ModelSpec

pytestmark = pytest.mark.slow
LONG = {"temperature": 0.7, "max_tokens": 400, "ignore_eos": True, "seed": 1}


def hf_spec(folder: Path) -> ModelSpec:
    return ModelSpec(str(folder), n_ctx=2048, threads=2, engine="transformers")


def linked_copy(source: Path, target: Path, skip: tuple[str, ...] = ()) -> Path:
    """A checkpoint folder that shares the weights by symlink (no 500 MB copies)."""
    target.mkdir(parents=True)
    for item in source.iterdir():
        if item.name not in skip:
            (target / item.name).symlink_to(item)
    return target


def test_a_factual_answer_streams_with_stats(client: Seat, hf_checkpoint: Path) -> None:
    job = client.chat(
        hf_spec(hf_checkpoint),
        [{"role": "user", "content": "What is 2+2?"}],
        {"temperature": 0, "max_tokens": 40, "final_text": True},
    )
    text, events = collect(job)
    loaded = next(e for e in events if e["type"] == "loaded")
    assert loaded["device"] == "cpu" and loaded["dtype"] == "float32"
    assert "slow" in loaded["notes"][0]  # the CPU fallback is said out loud
    assert "4" in text or "four" in text.lower(), text
    assert text == next(e["text"] for e in events if e.get("kind") == "final_text")
    assert "\ufffd" not in text and sum(e["type"] == "delta" for e in events) > 3
    stats = next(e for e in events if e["type"] == "stats")
    assert stats["tokens_per_s"] > 0 and stats["generated_tokens"] > 3 and stats["ttft_ms"] > 0
    assert events[-1] == {"type": "done", "id": job.id, "finish_reason": "stop"}


def test_stop_is_honoured_between_tokens(client: Seat, hf_checkpoint: Path) -> None:
    job = client.chat(hf_spec(hf_checkpoint), [{"role": "user", "content": "Tell a story."}], LONG)
    deltas = 0
    for event in job.events(timeout=300):
        if event["type"] == "delta":
            deltas += 1
            if deltas == 3:
                job.cancel()
    assert job.final is not None and job.final["finish_reason"] == "cancelled"
    assert not job.final.get("forced")  # stopped between tokens, not killed
    assert deltas < LONG["max_tokens"]


def test_stop_during_the_first_forward_pass_of_a_long_prompt(
    client: Seat, hf_checkpoint: Path
) -> None:
    spec = hf_spec(hf_checkpoint)
    assert client.load(spec).wait(300) is not None
    words = " ".join(f"item{i}" for i in range(300))  # about 1,200 tokens of prompt
    job = client.chat(spec, [{"role": "user", "content": f"Repeat: {words}"}], LONG)
    until(lambda: job.worker is not None, what="the request reached the worker")
    job.cancel()  # on the worker: while its long prompt is read, or just before
    _text, events = collect(job)
    assert events[-1]["finish_reason"] == "cancelled"
    # Honoured as soon as the first token was out (or before the prompt started, when the
    # worker saw the cancel first: then there are no stats at all).
    stats = next((e for e in events if e["type"] == "stats"), {"generated_tokens": 0})
    assert stats["generated_tokens"] <= 2


def test_pickle_only_weights_are_refused_unless_allowed(
    client: Seat, hf_checkpoint: Path, tmp_path: Path
) -> None:
    folder = linked_copy(hf_checkpoint, tmp_path / "pickled", skip=("model.safetensors",))
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04 not really a pickle")
    final = client.load(hf_spec(folder)).wait(300)
    assert final is not None and final["kind"] == protocol.ERR_PICKLE_REFUSED
    assert "can run code" in final["message"]
    assert (
        build_load_kwargs({"allow_pickle": True}, False, False, False)["use_safetensors"] is False
    )
    assert build_load_kwargs({}, False, False, False)["use_safetensors"] is True


def test_remote_code_needs_consent(client: Seat, hf_checkpoint: Path, tmp_path: Path) -> None:
    folder = linked_copy(hf_checkpoint, tmp_path / "custom", skip=("config.json",))
    config = json.loads((hf_checkpoint / "config.json").read_text())
    config["auto_map"] = {"AutoModelForCausalLM": "modeling_custom.CustomForCausalLM"}
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "modeling_custom.py").write_text("print('this would run')\n")
    final = client.load(hf_spec(folder)).wait(300)
    assert final is not None and final["kind"] == protocol.ERR_NEEDS_REMOTE_CODE
    assert "modeling_custom.py" in final["message"] and "consent" in final["message"]
    assert build_load_kwargs({"trust_remote_code": True}, False, False, False)["trust_remote_code"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("no_tokenizer", "no tokenizer files"),
        ("unknown_architecture", "does not support"),
    ],
)
def test_broken_checkpoints_say_what_is_wrong(
    client: Seat, hf_checkpoint: Path, tmp_path: Path, change: str, words: str
) -> None:
    if change == "no_tokenizer":
        folder = linked_copy(hf_checkpoint, tmp_path / "x", skip=("tokenizer.json",))
    else:
        folder = linked_copy(hf_checkpoint, tmp_path / "x", skip=("config.json",))
        config = json.loads((hf_checkpoint / "config.json").read_text())
        config["model_type"] = "hearth-imaginary"
        (folder / "config.json").write_text(json.dumps(config))
    final = client.load(hf_spec(folder)).wait(300)
    assert final is not None and final["type"] == "error" and words in final["message"]


def test_a_checkpoint_without_chat_template_uses_the_fallback(
    client: Seat, hf_checkpoint: Path, tmp_path: Path
) -> None:
    folder = linked_copy(
        hf_checkpoint, tmp_path / "plain", skip=("chat_template.jinja", "tokenizer_config.json")
    )
    settings = json.loads((hf_checkpoint / "tokenizer_config.json").read_text())
    settings.pop("chat_template", None)
    (folder / "tokenizer_config.json").write_text(json.dumps(settings))
    _text, events = collect(
        client.chat(
            hf_spec(folder),
            [{"role": "user", "content": "Hi"}],
            {"max_tokens": 12, "temperature": 0},
        )
    )
    loaded = next(e for e in events if e["type"] == "loaded")
    assert loaded["chat_template"] == "fallback" and events[-1]["type"] == "done"


@pytest.mark.linux_only(
    "the worker's memory cap (RLIMIT_AS) is Linux's: Windows has none, macOS ignores it"
)
def test_out_of_memory_ends_the_worker_and_the_app_goes_on(
    data_dir: Path, hf_checkpoint: Path, monkeypatch: pytest.MonkeyPatch, expect_error_logs: None
) -> None:
    monkeypatch.setenv("HEARTH_WORKER_MEMORY_LIMIT", str(1_300_000_000))  # a real limit
    client = Seat(EngineHost(data_dir / "logs"))
    try:
        final = client.load(hf_spec(hf_checkpoint)).wait(300)
        assert final is not None and final["kind"] == protocol.ERR_OUT_OF_MEMORY
        assert "ran out of memory" in final["message"]
        deadline = time.monotonic() + 120
        while client.worker_pid is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert client.worker_pid is None  # the worker ended; memory freed for certain
        log = (data_dir / "logs" / "worker.log").read_text()
        assert log.count("worker started") == 1  # and nothing retried by itself
        monkeypatch.delenv("HEARTH_WORKER_MEMORY_LIMIT")
        text, _ = collect(
            client.chat(
                hf_spec(hf_checkpoint), [{"role": "user", "content": "Hi"}], {"max_tokens": 6}
            )
        )
        assert text
    finally:
        client.host.close()


def test_cuda_only_options_produce_the_right_arguments() -> None:
    cuda_bf16 = build_load_kwargs({}, cuda=True, bf16=True, flash_attn_installed=False)
    assert cuda_bf16 == {
        "dtype": "bfloat16",
        "use_safetensors": True,
        "trust_remote_code": False,
        "attn_implementation": "sdpa",
        "device_map": "auto",
    }
    assert (
        build_load_kwargs({}, cuda=True, bf16=False, flash_attn_installed=False)["dtype"]
        == "float16"
    )
    assert build_load_kwargs({}, cuda=False, bf16=False, flash_attn_installed=False) == {
        "dtype": "float32",
        "use_safetensors": True,
        "trust_remote_code": False,
        "attn_implementation": "sdpa",
    }
    assert build_load_kwargs({"dtype": "float16"}, True, True, False)["dtype"] == "float16"
    flash = build_load_kwargs({"attention": "flash_attention_2"}, True, True, True)
    assert flash["attn_implementation"] == "flash_attention_2"
    with pytest.raises(EngineError, match="flash-attn"):
        build_load_kwargs({"attention": "flash_attention_2"}, True, True, False)
    with pytest.raises(EngineError, match="NVIDIA GPU"):
        build_load_kwargs({"quantization": "4bit"}, False, False, False)
    if __import__("importlib").util.find_spec("bitsandbytes") is None:
        with pytest.raises(EngineError, match="bitsandbytes"):
            build_load_kwargs({"quantization": "4bit"}, True, True, False)
    assert generation_kwargs({"static_cache": True}, cuda=True)["cache_implementation"] == "static"
    assert generation_kwargs({"static_cache": True}, cuda=False) == {}


def test_hearth_chat_with_a_checkpoint_path(hf_checkpoint: Path) -> None:
    import subprocess

    from tests.conftest import HEARTH, REPO

    result = subprocess.run(
        [
            *HEARTH,
            "chat",
            "--model",
            str(hf_checkpoint),
            "--temperature",
            "0",
            "--max-tokens",
            "30",
            "What is 2+2?",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        check=False,
        env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    assert "4" in result.stdout and "tok/s" in result.stderr
    assert sys.executable


def test_stop_strings_and_seeds_serve_their_own_request(client: Seat, hf_checkpoint: Path) -> None:
    """A request's stop strings end its reply (never shown, even split across tokens), and
    a seed does not carry over: an unseeded request after a seeded one is not its copy."""
    spec = hf_spec(hf_checkpoint)
    question = [{"role": "user", "content": "Name the largest planet in the solar system."}]
    whole, _ = collect(client.chat(spec, question, {"temperature": 0, "max_tokens": 40}))
    words = whole.split()
    assert len(words) > 6, whole
    stop = words[len(words) // 2]
    cut, events = collect(
        client.chat(spec, question, {"temperature": 0, "max_tokens": 40, "stop": [stop]})
    )
    assert cut == whole[: whole.index(stop)]
    assert events[-1]["finish_reason"] == "stop"
    sea = [{"role": "user", "content": "Write one sentence about the sea."}]
    sampled = {"temperature": 1.0, "top_p": 1.0, "max_tokens": 24}

    def text(**seed: int) -> str:
        return collect(client.chat(spec, sea, {**sampled, **seed}))[0]

    # If a seed left torch's generator where its reply ended, both unseeded replies would
    # start from that same state and be equal.
    seeded, first, again, second = text(seed=7), text(), text(seed=7), text()
    assert again == seeded
    assert first != second


def test_penalties_bias_and_json_mode_as_the_api_asks(client: Seat, hf_checkpoint: Path) -> None:
    """OpenAI's penalties and logit_bias change the reply as in llama.cpp; JSON output,
    which needs a grammar, is refused in words; the stop string that ended a reply is
    named (Anthropic's stop_sequence)."""
    spec = hf_spec(hf_checkpoint)
    counting = [{"role": "user", "content": "List the numbers from 1 to 20, separated by commas."}]
    greedy = {"temperature": 0, "max_tokens": 60}
    plain, _ = collect(client.chat(spec, counting, greedy))
    assert plain.count(",") >= 10, plain
    penalised, _ = collect(client.chat(spec, counting, {**greedy, "frequency_penalty": 2.0}))
    assert penalised.count(",") < plain.count(",") / 2, penalised
    zebra = 29106  # " zebra" in the starter model's vocabulary
    biased, _ = collect(client.chat(spec, counting, {**greedy, "logit_bias": {str(zebra): 100}}))
    assert biased.count("zebra") >= 5, biased
    stopped, events = collect(client.chat(spec, counting, {**greedy, "stop": ["4", "never"]}))
    assert stopped == plain[: plain.index("4")]
    assert {"type": "notice", "kind": "stop_sequence", "text": "4"}.items() <= next(
        e for e in events if e.get("kind") == "stop_sequence"
    ).items()
    _, refused = collect(
        client.chat(spec, counting, {**greedy, "response_format": {"type": "json_object"}})
    )
    assert refused[-1]["type"] == protocol.ERROR and refused[-1]["kind"] == protocol.ERR_BAD_REQUEST
    assert "needs a GGUF model" in refused[-1]["message"]
