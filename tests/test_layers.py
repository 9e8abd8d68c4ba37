"""The rooms stay separate: checked statically and in a real UI process."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.tools import module_sizes, packaging_imports

UI_PROCESS = """
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
import app.cli, app.core, app.engine.host, app.serve.api_server, app.chat.store, hearth.launcher
import ui.gui, ui.main_window, hearth.selftest
from ui.gui import make_application
from ui.main_window import MainWindow
from app.core import open_core
application = make_application()
window = MainWindow(open_core(sys.argv[1]), load_on_start=False)
window.show()
application.processEvents()
heavy = sorted(m for m in ("torch", "transformers", "llama_cpp", "numpy") if m in sys.modules)
print(",".join(heavy))
"""


REPORT_HEAVY = (
    'print("HEAVY=" + ",".join(m for m in ("torch", "transformers", "llama_cpp")'
    " if m in sys.modules), flush=True)\n"
)

# hearth chat and hearth serve, run in this process as a user runs them (a real reply
# through the worker), then: which engine libraries did this process import?
CHAT_PROCESS = (
    """
import sys
from hearth.launcher import main
code = main(["chat", "--max-tokens", "4", "Say hi."])
"""
    + REPORT_HEAVY
    + "sys.exit(code)\n"
)

SERVE_PROCESS = (
    """
import os, sys, threading, time, httpx
from hearth.launcher import main
port = sys.argv[1]
server = threading.Thread(target=main, args=(["serve", "--port", port],), daemon=True)
server.start()
status = "the server ended before it answered"
while server.is_alive():  # until it answers (loading the model first), however long it takes
    try:
        reply = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            json={"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4},
            timeout=600,
        )
    except httpx.TransportError:
        time.sleep(0.1)
        continue
    status = str(reply.status_code)
    break
print(f"STATUS={status}")
"""
    + REPORT_HEAVY
    + "os._exit(0)\n"
)


def test_import_contracts_hold() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "importlinter.cli", "--no-cache"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    if result.returncode != 0:  # older import-linter exposes only the console script
        lint = REPO / ".venv" / "bin" / "lint-imports"
        result = subprocess.run(
            [str(lint), "--no-cache"], capture_output=True, text=True, cwd=REPO, check=False
        )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_module_imports_itself_through_others() -> None:
    """No import cycle anywhere, counting the imports made inside functions too."""
    import grimp

    rooms = ("app", "ui", "backends", "wire", "hearth")
    graph = grimp.build_graph(*rooms, cache_dir=None)
    cycles = []
    for module in sorted(m for room in rooms for m in graph.find_descendants(room)):
        for imported in graph.find_modules_directly_imported_by(module):
            chain = graph.find_shortest_chain(importer=imported, imported=module)
            if chain:
                cycles.append(" -> ".join((module, *chain)))
    assert cycles == []


def test_the_ui_process_never_imports_an_engine_library(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", UI_PROCESS, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


@pytest.mark.slow
def test_hearth_chat_and_serve_never_import_an_engine_library(data_dir: Path) -> None:
    from tests.conftest import free_port

    for script, args in ((CHAT_PROCESS, []), (SERVE_PROCESS, [str(free_port())])):
        result = subprocess.run(
            [sys.executable, "-c", script, *args],
            capture_output=True,
            text=True,
            cwd=REPO,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert "HEAVY=\n" in result.stdout, result.stdout
        assert script is CHAT_PROCESS or "STATUS=200\n" in result.stdout, result.stdout


def test_packaging_imports_only_what_it_may(tmp_path: Path) -> None:
    """``packaging/`` is no package import-linter can see: its scripts are read instead."""
    assert packaging_imports.illegal() == []
    (tmp_path / "packaging").mkdir()
    (tmp_path / "packaging" / "icons.py").write_text("def draw():\n    import httpx\n")
    assert packaging_imports.illegal(tmp_path) == ["packaging/icons.py:2 imports httpx"]


def test_no_module_passes_its_size(tmp_path: Path) -> None:
    """A module over 600 lines (the window over 400) is split by responsibility."""
    assert module_sizes.too_long() == []
    (tmp_path / "ui").mkdir()
    (tmp_path / "ui" / "main_window.py").write_text("pass\n" * 401)
    assert module_sizes.too_long(tmp_path) == ["ui/main_window.py: 401 lines (at most 400)"]
