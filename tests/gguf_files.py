"""Small valid GGUF files built with the ``gguf`` package, for tests."""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np


def build_gguf(
    path: Path,
    arch: str = "llama",
    template: str | None = None,
    file_type: int | None = None,
    floats: dict[str, float] | None = None,
    block_count: int = 2,
) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_block_count(block_count)
    writer.add_context_length(1024)
    writer.add_head_count(4)
    writer.add_head_count_kv(2)
    writer.add_embedding_length(16)
    writer.add_feed_forward_length(32)
    writer.add_vocab_size(8)
    writer.add_name("tiny test model")
    if file_type is not None:
        writer.add_file_type(file_type)
    if template:
        writer.add_chat_template(template)
    for key, value in (floats or {}).items():
        writer.add_float32(key, value)
    writer.add_tensor("token_embd.weight", np.ones((8, 16), dtype=np.float32))
    writer.add_tensor("blk.0.attn_q.weight", np.ones((16, 16), dtype=np.float32))
    writer.add_tensor("blk.1.attn_q.weight", np.ones((16, 16), dtype=np.float32))
    writer.add_tensor("output.weight", np.ones((4, 16), dtype=np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def build_checkpoint(folder: Path, pickle_only: bool = False) -> Path:
    """A transformers-style folder: config.json plus a safetensors header (tiny tensors)."""
    import json
    import struct

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["LlamaForCausalLM"],
                "model_type": "llama",
                "max_position_embeddings": 2048,
                "torch_dtype": "bfloat16",
            }
        )
    )
    (folder / "tokenizer_config.json").write_text(json.dumps({"chat_template": "{{x}}"}))
    if pickle_only:
        (folder / "pytorch_model.bin").write_bytes(b"\x80\x04pickle")
        return folder
    header = json.dumps({"w": {"dtype": "BF16", "shape": [4, 8], "data_offsets": [0, 64]}}).encode()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 64)
    return folder
