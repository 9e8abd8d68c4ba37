"""Class 1: one bad model file must never fail the library, and reading it costs little.

A crafted file sits among the user's models (Hearth's folder or another app's cache that
Hearth reads in place).  What the user must see: that one file as a row with a problem,
every other model listed and usable, and no command slowed to a crawl.
"""

from __future__ import annotations

import io
import json
import os
import struct
from pathlib import Path
from typing import Any

import pytest

from app.models.gguf_header import GGUFError, Limits, read_gguf
from app.models.library import list_models
from tests.conftest import run_hearth
from tests.hostile.crafted import (
    ARRAY,
    STRING,
    gguf_string,
    key,
    many_empty_arrays,
    nested_arrays,
    write_gguf,
)

FLOAT32 = 6
# Windows has no named pipes in the file system (os.mkfifo).
NEEDS_FIFO = pytest.mark.posix_only("Windows has no FIFOs")


def test_arrays_nested_hundreds_deep_are_refused_without_recursion(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "deep.gguf", key("general.deep", nested_arrays(600)))
    with pytest.raises(GGUFError, match="nests lists too deeply"):
        read_gguf(path)


def test_arrays_nested_a_little_are_still_read(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "shallow.gguf", key("general.pair", nested_arrays(3)))
    assert read_gguf(path, check_data=False).metadata["general.pair"] == [[[]]]


def test_a_million_empty_arrays_are_refused_after_a_bounded_walk(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "wide.gguf", key("general.wide", many_empty_arrays(1_000_000)))
    with pytest.raises(GGUFError, match="more nested lists than any model"):
        read_gguf(path)


def test_counts_the_file_cannot_hold_are_refused_before_reading(tmp_path: Path) -> None:
    strings = struct.pack("<IIQ", ARRAY, STRING, 2**40)  # a trillion strings in a tiny file
    path = write_gguf(tmp_path / "claims.gguf", key("tokenizer.ggml.tokens", strings))
    with pytest.raises(GGUFError, match="impossible number"):
        read_gguf(path)
    path = write_gguf(tmp_path / "tensors.gguf", tensor_count=2**40)
    with pytest.raises(GGUFError, match="impossible number"):
        read_gguf(path)


def test_a_real_sized_vocabulary_is_within_the_limits(tmp_path: Path) -> None:
    count = 300_000
    tokens = struct.pack("<IIQ", ARRAY, STRING, count) + gguf_string("tok") * count
    path = write_gguf(tmp_path / "vocab.gguf", key("tokenizer.ggml.tokens", tokens))
    info = read_gguf(path, check_data=False)
    assert info.array_lengths["tokenizer.ggml.tokens"] == count


