#!/usr/bin/env bash
# Unpack the .deb into a temporary root and run the frozen Hearth from there: the
# self-test (window, worker, starter model, streamed and saved reply), the check that the
# default edition carries no torch, the PyTorch engine added from inside the app (installed,
# a checkpoint answering on it, removed), the installed size and the cold start to a
# painted window.  Needs the development environment (make test makes it) for the tiny
# checkpoint.
set -euo pipefail
cd "$(dirname "$0")/../.."
DEB="$(find dist -maxdepth 1 -name 'hearth_*_amd64.deb' -printf '%T@ %p\n' | sort -rn | head -1 | cut -d' ' -f2-)"
ROOT="$(mktemp -d)"
trap 'rm -rf "$ROOT"' EXIT
dpkg-deb -x "$DEB" "$ROOT"
APP="$ROOT/opt/hearth/hearth"
export QT_QPA_PLATFORM=offscreen HEARTH_DATA_DIR="$ROOT/data"
echo "== self-test of the frozen app from the unpacked .deb"
"$APP" --self-test | tee "$ROOT/self-test.txt"
echo "== torch in the default edition?"
if find "$ROOT/opt/hearth" -iname 'torch*' -o -iname 'libtorch*' | grep -q .; then
  echo "FAILED: torch is in the bundle"; exit 1
fi
echo "no torch"
echo "== llama.cpp built for any x86-64 CPU with AVX2 (not for this build machine)"
CPU_LIB="$(find "$ROOT/opt/hearth" -name 'libggml-cpu.so*' -type f -not -path '*/runtimes/*' | head -1)"
AVX512="$(objdump -d "$CPU_LIB" | grep -c zmm || true)"
AVX2="$(objdump -d "$CPU_LIB" | grep -c ymm || true)"
echo "AVX-512 instructions: $AVX512, AVX2 instructions: $AVX2"
if [ "$AVX512" != "0" ] || [ "$AVX2" = "0" ]; then
  echo "FAILED: the bundled llama.cpp is not a portable AVX2 build"; exit 1
fi
echo "== llama.cpp runtimes in the bundle"
APP_DIR="$ROOT/opt/hearth"
if [ -n "${HEARTH_REQUIRE_VULKAN:-}" ] && ! [ -f "$(find "$APP_DIR" -path '*runtimes/vulkan/runtime.json' | head -1)" ]; then
  echo "FAILED: the Vulkan runtime is not in the bundle"; exit 1
fi
find "$APP_DIR" -name runtime.json -path '*runtimes/*' -exec dirname {} \; | while read -r runtime; do
  du -sh "$runtime" | sed "s|$APP_DIR/||;s/^/runtime: /"
done
AVX512_DIR="$(find "$APP_DIR" -path '*runtimes/cpu-avx512/runtime.json' -exec dirname {} \; | head -1)"
if [ -n "$AVX512_DIR" ]; then
  ZMM="$(objdump -d "$(ls "$AVX512_DIR"/libggml-cpu.so*)" | grep -c zmm || true)"
  echo "cpu-avx512: $ZMM AVX-512 instructions"
  if [ "$ZMM" = "0" ]; then
    echo "FAILED: the cpu-avx512 runtime has no AVX-512 code"; exit 1
  fi
  NEEDS=(avx512f avx512bw avx512vl avx512vbmi avx512_vnni)
  if python3 -c 'import sys; f=open("/proc/cpuinfo").read().split(); sys.exit(any(n not in f for n in sys.argv[1:]))' "${NEEDS[@]}"; then
    grep -q "runtime cpu-avx512" "$ROOT/self-test.txt" \
      || { echo "FAILED: this CPU has AVX-512 but the self-test did not run on cpu-avx512"; exit 1; }
  fi
fi
"$APP" sysinfo --json | python3 -c 'import json,sys; [print("runtime", r["name"], "usable" if r["usable"] else "not usable", "-", r["reason"]) for r in json.load(sys.stdin)["runtimes"]]'
echo "== the PyTorch engine, added from inside the installed app"
# The machine's own pip configuration may name a folder of wheels (the CPU torch wheel on
# the machines that build Hearth); elsewhere the engine comes from PyPI and the PyTorch index.
FIND_LINKS=()
for folder in $(python3 -m pip config get global.find-links 2>/dev/null || true); do
  FIND_LINKS+=(--find-links "$folder")
done
"$APP" engines install pytorch --variant cpu "${FIND_LINKS[@]}"
"$APP" engines list | grep '^pytorch'
CHECKPOINT="$ROOT/tiny-checkpoint"
.venv/bin/python -m tests.tools.tiny_checkpoint "$CHECKPOINT"
"$APP" chat --engine transformers --model "$CHECKPOINT" --max-tokens 8 "Hi" >"$ROOT/reply.txt"
[ -s "$ROOT/reply.txt" ] || { echo "FAILED: the checkpoint gave no reply"; exit 1; }
echo "a checkpoint answered on the PyTorch engine: $(head -c 80 "$ROOT/reply.txt")"
"$APP" engines remove pytorch
if "$APP" chat --engine transformers --model "$CHECKPOINT" "Hi" 2>"$ROOT/refused.txt"; then
  echo "FAILED: a checkpoint ran with the PyTorch engine removed"; exit 1
fi
grep -q "PyTorch engine, which is not installed" "$ROOT/refused.txt" \
  || { echo "FAILED: the refusal does not say why:"; cat "$ROOT/refused.txt"; exit 1; }
cat "$ROOT/refused.txt"
echo "== --version"
"$APP" --version
echo "== sizes"
du -sh "$ROOT/opt/hearth" | sed 's/^/installed: /'
INSTALLED_MB="$(du -s --block-size=1000000 "$ROOT/opt/hearth" | cut -f1)"
if [ "$INSTALLED_MB" -gt 450 ]; then
  echo "FAILED: the installed size ($INSTALLED_MB MB) is over its budget of 450 MB"; exit 1
fi
stat -c %s "$DEB" | awk '{printf "deb: %.0f MB\n", $1/1e6}'
echo "== files in the .deb (top level)"
dpkg-deb -c "$DEB" | awk '{print $6}' | cut -d/ -f2-4 | sort -u | head -20
echo "== the icon: scalable, and drawn at fixed sizes"
for icon in scalable/apps/hearth.svg 16x16/apps/hearth.png 48x48/apps/hearth.png 256x256/apps/hearth.png; do
  [ -s "$ROOT/usr/share/icons/hicolor/$icon" ] || { echo "FAILED: the .deb lacks the $icon icon"; exit 1; }
done
echo "$(find "$ROOT/usr/share/icons/hicolor" -name 'hearth.*' | wc -l) icon files"
echo "== cold start to a painted window (3 runs)"
for i in 1 2 3; do
  start=$(python3 -c 'import time;print(time.time())')
  painted=$(HEARTH_EXIT_AFTER_PAINT=1 HEARTH_DATA_DIR="$ROOT/data-$i" "$APP" | grep PAINTED | cut -d' ' -f2)
  python3 -c "print(f'{$painted - $start:.3f} s')"
done
