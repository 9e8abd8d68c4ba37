#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU (never part of CI).  Prints one JSON
# report: the llama.cpp CUDA (and Vulkan) runtimes built here for this GPU, with all layers
# on the GPU, against llama-bench from the same build (tokens/s, prompt, time to first
# token); what fit predicted against what nvidia-smi saw; the transformers engine in
# bfloat16 with and without the static cache.  At most about 8 minutes.
#
#   make gpu-kit                          # once, on a machine with the dev venv and PyPI
#   bash packaging/gpu-check.sh [--cpu]   # anywhere; --cpu checks the kit without a GPU
#
# Needs Python with numpy, psutil and jinja2 (and torch + transformers for that part),
# CMake and nvcc; uses what is installed and says what it skipped.  Nothing is downloaded:
# the kit (.cache/gpu-kit, about 12 MB) carries the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=python3
if [ -x .venv/bin/python ]; then
  PY=.venv/bin/python
fi
KIT=.cache/gpu-kit
if [ ! -f "$KIT/llama.cpp.tar.gz" ] && [ -x .venv/bin/python ]; then
  .venv/bin/python packaging/gpu_kit.py make "$KIT"
fi
exec "$PY" packaging/gpu_kit.py run "$KIT" "$@"
