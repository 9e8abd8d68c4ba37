"""``hearth engines`` and ``hearth chat --engine`` as a person types them: the list of
engines and runtimes with what is usable here and why not, refusals before anything is
downloaded, and the progress line an install prints.  (The real install of the PyTorch
engine into the frozen app is ``packaging/linux/test-dist.sh``'s.)"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from app.cli.engines import Progress
from app.packs.pack_manifest import MANIFEST_NAME
from app.packs.pytorch_engine import InstallProgress, torch_here
from tests.conftest import run_hearth
from tests.runtime_pack_builds import NAME, make_pack, make_runtime
from wire.platforms import wheel_platform

pytestmark = pytest.mark.slow  # drives the real app, an engine or a server


def test_engines_list_names_every_engine_and_runtime_and_whether_it_is_usable() -> None:
    listed = run_hearth("engines", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)["engines"]}
    pytorch = rows["pytorch"]
    assert pytorch["kind"] == "engine" and pytorch["built_in"] == torch_here()
    assert pytorch["usable"] == torch_here(), "this environment's torch, where it has one"
    assert "cpu" in pytorch["offered"] and pytorch["suggested"] == "cpu", "no GPU here"
    runtimes = [row for row in rows.values() if row["kind"] == "llama.cpp runtime"]
    assert any(row["usable"] and row["variant"] == "cpu" for row in runtimes)
    assert all(row["usable"] or row["reason"] for row in rows.values()), "why not, in words"
    shown = run_hearth("engines", "list")
    assert shown.returncode == 0 and "pytorch (engine): usable" in shown.stdout


def test_what_cannot_be_installed_or_removed_is_refused_in_words() -> None:
    other = "mps" if not wheel_platform().startswith("macos") else "rocm"
    refused = run_hearth("engines", "install", "pytorch", "--variant", other)
    assert refused.returncode == 1
    assert f"offers no {other} PyTorch engine for {wheel_platform()}" in refused.stderr
    gone = run_hearth("engines", "remove", "pytorch")
    assert gone.returncode == 1 and "The PyTorch engine is not installed." in gone.stderr
    back = run_hearth("engines", "rollback", "pytorch")
    assert back.returncode == 1 and "no earlier PyTorch engine" in back.stderr


def test_chat_on_an_engine_refuses_a_model_of_the_other_kind() -> None:
    refused = run_hearth("chat", "--engine", "transformers", "Hi")
    assert refused.returncode == 1
    assert "runs on the llama_cpp engine, not on transformers" in refused.stderr


def test_an_installs_progress_says_bytes_speed_and_time_left() -> None:
    stream = io.StringIO()
    shown = Progress(stream)
    shown.show(InstallProgress("download", 40_000_000, 252_000_000, 8_500_000.0, 25.0))
    shown.show(InstallProgress("download", 200_000_000, 252_000_000, 8_500_000.0, 95.0))
    shown.show(InstallProgress("unpack", 20, 42))
    shown.show(InstallProgress("check", 0, 1))
    lines = stream.getvalue().splitlines()
    assert lines[0] == "Downloading 40 of 252 MB, 8.5 MB/s, 25 s left"
    assert lines[1] == "Downloading 200 of 252 MB, 8.5 MB/s, 1 min 35 s left"
    assert lines[2:] == ["Unpacking 21 of 42", "Checking that it runs on this computer"]


def test_a_runtime_pack_from_a_folder_is_installed_listed_rolled_back_and_removed(
    tmp_path: Path,
) -> None:
    """``hearth engines install NAME --find-links FOLDER``: a pack and its list from a
    folder (a mirror copied by hand), checked and probed, then listed as installed; a
    second install keeps the first for rollback; remove frees the disk."""
    out = tmp_path / "out"
    manifest = make_pack(make_runtime(tmp_path / "runtime"), out)
    (out / MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")
    for _ in range(2):
        installed = run_hearth("engines", "install", NAME, "--find-links", str(out))
        assert installed.returncode == 0, installed.stderr
        assert f"Installed the {NAME} runtime" in installed.stdout
    listed = run_hearth("engines", "list", "--json")
    rows = {row["name"]: row for row in json.loads(listed.stdout)["engines"]}
    assert rows[NAME]["installed"] and rows[NAME]["usable"], rows[NAME]
    back = run_hearth("engines", "rollback", NAME)
    assert back.returncode == 0 and "the one installed before again" in back.stdout
    removed = run_hearth("engines", "remove", NAME)
    assert removed.returncode == 0 and "GB freed" in removed.stdout
    listed = run_hearth("engines", "list", "--json")
    rows = {row["name"]: row for row in json.loads(listed.stdout)["engines"]}
    assert not rows.get(NAME, {}).get("installed")
