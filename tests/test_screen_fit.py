"""Every screen and dialog fits a 1024×600 screen, at 1× and at 2× (a 2048×1200 panel).

Each case runs the real window in a process of its own (``tests/tools/fit_child.py``):
Qt's offscreen platform is told the screen's size and scale when it starts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def open_on_screen(tmp_path: Path, data: Path, width: int, height: int, scale: int) -> dict:
    """Run the window on a screen of ``width``×``height`` logical pixels at ``scale``."""
    config = tmp_path / f"screen-{width}x{height}@{scale}.json"
    config.write_text(
        json.dumps(
            {
                "screens": [
                    {
                        "name": "test",
                        "x": 0,
                        "y": 0,
                        "width": width,
                        "height": height,
                        "logicalDpi": 96,
                        "logicalBaseDpi": 96,
                        "dpr": scale,
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    output = tmp_path / f"fit-{width}x{height}@{scale}.json"
    # Qt splits the platform's arguments at every colon, a Windows drive's too: the file is
    # named relative to the child's folder, and the repository reached by PYTHONPATH.
    python_path = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": f"offscreen:configfile={config.relative_to(tmp_path)}",
        "HEARTH_DATA_DIR": str(data),
        "PYTHONPATH": python_path,
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.tools.fit_child", str(data), str(output)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict = json.loads(output.read_text(encoding="utf-8"))
    assert result["screen"] == [width, height] and result["scale"] == scale
    return result


@pytest.mark.parametrize("scale", [1, 2])
def test_every_screen_and_dialog_fits_1024_by_600(tmp_path: Path, scale: int) -> None:
    data = tmp_path / "data"
    data.mkdir()
    result = open_on_screen(tmp_path, data, 1024, 600, scale)
    assert result["problems"] == []
    assert result["unnamed"] == [], "every Tab stop of every screen and dialog has a name"
    checked = result["checked"]
    for place in (
        "screen Chat",
        "screen Models",
        "Settings › Advanced",
        "Model settings",
        "New collection",
    ):
        assert place in checked
    width, height = result["window"]
    assert width <= 1024 and height <= 600, "the first window is sized from the screen"
    assert "SmolLM2" in result["picker"], "the picker names the model"


def test_a_window_remembered_on_a_big_screen_fits_a_small_one(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    big = open_on_screen(tmp_path, data, 2560, 1440, 1)
    assert big["window"][0] > 1100, "a big screen gets a bigger first window"
    small = open_on_screen(tmp_path, data, 1024, 600, 1)
    assert small["problems"] == []
    assert small["window"][0] <= 1024 and small["window"][1] <= 600
