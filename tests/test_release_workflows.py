"""The release workflows stay thin: every step they run is a make target or a script in
packaging/ (or .ci/run), which exists, so the logic lives where it runs and is tested on
Linux too.  (Their schema is checked by `make lint`.)"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
# Git's bash on Windows, not System32's bash.exe (the WSL launcher), which comes first there.
BASH = shutil.which("bash") or "bash"


def _sums_check(folder: Path) -> bool:
    """What `sha256sum -c SHA256SUMS` says, in Python (macOS has no sha256sum)."""
    for line in (folder / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split("  ", 1)
        if hashlib.sha256((folder / name).read_bytes()).hexdigest() != digest:
            return False
    return True


def _steps(workflow: Path) -> list[dict[str, Any]]:
    document = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    return [step for job in document["jobs"].values() for step in job.get("steps", [])]


def _make_targets() -> set[str]:
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([\w-]+):", text, re.M))


def test_both_workflows_exist() -> None:
    assert {path.name for path in WORKFLOWS} >= {"ci.yml", "release.yml"}


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda path: path.name)
def test_every_step_is_a_make_target_or_a_packaging_script(workflow: Path) -> None:
    targets = _make_targets()
    for step in _steps(workflow):
        if "uses" in step:
            # Actions by major version (or a full commit), never a moving branch.
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@(v\d+(\.\d+)*|[0-9a-f]{40})", step["uses"])
            continue
        words = shlex.split(step["run"])
        assert "\n" not in step["run"].strip(), f"one command per step: {step['run']!r}"
        if words[0] == "make":
            assert set(words[1:]) <= targets, step["run"]
            continue
        assert words[0] == "bash", step["run"]
        script = words[1]
        assert script == ".ci/run" or script.startswith("packaging/"), step["run"]
        assert (REPO / script).is_file(), script


def test_release_files_come_with_sums_that_check(tmp_path: Path) -> None:
    built = tmp_path / "dist"
    built.mkdir()
    for name, data in (
        ("hearth_9.9.9_amd64.deb", b"deb"),
        ("hearth-9.9.9-linux-x86_64.tar.gz", b"tar"),
        ("HearthSetup-9.9.9.exe", b"exe"),
        ("Hearth-9.9.9.dmg", b"dmg"),
        ("hearth.spec.log", b"not an installer"),
    ):
        (built / name).write_bytes(data)
    release = tmp_path / "release"
    subprocess.run(
        [BASH, "packaging/release-files.sh", str(release), str(built)],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    assert sorted(path.name for path in release.iterdir()) == [
        "Hearth-9.9.9.dmg",
        "HearthSetup-9.9.9.exe",
        "SHA256SUMS",
        "hearth-9.9.9-linux-x86_64.tar.gz",
        "hearth_9.9.9_amd64.deb",
    ]
    assert len((release / "SHA256SUMS").read_text().splitlines()) == 4
    assert _sums_check(release)
    (release / "HearthSetup-9.9.9.exe").write_bytes(b"tampered")
    assert not _sums_check(release)


def test_no_installers_is_an_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [BASH, "packaging/release-files.sh", str(tmp_path / "out"), str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0 and "no installers found" in result.stdout


def _pinned_llama() -> str:
    text = (REPO / "packaging" / "lib.sh").read_text(encoding="utf-8")
    match = re.search(r'^LLAMA_VERSION="(.*)"', text, re.M)
    assert match is not None
    return match[1]


def _one_pack(folder: Path, name: str, system: str) -> None:
    """A one-pack manifest and archive as build-cuda-pack.sh leaves them (a tiny runtime)."""
    runtime = folder / f"runtime-{system}"
    runtime.mkdir(parents=True)
    label = {"name": name, "kind": "cuda", "llama_cpp_python": _pinned_llama()}
    (runtime / "runtime.json").write_text(json.dumps(label))
    (runtime / "libggml-cuda.so").write_bytes(system.encode() * 1000)
    subprocess.run(
        [
            *(sys.executable, "packaging/llama/make-pack.py", "pack", str(runtime)),
            *(str(folder), "--name", name, "--os", system, "--arch", "x86_64"),
        ],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    shutil.rmtree(runtime)


def test_runtime_packs_are_released_with_one_manifest_the_app_reads(tmp_path: Path) -> None:
    from app.packs.pack_manifest import MANIFEST_NAME, parse_manifest, recipes

    linux, windows = tmp_path / "pack-linux", tmp_path / "pack-windows"
    _one_pack(linux, "cuda-12", "linux")
    _one_pack(windows, "cuda-12", "windows")
    _one_pack(windows, "cuda-13", "windows")
    release = tmp_path / "release"
    subprocess.run(
        [BASH, "packaging/release-files.sh", str(release), str(linux), str(windows)],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    names = sorted(path.name for path in release.iterdir())
    assert [n for n in names if n.endswith(".json")] == [MANIFEST_NAME]
    assert len([n for n in names if n.endswith(".zip")]) == 3
    assert _sums_check(release) and len((release / "SHA256SUMS").read_text().splitlines()) == 4
    manifest = parse_manifest((release / MANIFEST_NAME).read_bytes())
    assert [(p.name, p.os) for p in manifest.packs] == [
        ("cuda-12", "linux"),
        ("cuda-12", "windows"),
        ("cuda-13", "windows"),
    ]
    cuda_12 = next(
        p for p in recipes(REPO / "resources", "windows", "x86_64") if p.name == "cuda-12"
    )
    assert manifest.packs[1].min_driver == cuda_12.min_driver == "527.41"
    assert manifest.packs[1].compute_capabilities == cuda_12.compute_capabilities
    for pack in manifest.packs:
        assert (release / pack.archive).stat().st_size == pack.archive_size


def test_the_release_builds_every_pack_of_the_recipes_on_linux_and_windows() -> None:
    document = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    recipes = json.loads((REPO / "resources" / "engines" / "llama-runtime-packs.json").read_text())
    names = [pack["name"] for pack in recipes["packs"]]
    for job in ("cuda-packs-linux", "cuda-packs-windows"):
        assert document["jobs"][job]["strategy"]["matrix"]["pack"] == names
        assert any(
            "build-cuda-pack.sh" in step.get("run", "") for step in document["jobs"][job]["steps"]
        )
    publish = document["jobs"]["publish"]
    assert {"cuda-packs-linux", "cuda-packs-windows"} <= set(publish["needs"])
    assert any(step.get("with", {}).get("pattern") == "pack-*" for step in publish["steps"])


def test_a_runtime_for_another_llama_cpp_is_never_made_a_pack(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    label = {"name": "cuda-12", "kind": "cuda", "llama_cpp_python": "0.0.1"}
    (runtime / "runtime.json").write_text(json.dumps(label))
    made = subprocess.run(
        [
            *(sys.executable, "packaging/llama/make-pack.py", "pack", str(runtime)),
            *(str(tmp_path), "--name", "cuda-12"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode != 0 and "Hearth pins" in made.stderr
    assert not list(tmp_path.glob("*.zip"))
