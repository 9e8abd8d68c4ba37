#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU (never part of CI).  Prints one JSON
# report: the llama.cpp CUDA (and Vulkan) runtimes built here for this GPU, with all layers
# on the GPU, against llama-bench from the same build (tokens/s, prompt, time to first
# token); what the System check and fit said against what nvidia-smi saw; a llama.cpp
# runtime pack installed through the app's own code (one the kit carries, else one made
# from the CUDA build) and a reply on it; the transformers engine in bfloat16 with and
# without the static cache.  At most 8 minutes.
#
#   make gpu-kit                          # once, on a machine with the dev venv and PyPI
#   bash packaging/gpu-check.sh [--cpu]   # anywhere; --cpu checks the kit without a GPU
#
# Needs Python 3.11+ with numpy and PyYAML (torch + transformers for their part), CMake
# and nvcc; uses what is installed and says what it skipped.  Nothing is downloaded: the
# kit (.cache/gpu-kit, about 18 MB) carries the rest, and a release's runtime packs when
# .cache/packs (or $HEARTH_KIT_PACKS) holds them at `make gpu-kit` (hundreds of MB more).  PYTHON=... picks the interpreter.
# The report is also kept in .cache/gpu-check-work/report.json (and $OUT/gpu-check.json).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ -z "${PYTHON:-}" ] && [ -x .venv/bin/python ]; then
  PY=.venv/bin/python
fi
KIT=.cache/gpu-kit
if [ ! -f "$KIT/llama.cpp.tar.gz" ] && [ -x .venv/bin/python ]; then
  .venv/bin/python packaging/gpu_kit.py make "$KIT"
fi
# The check keeps to its own budget (420 s); this limit only stops one that hangs, and
# the check still prints what it has (SIGTERM), all within 8 minutes.
exec timeout -s TERM -k 15 450 "$PY" packaging/gpu_kit.py run "$KIT" "$@"
