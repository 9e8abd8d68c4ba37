"""Convert the starter GGUF into a Hugging Face checkpoint folder (float32 safetensors).

transformers reads the GGUF itself; ``save_pretrained`` refuses a GGUF-loaded model until
its quantizer marks are removed.  Run in its own process so the test process never imports
torch.  Usage: convert_starter.py OUTPUT_DIR
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


def starter_tokenizer() -> Any:
    """The starter model's tokenizer (and chat template), read from its GGUF."""
    from transformers import AutoTokenizer

    starter = _starter()
    return AutoTokenizer.from_pretrained(str(starter.parent), gguf_file=starter.name)


def _starter() -> Path:
    from app.models.library import starter_model_path

    starter = starter_model_path()
    assert starter is not None, "the starter model package is not installed"
    return starter


def main() -> int:
    from transformers import AutoModelForCausalLM

    starter = _starter()
    output = Path(sys.argv[1])
    partial = output.with_name(output.name + ".partial")
    tokenizer = starter_tokenizer()
    model = AutoModelForCausalLM.from_pretrained(str(starter.parent), gguf_file=starter.name)
    model.hf_quantizer = None  # type: ignore[assignment]
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    partial.rename(output)  # only a complete folder ever carries the final name
    return 0


if __name__ == "__main__":
    sys.exit(main())
