"""The models the check measures: one of a real model's shape (SmolLM2-1.7B, the starter's
family, so the starter's tokenizer fits) with random weights, since speed does not depend
on the weights: as GGUF quantised to Q4_K_M for llama.cpp, and in bfloat16 for
transformers.  Nothing is downloaded."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

# A model of SmolLM2-1.7B's shape; a small one for --cpu (which checks the kit itself).
GPU_SHAPE = {"hidden": 2048, "layers": 24, "heads": 32, "kv_heads": 32, "ffn": 8192}
CPU_SHAPE = {"hidden": 256, "layers": 4, "heads": 4, "kv_heads": 4, "ffn": 768}


def gguf_f16(kit: Path, source: Path, work: Path, shape: dict[str, int]) -> Path:
    """A Llama-shaped GGUF with random F16 weights and the starter's tokenizer.  Every
    layer shares one set of random tensors: writing 3 GB is quick, drawing 1.7 billion
    random numbers is not."""
    f16 = work / f"random-{shape['hidden']}x{shape['layers']}.f16.gguf"
    if f16.is_file():
        return f16
    sys.path.insert(0, str(source / "gguf-py"))
    import gguf
    import numpy as np

    tokenizer = json.loads((kit / "tokenizer" / "gguf_tokenizer.json").read_text())
    vocab = len(tokenizer["tokenizer.ggml.tokens"])
    hidden, heads, kv_heads, ffn = shape["hidden"], shape["heads"], shape["kv_heads"], shape["ffn"]
    head_dim = hidden // heads
    partial = f16.with_suffix(".part")
    writer = gguf.GGUFWriter(str(partial), "llama")
    writer.add_name("random weights, SmolLM2 shape")
    writer.add_block_count(shape["layers"])
    writer.add_context_length(8192)
    writer.add_embedding_length(hidden)
    writer.add_feed_forward_length(ffn)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(130000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(vocab)
    writer.add_file_type(1)  # mostly F16
    _add_tokenizer(writer, tokenizer)
    rng = np.random.default_rng(0)

    def weights(*dims: int) -> Any:
        return (rng.standard_normal(dims, dtype=np.float32) * 0.02).astype(np.float16)

    ones = np.ones(hidden, dtype=np.float32)
    layer = {
        "attn_q": weights(hidden, hidden),
        "attn_k": weights(kv_heads * head_dim, hidden),
        "attn_v": weights(kv_heads * head_dim, hidden),
        "attn_output": weights(hidden, hidden),
        "ffn_gate": weights(ffn, hidden),
        "ffn_up": weights(ffn, hidden),
        "ffn_down": weights(hidden, ffn),
    }
    writer.add_tensor("token_embd.weight", weights(vocab, hidden))
    writer.add_tensor("output_norm.weight", ones)
    for index in range(shape["layers"]):
        block = f"blk.{index}."
        writer.add_tensor(block + "attn_norm.weight", ones)
        writer.add_tensor(block + "ffn_norm.weight", ones)
        for name, tensor in layer.items():
            writer.add_tensor(f"{block}{name}.weight", tensor)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    partial.replace(f16)
    return f16


def _add_tokenizer(writer: Any, fields: dict[str, Any]) -> None:
    writer.add_tokenizer_model(fields["tokenizer.ggml.model"])
    writer.add_tokenizer_pre(fields.get("tokenizer.ggml.pre", "default"))
    writer.add_token_list(fields["tokenizer.ggml.tokens"])
    writer.add_token_types(fields["tokenizer.ggml.token_type"])
    writer.add_token_merges(fields["tokenizer.ggml.merges"])
    writer.add_bos_token_id(fields["tokenizer.ggml.bos_token_id"])
    writer.add_eos_token_id(fields["tokenizer.ggml.eos_token_id"])
    writer.add_add_bos_token(bool(fields.get("tokenizer.ggml.add_bos_token", False)))
    writer.add_chat_template(fields["tokenizer.chat_template"])


def quantise(quantize: Path, env: dict[str, str], f16: Path, timeout: float) -> Path:
    """``f16`` as Q4_K_M, with the build's ``llama-quantize``."""
    quantised = f16.with_name(f16.name.replace(".f16.gguf", ".Q4_K_M.gguf"))
    if not quantised.is_file():
        partial = quantised.with_suffix(".part")
        subprocess.run(
            [str(quantize), str(f16), str(partial), "Q4_K_M"],
            check=True,
            capture_output=True,
            env=env,
            timeout=timeout,
        )
        partial.replace(quantised)
    return quantised


def hf_bf16(kit: Path, work: Path, shape: dict[str, int]) -> Path:
    """The same shape for transformers, in bfloat16, made on the GPU (seconds, where the
    CPU would take a minute in float32)."""
    folder = work / f"random-hf-{shape['hidden']}x{shape['layers']}"
    if (folder / "config.json").is_file():
        return folder
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(str(kit / "tokenizer" / "hf"))
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=shape["hidden"],
        intermediate_size=shape["ffn"],
        num_hidden_layers=shape["layers"],
        num_attention_heads=shape["heads"],
        num_key_value_heads=shape["kv_heads"],
        max_position_embeddings=8192,
        tie_word_embeddings=True,  # as SmolLM2 and the GGUF above
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    device = "cuda" if torch.cuda.is_available() else "cpu"
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    partial = folder.with_name(folder.name + ".part")  # a stopped run leaves no half model
    shutil.rmtree(partial, ignore_errors=True)
    try:
        with torch.device(device):
            model = LlamaForCausalLM(config)
        model.save_pretrained(str(partial))
    finally:
        torch.set_default_dtype(previous)
    tokenizer.save_pretrained(str(partial))
    partial.rename(folder)
    del model
    if device == "cuda":
        torch.cuda.empty_cache()
    return folder
