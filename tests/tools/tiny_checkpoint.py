"""A tiny Hugging Face checkpoint for the PyTorch engine's end-to-end checks: the starter
model's tokenizer and chat template on a two-layer Llama with random weights (a few MB,
made in seconds).  It answers nonsense, fast: what is checked is that a checkpoint runs
on the engine, not what it says.  Usage: python -m tests.tools.tiny_checkpoint OUTPUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.tools.convert_starter import starter_tokenizer  # sets the hub offline too


def main() -> int:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    output = Path(sys.argv[1])
    partial = output.with_name(output.name + ".partial")
    tokenizer = starter_tokenizer()
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    partial.rename(output)  # only a complete folder ever carries the final name
    return 0


if __name__ == "__main__":
    sys.exit(main())