def test_a_header_is_read_in_one_forward_pass_and_bounded_by_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vocabulary of 300,000 strings is read with a handful of reads (it
    once took a system call per string, and a clock then refused a valid model on a slow
    disk or under a tracer); what bounds a header is what it holds."""
    count = 300_000
    tokens = struct.pack("<IIQ", ARRAY, STRING, count) + gguf_string("tok") * count
    scores = struct.pack("<IIQ", ARRAY, FLOAT32, count) + b"\0\0\0\0" * count
    path = write_gguf(
        tmp_path / "vocab.gguf",
        key("tokenizer.ggml.tokens", tokens),
        key("tokenizer.ggml.scores", scores),
    )
    calls = {"read": 0, "seek": 0}
    opened = Path.open

    class Counted(io.BufferedReader):
        def read(self, size: int | None = -1) -> bytes:
            calls["read"] += 1
            return super().read(size)

        def seek(self, offset: int, whence: int = 0) -> int:
            calls["seek"] += 1
            return super().seek(offset, whence)

    def counted_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        return Counted(io.FileIO(self, "rb")) if self == path else opened(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counted_open)
    info = read_gguf(path, check_data=False)
    assert info.array_lengths["tokenizer.ggml.tokens"] == count
    # A few pieces of a megabyte, and one seek past the scores (1.2 MB, not kept).
    assert calls["read"] <= 8 and calls["seek"] <= 1, calls
    with pytest.raises(GGUFError, match="more strings than any model"):
        read_gguf(path, limits=Limits(strings=5_000))


@NEEDS_FIFO
def test_a_fifo_is_refused_instead_of_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.gguf"
    os.mkfifo(fifo)
    with pytest.raises(GGUFError, match="not a regular file"):
        read_gguf(fifo)


def _plant_bad_files(models: Path, home: Path) -> None:
    write_gguf(models / "deep.gguf", key("general.deep", nested_arrays(600)))
    write_gguf(models / "wide.gguf", key("general.wide", many_empty_arrays(200_000)))
    # the same file in another app's folder that Hearth reads in place
    lm_studio = home / ".lmstudio" / "models" / "evil" / "repo"
    write_gguf(lm_studio / "deep.gguf", key("general.deep", nested_arrays(600)))


def test_bad_files_become_rows_with_a_problem_and_the_rest_is_listed(tmp_path: Path) -> None:
    models, home = tmp_path / "models", tmp_path / "home"
    _plant_bad_files(models, home)
    entries = list_models(models, home=home)
    assert entries[0].source == "starter" and entries[0].usable
    bad = {entry.path.name: entry.problem for entry in entries if not entry.usable}
    assert set(bad) == {"deep.gguf", "wide.gguf"}
    assert all(problem for problem in bad.values())


@pytest.mark.slow
def test_commands_still_work_with_a_bad_file_among_the_models(data_dir: Path) -> None:
    _plant_bad_files(data_dir / "models", Path(os.environ["HOME"]))
    listed = run_hearth("models", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {Path(row["path"]).name: row for row in json.loads(listed.stdout)}
    assert rows["deep.gguf"]["problem"] and rows["wide.gguf"]["problem"]
    chat = run_hearth("chat", "--max-tokens", "4", "--seed", "1", "Hi")
    assert chat.returncode == 0, chat.stderr
    assert chat.stdout.strip()
    assert run_hearth("--self-test").returncode == 0


@pytest.mark.slow
@NEEDS_FIFO
def test_a_fifo_given_as_the_model_is_one_sentence(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.gguf"
    os.mkfifo(fifo)
    result = run_hearth("chat", "--model", str(fifo), "Hi")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "not a regular file" in result.stderr


def test_checkpoint_folders_with_hostile_json_are_rows_not_failures(tmp_path: Path) -> None:
    models = tmp_path / "models"
    deep = models / "org" / "deep-config"
    deep.mkdir(parents=True)
    (deep / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    (deep / "model.safetensors").write_bytes(b"")
    odd = models / "org" / "odd-header"
    odd.mkdir(parents=True)
    (odd / "config.json").write_text('{"architectures": ["LlamaForCausalLM"], "a": Infinity}')
    header = b'{"w": {"dtype": "F16", "shape": ["many", 3], "data_offsets": [0, 0]}}'
    (odd / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header)
    entries = {entry.path.name: entry for entry in list_models(models, home=tmp_path)}
    assert "config.json" in entries["deep-config"].problem
    assert "config.json" in entries["odd-header"].problem
    assert entries[next(iter(entries))].usable  # the starter is still there and usable


@NEEDS_FIFO
def test_fifos_inside_a_checkpoint_folder_do_not_hang_the_library(tmp_path: Path) -> None:
    folder = tmp_path / "models" / "org" / "fifo-model"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "config.json")
    os.mkfifo(folder / "model.safetensors")
    other = tmp_path / "models" / "org" / "fifo-weights"
    other.mkdir(parents=True)
    (other / "config.json").write_text('{"architectures": ["LlamaForCausalLM"]}')
    os.mkfifo(other / "model.safetensors")
    os.mkfifo(other / "tokenizer_config.json")
    entries = {e.path.name: e for e in list_models(tmp_path / "models", home=tmp_path)}
    assert "fifo-model" not in entries or entries["fifo-model"].problem  # and no hang
    assert entries["fifo-weights"].usable and entries["fifo-weights"].parameters is None


def test_a_layer_count_that_is_not_a_number_is_no_number(tmp_path: Path) -> None:
    from app.machine.fit import ShapeError, shape_from_gguf

    float32 = struct.pack("<I", 6)
    path = write_gguf(
        tmp_path / "inf.gguf",
        key("general.architecture", struct.pack("<I", STRING) + gguf_string("llama")),
        key("llama.block_count", float32 + struct.pack("<f", float("inf"))),
    )
    info = read_gguf(path, check_data=False)
    assert info.number("block_count") is None
    with pytest.raises(ShapeError, match="missing"):
        shape_from_gguf(info)


@NEEDS_FIFO
def test_a_state_file_that_is_a_fifo_is_set_aside(tmp_path: Path) -> None:
    from app.settings import Settings

    os.mkfifo(tmp_path / "settings.json")
    settings = Settings(tmp_path / "settings.json")
    assert settings.get("engine.context_length") == 4096
    assert settings.problems
    assert any(tmp_path.glob("settings.json.damaged-*"))
