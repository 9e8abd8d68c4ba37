"""Telling a usable GGUF from a broken one without loading weights."""

from pathlib import Path

import gguf
import pytest

from app.models.gguf_header import GGML_BLOCKS, GGUFError, read_gguf
from app.models.library import describe
from tests.gguf_files import build_gguf


def test_block_sizes_agree_with_the_gguf_package() -> None:
    for kind, (block, size) in GGML_BLOCKS.items():
        expected = gguf.GGML_QUANT_SIZES.get(gguf.GGMLQuantizationType(kind))
        assert expected == (block, size), kind


def test_reads_facts_from_a_file_built_with_the_gguf_package(tmp_path: Path) -> None:
    path = build_gguf(tmp_path / "tiny.gguf", template="{{ messages }}")
    info = read_gguf(path)
    assert info.architecture == "llama"
    assert info.name == "tiny test model"
    assert info.context_length == 1024
    assert info.tensor_count == 4
    assert info.layer_bytes == {0: 1024, 1: 1024} and info.other_bytes == 8 * 16 * 4 + 4 * 16 * 2
    assert info.parameters == 8 * 16 + 2 * 16 * 16 + 4 * 16
    assert info.has_chat_template
    assert info.data_size >= 8 * 16 * 4 + 4 * 16 * 2


def test_the_starter_model_is_valid(starter: Path) -> None:
    entry = describe(starter, "starter")
    assert entry.usable, entry.problem
    assert entry.architecture == "llama" and entry.quantization == "Q4_1"
    assert entry.context_length == 8192 and entry.has_chat_template


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.gguf"
    path.write_bytes(b"")
    with pytest.raises(GGUFError, match="empty"):
        read_gguf(path)


def test_wrong_magic(tmp_path: Path) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"PK\x03\x04" + b"\0" * 200)
    with pytest.raises(GGUFError, match=r"not a GGUF"):
        read_gguf(path)


@pytest.mark.parametrize("keep", [10, 2000, 0.5, 0.999])
def test_truncated_files_are_caught_in_header_or_data(
    tmp_path: Path, starter: Path, keep: float
) -> None:
    data = starter.read_bytes()
    cut = int(len(data) * keep) if isinstance(keep, float) else keep
    path = tmp_path / "truncated.gguf"
    path.write_bytes(data[:cut])
    with pytest.raises(GGUFError, match=r"incomplete download|truncated"):
        read_gguf(path)


def test_a_broken_file_becomes_an_entry_with_a_problem_not_an_exception(tmp_path: Path) -> None:
    path = tmp_path / "broken.gguf"
    path.write_bytes(b"GGUF\x03\x00\x00\x00")
    entry = describe(path, "models_dir")
    assert not entry.usable and "incomplete download" in entry.problem
