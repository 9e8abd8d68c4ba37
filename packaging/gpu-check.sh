#!/usr/bin/env bash
# GPU check for the transformers engine, for a machine with an NVIDIA GPU (never part of CI).
#
#   bash packaging/gpu-check.sh [CHECKPOINT_DIR]
#
# Uses the project's .venv (make test builds it), converts the starter model to a Hugging
# Face folder if no checkpoint is given, then through the real worker: loads on CUDA, checks
# that bf16 was chosen where the GPU supports it, streams a reply, repeats with the static
# KV cache (torch.compile / CUDA graphs), and prints tokens/s for each.  If the venv's torch
# is a CPU build, it says how to install a CUDA one and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
test -x "$PY" || { echo "run 'make test' (or 'make run') first to create .venv"; exit 2; }
if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'; then
  echo "torch cannot see a GPU here. Install a CUDA build, e.g.:"
  echo "  $PY -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu128"
  exit 3
fi
CHECKPOINT="${1:-.cache/test-models/smollm2-135m-instruct-hf}"
if [ ! -f "$CHECKPOINT/config.json" ]; then
  "$PY" -m tests.tools.convert_starter "$CHECKPOINT"
fi
export HEARTH_DATA_DIR="$(mktemp -d)"
"$PY" - "$CHECKPOINT" <<'PYEOF'
import sys, torch
from app.engine_client import EngineClient, ModelSpec

path = sys.argv[1]
print(f"GPU: {torch.cuda.get_device_name(0)}, bf16 supported: {torch.cuda.is_bf16_supported()}")
failures = 0
for static in (False, True):
    client = EngineClient()
    spec = ModelSpec(path, n_ctx=2048, engine="transformers", static_cache=static)
    job = client.chat(spec, [{"role": "user", "content": "What is 2+2?"}],
                      {"temperature": 0, "max_tokens": 128, "ignore_eos": True})
    loaded, stats, final, text = {}, {}, {}, ""
    for event in job.events(timeout=600):
        if event["type"] == "loaded":
            loaded = event
        elif event["type"] == "stats":
            stats = event
        elif event["type"] == "delta":
            text += event["text"]
        elif event["type"] in ("done", "error"):
            final = event
    client.close()
    ok = final.get("type") == "done" and loaded.get("device") == "cuda"
    expected = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    ok = ok and loaded.get("dtype") == expected
    failures += not ok
    print(f"static cache {static}: {'OK' if ok else 'FAILED'} device={loaded.get('device')} "
          f"dtype={loaded.get('dtype')} tokens/s={stats.get('tokens_per_s')} "
          f"first token={stats.get('ttft_ms')} ms {final.get('message', '')}")
    print(f"  reply: {text[:80]!r}")
sys.exit(1 if failures else 0)
PYEOF
