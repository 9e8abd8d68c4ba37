"""Grouping a repository's files into what a person chooses between."""

import pytest

from app.hub.recommend import recommend
from app.hub.repo_files import (
    RepoFile,
    UnsafePath,
    group_files,
    quantization_of,
    safe_relative_path,
)


@pytest.mark.parametrize(
    ("name", "quant"),
    [
        ("qwen2.5-1.5b-instruct-q4_k_m.gguf", "Q4_K_M"),
        ("Llama-3.2-1B-Instruct-Q8_0.gguf", "Q8_0"),
        ("model-IQ2_XXS.gguf", "IQ2_XXS"),
        ("Meta-Llama-3.1-70B-Instruct-Q4_K_M-00001-of-00002.gguf", "Q4_K_M"),
        ("model-f16.gguf", "F16"),
        ("x-bf16.gguf", "BF16"),
        ("SmolLM2-135M-Instruct.Q4_1.gguf", "Q4_1"),
        ("model-UD-Q4_K_XL.gguf", "Q4_K_XL"),
        ("Qwen2-7B.gguf", ""),
    ],
)
def test_quantization_from_file_names(name: str, quant: str) -> None:
    assert quantization_of(name) == quant


def test_gguf_repo_one_row_per_quantization_with_shards_grouped() -> None:
    files = [
        RepoFile("big-Q4_K_M-00001-of-00002.gguf", 5_000),
        RepoFile("big-Q4_K_M-00002-of-00002.gguf", 3_000),
        RepoFile("big-Q8_0.gguf", 9_000),
        RepoFile("mmproj-big-f16.gguf", 500),
        RepoFile("README.md", 10),
    ]
    offers = group_files(files)
    labels = [o.label for o in offers]
    assert labels == ["Q4_K_M", "Q8_0", "mmproj-big-f16.gguf (vision projector)"]
    # A vision model's files come with its projector: one unit to download.
    assert offers[0].size == 8_500 and len(offers[0].files) == 3
    assert offers[0].model_size == 8_000 and offers[0].projector == files[3]
    assert offers[1].files == [files[2], files[3]]
    assert offers[2].is_projector and offers[2].projector is None
    assert recommend(offers) is offers[0]


def test_a_vision_model_comes_with_its_full_precision_projector() -> None:
    files = [
        RepoFile("gemma-3-4b-it-Q4_K_M.gguf", 2_500),
        RepoFile("mmproj-model-Q8_0.gguf", 600),
        RepoFile("mmproj-model-f16.gguf", 850),
        RepoFile("mmproj-model-f32.gguf", 1_700),
    ]
    model = group_files(files)[0]
    assert model.label == "Q4_K_M" and model.projector == files[2]
    plain = group_files([RepoFile("qwen-Q4_K_M.gguf", 2_000)])[0]
    assert plain.projector is None and plain.files == [RepoFile("qwen-Q4_K_M.gguf", 2_000)]


def test_transformers_checkpoint_is_one_unit() -> None:
    files = [
        RepoFile(n, 100)
        for n in (
            "config.json",
            "generation_config.json",
            "model-00001-of-00002.safetensors",
            "model-00002-of-00002.safetensors",
            "model.safetensors.index.json",
            "tokenizer.json",
            "tokenizer_config.json",
            "README.md",
            ".gitattributes",
        )
    ]
    offers = group_files(files)
    assert [o.kind for o in offers] == ["checkpoint"]
    assert {f.path for f in offers[0].files} == {
        "config.json",
        "generation_config.json",
        "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors",
        "model.safetensors.index.json",
        "tokenizer.json",
        "tokenizer_config.json",
    }


def test_pickle_only_checkpoint_carries_a_warning() -> None:
    offers = group_files([RepoFile("config.json", 1), RepoFile("pytorch_model.bin", 5)])
    assert offers[0].kind == "pickle-checkpoint" and "pickle" in offers[0].warning


@pytest.mark.parametrize(
    "name", ["../x", "a/../../x", "/abs", "C:/x", "c:x", "a\\\\b", "", "a//b", "./x", "a/./b"]
)
def test_unsafe_names(name: str) -> None:
    with pytest.raises(UnsafePath):
        safe_relative_path(name)


def test_safe_nested_names_are_kept() -> None:
    assert str(safe_relative_path("sub/dir/model.gguf")) == "sub/dir/model.gguf"
