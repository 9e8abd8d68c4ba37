"""A vision model in the library: its projector (``mmproj-*.gguf``) beside it is found and
named with it, never listed as a model of its own; a folder of several pairs each model
with the projector whose name it shares."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.models.library import list_models
from tests.conftest import link_or_copy, run_hearth
from tests.vision_model import VisionModel

pytestmark = pytest.mark.slow  # drives the real app, an engine or a server


def test_a_projector_beside_its_model_makes_it_read_images(
    data_dir: Path, vision_model: VisionModel
) -> None:
    folder = data_dir / "models" / "acme" / "tiny-vlm-GGUF"
    folder.mkdir(parents=True)
    link_or_copy(vision_model.text, folder / "tiny-vlm-Q8_0.gguf")
    link_or_copy(vision_model.projector, folder / "mmproj-tiny-vlm-f16.gguf")
    listed = run_hearth("models", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    models = {Path(m["path"]).name: m for m in json.loads(listed.stdout)}
    assert "mmproj-tiny-vlm-f16.gguf" not in models, "a projector is no model to chat with"
    vision = models["tiny-vlm-Q8_0.gguf"]
    assert vision["reads_images"] is True
    assert vision["projector"] == str(folder / "mmproj-tiny-vlm-f16.gguf")
    starter = next(m for m in models.values() if m["source"] == "starter")
    assert starter["reads_images"] is False and starter["projector"] is None
    plain = run_hearth("models", "list").stdout.splitlines()
    assert any("tiny-vlm-Q8_0" in line and "images" in line for line in plain)


def test_each_model_gets_the_projector_whose_name_it_shares(
    tmp_path: Path, vision_model: VisionModel
) -> None:
    folder = tmp_path / "models" / "mixed"
    folder.mkdir(parents=True)
    for name in ("gemma-3-4b-it-Q4_K_M.gguf", "qwen2.5-vl-3b-Q4_K_M.gguf"):
        link_or_copy(vision_model.text, folder / name)
    for name in ("mmproj-gemma-3-4b-it-f16.gguf", "mmproj-qwen2.5-vl-3b-f16.gguf"):
        link_or_copy(vision_model.projector, folder / name)
    (tmp_path / "models" / "plain").mkdir()
    link_or_copy(vision_model.text, tmp_path / "models" / "plain" / "text-only.gguf")
    found = {e.path.name: e for e in list_models(tmp_path / "models", other_apps=False)}
    assert set(found) >= {"gemma-3-4b-it-Q4_K_M.gguf", "qwen2.5-vl-3b-Q4_K_M.gguf"}
    assert not any(name.startswith("mmproj") for name in found)
    gemma, qwen = found["gemma-3-4b-it-Q4_K_M.gguf"], found["qwen2.5-vl-3b-Q4_K_M.gguf"]
    assert gemma.projector is not None and gemma.projector.name == "mmproj-gemma-3-4b-it-f16.gguf"
    assert qwen.projector is not None and qwen.projector.name == "mmproj-qwen2.5-vl-3b-f16.gguf"
    assert not found["text-only.gguf"].reads_images, "a projector in another folder is not its"


def test_the_picker_and_the_library_say_which_models_read_images(
    qtbot: QtBot, data_dir: Path, vision_model: VisionModel
) -> None:
    from app.core import open_core
    from tests.gui_helpers import open_window, wait_until

    folder = data_dir / "models" / "acme" / "tiny-vlm-GGUF"
    folder.mkdir(parents=True)
    link_or_copy(vision_model.text, folder / "tiny-vlm-Q8_0.gguf")
    link_or_copy(vision_model.projector, folder / "mmproj-tiny-vlm-f16.gguf")
    window = open_window(qtbot, open_core(data_dir))
    picker = window.chat.model_bar.picker

    def labels() -> list[str]:
        return [picker.itemText(index) for index in range(picker.count())]

    wait_until(qtbot, lambda: any("tiny-vlm-Q8_0" in label for label in labels()))
    vision = next(label for label in labels() if "tiny-vlm-Q8_0" in label)
    assert "reads images" in vision
    assert not any("mmproj" in label for label in labels())
    starter = next(label for label in labels() if "SmolLM2" in label)
    assert "reads images" not in starter
    table = window.models_screen.library_panel.table
    names = [table.item(row, 0).text() for row in range(table.rowCount())]  # type: ignore[union-attr]
    assert any(name.startswith("tiny-vlm-Q8_0") and "reads images" in name for name in names)


def test_the_fit_estimate_counts_the_projector(vision_model: VisionModel) -> None:
    """A vision model needs its projector's memory besides its own (and buffers to encode
    a picture): "will it fit" must not say yes to the text model alone."""
    from dataclasses import replace

    from app.machine.fit_service import estimate_entry
    from app.models.library import describe, projector_beside
    from tests.conftest import recorded_machine

    vision = projector_beside(describe(vision_model.text, "added"))
    assert vision.projector == vision_model.projector
    text_only = replace(vision, projector=None)
    facts = recorded_machine("laptop")
    with_pictures = estimate_entry(vision, facts, 2048)
    without = estimate_entry(text_only, facts, 2048)
    projector = vision_model.projector.stat().st_size
    assert with_pictures.weights_bytes - without.weights_bytes >= projector
    assert with_pictures.peak_bytes - without.peak_bytes >= projector


def test_a_vision_model_downloads_with_its_projector(
    data_dir: Path, vision_model: VisionModel
) -> None:
    """``hearth pull`` of a vision model's repository fetches the model and its projector
    (both verified, from either hub), and the library then says it reads images."""
    import os

    from tests.fakehub import FakeHub

    hub = FakeHub().start()
    try:
        hub.add(
            "acme/tiny-vlm-GGUF",
            {
                "tiny-vlm-F16.gguf": vision_model.text.read_bytes(),
                "mmproj-tiny-vlm-f16.gguf": vision_model.projector.read_bytes(),
                "README.md": b"a tiny vision model",
            },
        )
        env = dict(os.environ, HF_ENDPOINT=hub.url, MODELSCOPE_ENDPOINT=hub.url)
        # As recommended, and by the model file's name: either way with its projector.
        for source, named in (("modelscope", ()), ("hf", ("--file", "tiny-vlm-F16.gguf"))):
            pulled = run_hearth("pull", "acme/tiny-vlm-GGUF", "--source", source, *named, env=env)
            assert pulled.returncode == 0, pulled.stderr
            assert "tiny-vlm-F16.gguf, mmproj-tiny-vlm-f16.gguf verified" in pulled.stderr
            folder = data_dir / "models" / "acme/tiny-vlm-GGUF"
            assert (folder / "mmproj-tiny-vlm-f16.gguf").read_bytes() == (
                vision_model.projector.read_bytes()
            )
            listed = json.loads(run_hearth("models", "list", "--json", env=env).stdout)
            model = next(m for m in listed if m["path"] == str(folder / "tiny-vlm-F16.gguf"))
            assert model["reads_images"] is True
            removed = run_hearth("models", "rm", "tiny-vlm-F16", "--yes", env=env)
            assert removed.returncode == 0, removed.stderr
            assert not folder.exists(), "its projector went with it"
    finally:
        hub.stop()


def test_every_front_end_pairs_a_model_with_the_same_projector(tmp_path: Path) -> None:
    """One rule for "which projector": the library, a model opened by its path (the
    window's *Open model file…*, ``hearth chat --model PATH``) and the model added in
    Settings all find the projector beside the model, the closest by name when there are
    several, and a projector that cannot be read is none."""
    from app.models.library import model_at, projector_for, resolve_model
    from tests.gguf_files import build_gguf

    elsewhere = tmp_path / "Downloads"
    model = build_gguf(elsewhere / "tiny-vlm-Q8_0.gguf")
    other = build_gguf(elsewhere / "gemma-3-4b-it-Q4_K_M.gguf")
    ours = build_gguf(elsewhere / "mmproj-tiny-vlm-f16.gguf", arch="clip")
    gemma = build_gguf(elsewhere / "mmproj-gemma-3-4b-it-f16.gguf", arch="clip")
    (elsewhere / "mmproj-broken.gguf").write_bytes(b"not a projector")
    plain = build_gguf(tmp_path / "plain" / "text-only.gguf")

    assert projector_for(model) == ours and projector_for(other) == gemma
    assert model_at(model).projector == ours, "Open model file… in the window"
    assert resolve_model(str(model), []).projector == ours, "hearth chat --model PATH"
    added = list_models(None, added=[str(model), str(other), str(plain)], other_apps=False)
    by_name = {entry.path.name: entry for entry in added}
    assert by_name["tiny-vlm-Q8_0.gguf"].projector == ours, "a model added in Settings"
    assert by_name["gemma-3-4b-it-Q4_K_M.gguf"].projector == gemma
    assert by_name["text-only.gguf"].projector is None and model_at(plain).projector is None
    in_library = list_models(elsewhere, other_apps=False)
    assert {e.path.name: e.projector for e in in_library if e.source == "models_dir"} == {
        "tiny-vlm-Q8_0.gguf": ours,
        "gemma-3-4b-it-Q4_K_M.gguf": gemma,
    }
