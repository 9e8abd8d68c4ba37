"""Unpack a llama-cpp-python wheel's libraries into a runtime folder (backends/runtimes.py).

    python packaging/llama/unpack_runtime.py WHEEL DEST NAME KIND [CPU_FEATURES]

CPU_FEATURES (comma-separated, /proc/cpuinfo's names): the instruction sets the build needs,
written into runtime.json so that Hearth never loads it on a CPU without them.

Only what is loaded is kept: ``libllama.so`` (loaded by name) and the ggml libraries under
their sonames (a wheel carries three copies of each; the multimodal libmtmd is not used).
The folder is written beside DEST and renamed into place, so it is whole or absent.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import zipfile
from pathlib import Path, PurePosixPath

KEEP = re.compile(
    r"libllama\.so|libggml[\w-]*\.so\.\d+"  # Linux
    r"|(ggml[\w-]*|llama)\.dll"  # Windows
    r"|lib(ggml[\w-]*|llama)\.dylib"  # macOS
)


def unpack(
    wheel: Path, dest: Path, name: str, kind: str, cpu_features: list[str] | None = None
) -> None:
    version = wheel.name.split("-")[1]
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            filename = PurePosixPath(info.filename).name
            if info.filename.startswith("llama_cpp/lib/") and KEEP.fullmatch(filename):
                target = partial / filename
                target.write_bytes(archive.read(info))
                target.chmod(0o755)
    manifest: dict[str, object] = {"name": name, "kind": kind, "llama_cpp_python": version}
    if cpu_features:
        manifest["cpu_features"] = cpu_features
    (partial / "runtime.json").write_text(json.dumps(manifest) + "\n")
    shutil.rmtree(dest, ignore_errors=True)
    partial.rename(dest)


if __name__ == "__main__":
    wheel, dest, name, kind = sys.argv[1:5]
    features = [f for f in (sys.argv[5] if len(sys.argv) > 5 else "").split(",") if f]
    unpack(Path(wheel), Path(dest), name, kind, features)
