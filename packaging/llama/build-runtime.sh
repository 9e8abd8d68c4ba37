#!/usr/bin/env bash
# Builds one llama.cpp runtime for Hearth: llama-cpp-python's libraries built with the given
# cmake flags, unpacked into DEST/NAME with a runtime.json (see backends/runtimes.py).
#
#   bash packaging/llama/build-runtime.sh VERSION NAME KIND DEST "CMAKE ARGS"
#
# pip builds the wheel without its cache (the cache would hand back a build with other
# flags); the result is kept in DEST, which the Makefile puts outside the tree, so a fresh
# clone on the same machine does not build it again.
set -euo pipefail
VERSION="$1"
NAME="$2"
KIND="$3"
DEST="$4"
ARGS="$5"
PYTHON="${PYTHON:-python3}"
OUT="$DEST/$NAME"
WORK="$DEST/.work-$NAME"
rm -rf "$WORK"
mkdir -p "$WORK"
"$PYTHON" -m pip download --quiet --no-deps --no-binary :all: -d "$WORK" \
  "llama-cpp-python==$VERSION"
tar -xzf "$WORK/llama_cpp_python-$VERSION.tar.gz" -C "$WORK"
SRC="$WORK/llama_cpp_python-$VERSION"
"$PYTHON" "$(dirname "$0")/compat.py" "$SRC"
CMAKE_ARGS="$ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "$PYTHON" -m pip wheel --quiet \
  --no-deps --no-cache-dir -w "$WORK" "$SRC"
# Only what is loaded: libllama.so (by name) and the ggml libraries by their sonames
# (wheels carry three copies of each; the multimodal libmtmd is not used).
"$PYTHON" - "$WORK" "$OUT.tmp" <<'PYEOF'
import pathlib, re, sys, zipfile
work, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
wheel = next(work.glob("llama_cpp_python-*.whl"))
out.mkdir(parents=True, exist_ok=True)
with zipfile.ZipFile(wheel) as archive:
    for info in archive.infolist():
        name = pathlib.PurePosixPath(info.filename).name
        if not info.filename.startswith("llama_cpp/lib/"):
            continue
        if name == "libllama.so" or re.fullmatch(r"libggml[\w-]*\.so\.\d+", name):
            target = out / name
            target.write_bytes(archive.read(info))
            target.chmod(0o755)
PYEOF
printf '{"name": "%s", "kind": "%s", "llama_cpp_python": "%s", "cmake_args": "%s"}\n' \
  "$NAME" "$KIND" "$VERSION" "$ARGS" >"$OUT.tmp/runtime.json"
rm -rf "$OUT" "$WORK"
mv "$OUT.tmp" "$OUT"
du -sh "$OUT"
