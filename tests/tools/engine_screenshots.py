"""Settings › Engines during an install of the PyTorch engine, for ``screen_screenshots``:
the progress (bytes, speed, time left), Cancel and why the other actions wait, over the
list of engines.  The install is the real one, from small wheels made here (a torch of 40
MB that does not compress) served on 127.0.0.1 at a steady 6 MB/s, as on a slow line;
the lock file the engine reads is pointed at them, as the tests of the Engines page do.
It is cancelled once the picture is taken (the download kept, as the page says)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from app.packs import engine_list, pytorch_engine, pytorch_lock
from tests.file_server import FileServer
from tests.test_pytorch_engine import FAKE_TORCH, engine_wheels, lock_for, wheel
from tests.tools.screenshot import settle
from ui.main_window import MainWindow
from wire.platforms import wheel_platform

VERSION = "2.13.0+cpu"
RATE = 6_000_000  # bytes a second


@contextmanager
def offered_engine() -> Iterator[FileServer]:
    """The installed app's case: no torch of its own, the lock naming wheels served here."""
    server = FileServer()
    saved = pytorch_lock.lock_file, pytorch_engine.torch_here
    with tempfile.TemporaryDirectory(prefix="hearth-shot-wheels-") as scratch:
        folder = Path(scratch)
        wheels = engine_wheels(folder, VERSION)
        files = {
            "torch/__init__.py": FAKE_TORCH.format(version=VERSION).encode(),
            "torch/lib/libtorch_cpu.so": os.urandom(40_000_000),
        }
        wheels[0] = wheel(folder, "torch", VERSION, files)
        lock = lock_for(wheels, server)
        server.fault(f"whl/cpu/{wheels[0].name}", bytes_per_s=RATE)
        offered = lock["platforms"][wheel_platform()]
        offered["cuda"] = {**offered["cpu"], "needs": {"cuda": "13.0", "driver": "580"}}
        (folder / "lock.json").write_text(json.dumps(lock), encoding="utf-8")
        pytorch_lock.lock_file = lambda: folder / "lock.json"
        pytorch_engine.torch_here = lambda: False
        try:
            yield server
        finally:
            pytorch_lock.lock_file, pytorch_engine.torch_here = saved
            server.close()


def shoot_engines(
    window: MainWindow, folder: Path, suffix: str, grab: Callable[[Path], None]
) -> None:
    """Settings › Engines, a third of the way through downloading the PyTorch engine."""
    from ui.engines.engines_panel import EnginesPanel
    from ui.settings.dialog import SettingsDialog

    with offered_engine():
        window.open_settings("engines")
        settle(lambda: any(d.isVisible() for d in window.findChildren(SettingsDialog)))
        dialog = next(d for d in window.findChildren(SettingsDialog) if d.isVisible())
        panel = dialog.engines_panel
        assert isinstance(panel, EnginesPanel)
        settle(lambda: "pytorch" in panel.rows, 120)
        panel.rows["pytorch"].buttons[engine_list.INSTALL].click()
        assert panel.variant_dialog is not None
        panel.variant_dialog.install_button.click()
        job = panel.job
        assert job is not None

        def a_third() -> bool:
            last = job.last
            return last is not None and last.bytes_per_s > 0 and last.done > 0.3 * last.total

        settle(a_third, 60)
        grab(folder / f"small-engines-install{suffix}.png")
        panel.cancel()
        settle(lambda: panel.job is None, 60)
        dialog.reject()
        settle(lambda: True)
