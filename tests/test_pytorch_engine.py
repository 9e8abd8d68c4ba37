"""The PyTorch engine added from inside the app: its lock file is the development
environment's, and an install fetches every wheel (from the places a person named, a
mirror, the original), verifies it, unpacks it, checks it in a child and only then makes
it current; a bad wheel, a mirror that fails, a second install, a cancel or a full disk
leave the engine as it was; rollback and remove.

The install is driven here with small wheels built in the test, named like the engine's
own (a "torch" with the few calls the check makes), served by a loopback server: every
step is the real one, in a few seconds.  The real torch is installed into the frozen app
by ``packaging/linux/test-dist.sh`` (CI) and on a GPU by ``packaging/gpu-check.sh``.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import json
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.errors import HearthError
from app.machine.hardware import GpuFacts
from app.packs import pytorch_engine
from app.packs.pytorch_lock import choose_variant, cuda_refusal, read_lock
from app.packs.wheel_sources import Places
from tests.file_server import FileServer
from wire.engine_overlay import installed_site, record_of
from wire.platforms import wheel_platform

FAKE_TORCH = """
__version__ = "{version}"
class version:
    cuda = None
class cuda:
    @staticmethod
    def is_available():
        return False
class backends:
    class mps:
        @staticmethod
        def is_available():
            return False
class _Sum:
    def __init__(self, value):
        self.value = value
    def item(self):
        return self.value
class _Tensor:
    def __init__(self, n):
        self.n = n
    def __matmul__(self, other):
        return _Product(self.n)
class _Product:
    def __init__(self, n):
        self.n = n
    def sum(self):
        return _Sum(float(self.n ** 3))
def ones(shape, device="cpu"):
    return _Tensor(shape[0])
"""


def wheel(folder: Path, name: str, version: str, files: dict[str, bytes]) -> Path:
    """A real wheel (a zip with its .dist-info) holding ``files``."""
    dist = f"{name}-{version}.dist-info"
    entries = dict(files)
    entries[f"{dist}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    )
    entries[f"{dist}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = []
    for path, data in entries.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    entries[f"{dist}/RECORD"] = ("\n".join(record) + f"\n{dist}/RECORD,,\n").encode()
    made = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(made, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in entries.items():
            archive.writestr(member, data)
    return made


@pytest.fixture
def server() -> Iterator[FileServer]:
    made = FileServer()
    yield made
    made.close()


def engine_wheels(folder: Path, torch_version: str = "2.13.0+cpu", padding: int = 0) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    torch_files = {"torch/__init__.py": FAKE_TORCH.format(version=torch_version).encode()}
    if padding:
        torch_files["torch/lib/weights.bin"] = b"\0" * padding  # much bigger unpacked
    return [
        wheel(folder, "torch", torch_version, torch_files),
        wheel(
            folder,
            "transformers",
            "5.25.0",
            {"transformers/__init__.py": b'__version__ = "5.25.0"\n'},
        ),
        wheel(
            folder, "accelerate", "1.16.0", {"accelerate/__init__.py": b'__version__ = "1.16.0"\n'}
        ),
    ]


def lock_for(wheels: list[Path], server: FileServer, folder: str = "whl/cpu") -> dict[str, Any]:
    """A lock naming ``wheels``, each served by ``server`` under ``folder``."""
    entries = []
    for path in wheels:
        data = path.read_bytes()
        server.files[f"{folder}/{path.name}"] = data
        name, version = path.name.split("-")[:2]
        entries.append(
            {
                "name": name,
                "version": version,
                "file": path.name,
                "url": server.url(f"{folder}/{path.name}"),
                "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            }
        )
    return {
        "lock_version": 1,
        "engine": "pytorch",
        "platforms": {wheel_platform(): {"cpu": {"needs": {}, "wheels": entries}}},
    }


def test_the_lock_is_the_development_environments_engine() -> None:
    """What people install is what the tests ran: the lock's torch, transformers and
    accelerate are this environment's, and the CPU torch is the one pip finds here."""
    lock = read_lock()
    for name in ("transformers", "accelerate"):
        assert lock[name] == importlib.metadata.version(name), name
    assert importlib.metadata.version("torch").startswith(lock["torch"])
    for platform, variants in lock["platforms"].items():
        for variant, chosen in variants.items():
            names = {w["name"] for w in chosen["wheels"]}
            assert {"torch", "transformers", "accelerate"} <= names, (platform, variant)
            assert all(w["sha256"] and w["size"] > 0 for w in chosen["wheels"])
    linux_cpu = lock["platforms"]["linux-x86_64"]["cpu"]["wheels"]
    torch = next(w for w in linux_cpu if w["name"] == "torch")
    assert torch["url"].startswith("https://download.pytorch.org/whl/cpu/")
    local = [Path(p) / torch["file"] for p in _pip_find_links()]
    for found in (p for p in local if p.is_file()):
        assert hashlib.sha256(found.read_bytes()).hexdigest() == torch["sha256"]


def _pip_find_links() -> list[str]:
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    )
    return [
        part.strip("'\" ")
        for line in listed.stdout.splitlines()
        if "find-links" in line
        for part in line.split("=", 1)[1].split()
    ]


def test_the_variant_follows_the_driver_and_says_why_not() -> None:
    lock = read_lock()
    rtx3060 = GpuFacts(name="RTX 3060", driver_version="535.183.01", cuda_driver_version="12.2")
    h200 = GpuFacts(name="H200", driver_version="580.65.06", cuda_driver_version="13.0")
    linux = "linux-x86_64"
    assert choose_variant(lock, [], linux) == "cpu"
    assert choose_variant(lock, [rtx3060], linux) == "cpu", "CUDA 13 needs driver 580"
    assert choose_variant(lock, [h200], linux) == "cuda"
    assert choose_variant(lock, [], "macos-arm64") == "mps"
    needs = lock["platforms"][linux]["cuda"]["needs"]
    assert str(cuda_refusal(needs, [rtx3060])) == (
        "the driver supports CUDA 12.2; this build needs 13.0 (NVIDIA's driver 580 or newer)"
    )
    assert "no NVIDIA GPU" in str(cuda_refusal(needs, []))


def test_an_install_fetches_verifies_checks_and_can_be_rolled_back_and_removed(
    tmp_path: Path, server: FileServer
) -> None:
    lock = lock_for(engine_wheels(tmp_path / "wheels"), server)
    seen: list[pytorch_engine.InstallProgress] = []
    record = pytorch_engine.install(tmp_path / "data", [], "cpu", None, seen.append, lock=lock)
    assert record["probe"]["torch"] == "2.13.0+cpu" and record["probe"]["matmul"] is True
    assert record["probe"]["torch_file"].startswith(str(tmp_path / "data")), "its own torch"
    site = installed_site(tmp_path / "data")
    assert site is not None and (site / "torch" / "__init__.py").is_file()
    assert (site / "torch-2.13.0+cpu.dist-info" / "METADATA").is_file()
    stages = [p.stage for p in seen]
    assert stages[0] == "download" and "unpack" in stages and stages[-1] == "check"
    downloads = [p for p in seen if p.stage == "download"]
    assert downloads[-1].done == downloads[-1].total == sum(w["size"] for w in _wheels(lock))
    assert not (tmp_path / "data" / "engines" / "pytorch" / "downloads").exists()
    row = pytorch_engine.status(tmp_path / "data", [], lock)
    assert (row.installed, row.usable, row.version, row.variant) == (
        True,
        True,
        "2.13.0+cpu",
        "cpu",
    )

    newer = lock_for(engine_wheels(tmp_path / "newer", "2.13.1+cpu"), server, "whl/newer")
    pytorch_engine.install(tmp_path / "data", [], "cpu", None, lock=newer)
    assert record_of(tmp_path / "data")["versions"]["torch"] == "2.13.1+cpu"
    back = pytorch_engine.rollback(tmp_path / "data")
    assert back["versions"]["torch"] == "2.13.0+cpu"
    again = installed_site(tmp_path / "data")
    assert again is not None and (again / "torch-2.13.0+cpu.dist-info").is_dir()

    freed = pytorch_engine.remove(tmp_path / "data")
    assert freed > 0 and not (tmp_path / "data" / "engines" / "pytorch").exists()
    after = pytorch_engine.status(tmp_path / "data", [], lock)
    assert after.variant == "" and after.built_in == pytorch_engine.torch_here(), "none added"
    with pytest.raises(HearthError, match="not installed"):
        pytorch_engine.remove(tmp_path / "data")


def _wheels(lock: dict[str, Any]) -> list[dict[str, Any]]:
    return list(lock["platforms"][wheel_platform()]["cpu"]["wheels"])


def test_a_tampered_wheel_is_refused_and_nothing_changes(
    tmp_path: Path, server: FileServer, expect_error_logs: None
) -> None:
    lock = lock_for(engine_wheels(tmp_path / "wheels"), server)
    pytorch_engine.install(tmp_path / "data", [], "cpu", None, lock=lock)
    before = record_of(tmp_path / "data")
    newer = lock_for(engine_wheels(tmp_path / "newer", "2.13.1+cpu"), server, "whl/newer")
    torch = next(w for w in _wheels(newer) if w["name"] == "torch")
    path = f"whl/newer/{torch['file']}"
    server.files[path] = server.files[path][:-10] + b"0123456789"  # same size, other bytes
    with pytest.raises(HearthError, match="was not installed") as refused:
        pytorch_engine.install(tmp_path / "data", [], "cpu", None, lock=newer)
    assert "SHA-256" in str(refused.value.message) or "damaged" in str(refused.value.message)
    assert record_of(tmp_path / "data") == before, "the engine as it was"
    assert installed_site(tmp_path / "data") is not None


def test_the_places_a_person_names_come_first_and_a_failing_mirror_is_passed_over(
    tmp_path: Path, server: FileServer
) -> None:
    wheels = engine_wheels(tmp_path / "wheels")
    lock = lock_for(wheels, server)
    local = tmp_path / "find-links"
    local.mkdir()
    torch = wheels[0]
    (local / torch.name).write_bytes(torch.read_bytes())
    # a simple index (PEP 503) for transformers, as --index-url names one
    index = "simple/transformers/"
    server.files[index] = (
        f'<a href="../../files/{wheels[1].name}#sha256=x">{wheels[1].name}</a>'.encode()
    )
    server.files[f"files/{wheels[1].name}"] = wheels[1].read_bytes()
    server.fault(f"mirror/{wheels[2].name}", status=404)
    places = Places(find_links=[str(local)], index_url=server.url("simple"))
    sources = places.sources(_wheel_of(lock, "torch"))
    assert sources[0] == str(local / torch.name), "the folder named first"
    assert places.sources(_wheel_of(lock, "transformers"))[0] == server.url(
        f"files/{wheels[1].name}"
    )
    pytorch_engine.install(tmp_path / "data", [], "cpu", places, lock=lock)
    fetched = server.paths()
    assert f"whl/cpu/{torch.name}" not in fetched, "torch came from the folder"
    assert f"files/{wheels[1].name}" in fetched and f"whl/cpu/{wheels[1].name}" not in fetched


def _wheel_of(lock: dict[str, Any], name: str) -> Any:
    from app.packs.pytorch_lock import engine_set

    return next(w for w in engine_set(lock, "cpu").wheels if w.name == name)


def test_a_second_install_at_once_is_refused_in_words(tmp_path: Path, server: FileServer) -> None:
    lock = lock_for(engine_wheels(tmp_path / "wheels"), server)
    torch = _wheels(lock)[0]
    stall = server.fault(f"whl/cpu/{torch['file']}", stall_after=10)
    first = threading.Thread(
        target=lambda: pytorch_engine.install(tmp_path / "data", [], "cpu", None, lock=lock)
    )
    first.start()
    try:
        _wait_for(lambda: any(r.path.endswith(torch["file"]) for r in server.requests))
        with pytest.raises(HearthError, match="already running"):
            pytorch_engine.install(tmp_path / "data", [], "cpu", None, lock=lock)
    finally:
        stall.go.set()
        first.join(120)
    assert installed_site(tmp_path / "data") is not None, "the first one finished"


def test_cancel_keeps_what_came_and_the_next_install_goes_on(
    tmp_path: Path, server: FileServer
) -> None:
    lock = lock_for(engine_wheels(tmp_path / "wheels", padding=2_000_000), server)
    torch = _wheels(lock)[0]
    stall = server.fault(f"whl/cpu/{torch['file']}", stall_after=1000)
    cancel = threading.Event()
    failed: list[BaseException] = []

    def installing() -> None:
        try:
            pytorch_engine.install(tmp_path / "data", [], "cpu", None, cancel=cancel, lock=lock)
        except BaseException as exc:  # noqa: BLE001 - looked at below
            failed.append(exc)

    worker = threading.Thread(target=installing)
    worker.start()
    _wait_for(lambda: any(r.path.endswith(torch["file"]) for r in server.requests))
    cancel.set()
    stall.go.set()
    worker.join(120)
    assert failed and isinstance(failed[0], pytorch_engine.InstallCancelled)
    assert "kept for the next try" in failed[0].message
    assert installed_site(tmp_path / "data") is None, "nothing installed"
    del server.faults[f"whl/cpu/{torch['file']}"]
    pytorch_engine.install(tmp_path / "data", [], "cpu", None, lock=lock)
    ranges = [r.range for r in server.requests if r.path.endswith(torch["file"])]
    assert ranges[-1].startswith("bytes=1000-") or ranges[-1].startswith("bytes="), ranges


@pytest.mark.posix_only("a file size limit (ulimit -f) stands for a full disk")
def test_a_disk_that_fills_while_unpacking_leaves_the_engine_as_it_was(
    tmp_path: Path, server: FileServer
) -> None:
    """In a process of its own whose files may not grow past 1 MB: the downloads fit,
    unpacking does not (OSError, as on a full disk); the staging folder goes, the engine
    installed before stays current, and the sentence says what to do."""
    small = lock_for(engine_wheels(tmp_path / "wheels"), server)
    pytorch_engine.install(tmp_path / "data", [], "cpu", None, lock=small)
    before = record_of(tmp_path / "data")
    big = lock_for(engine_wheels(tmp_path / "big", "2.13.1+cpu", padding=3_000_000), server, "big")
    (tmp_path / "lock.json").write_text(json.dumps(big), encoding="utf-8")
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from app.errors import HearthError\n"
        "from app.packs import pytorch_engine\n"
        "lock = json.loads(Path(sys.argv[2]).read_text())\n"
        "try:\n"
        "    pytorch_engine.install(Path(sys.argv[1]), [], 'cpu', None, lock=lock)\n"
        "except HearthError as exc:\n"
        "    print(exc.message)\n"
    )
    ran = subprocess.run(
        [
            "bash",
            "-c",
            'ulimit -f 1024 && exec "$@"',
            "-",
            sys.executable,
            "-c",
            script,
            str(tmp_path / "data"),
            str(tmp_path / "lock.json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert "unpacking it failed" in ran.stdout and "Free some disk space" in ran.stdout, ran
    assert record_of(tmp_path / "data") == before
    leftovers = list((tmp_path / "data" / "engines" / "pytorch").glob("*.staging"))
    assert leftovers == [], "the half-unpacked folder went"


def _wait_for(condition: Any, timeout: float = 60) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the state never came"
        time.sleep(0.05)


def test_a_folder_removed_by_hand_is_said_and_install_is_offered(
    tmp_path: Path, server: FileServer
) -> None:
    import shutil

    lock = lock_for(engine_wheels(tmp_path / "wheels"), server)
    record = pytorch_engine.install(tmp_path / "data", [], "cpu", None, lock=lock)
    shutil.rmtree(tmp_path / "data" / "engines" / "pytorch" / record["current"])
    row = pytorch_engine.status(tmp_path / "data", [], lock)
    assert row.installed and not row.usable
    assert "install it again (hearth engines install pytorch)" in row.reason
    assert installed_site(tmp_path / "data") is None, "no worker is pointed at it"


def test_the_check_runs_the_engine_in_a_child_and_refuses_a_broken_one(
    tmp_path: Path, server: FileServer, expect_error_logs: None
) -> None:
    folder = tmp_path / "wheels"
    folder.mkdir()
    broken = [
        wheel(
            folder,
            "torch",
            "2.13.0+cpu",
            {"torch/__init__.py": b"raise ImportError('libtorch_cpu.so: cannot open')\n"},
        ),
        *engine_wheels(tmp_path / "others")[1:],
    ]
    lock = lock_for(broken, server)
    with pytest.raises(HearthError, match="did not start on this computer") as refused:
        pytorch_engine.install(tmp_path / "data", [], "cpu", None, lock=lock)
    assert "libtorch_cpu.so" in refused.value.message
    assert installed_site(tmp_path / "data") is None
    assert not list((tmp_path / "data" / "engines" / "pytorch").glob("*.staging"))


def test_a_cuda_build_the_driver_cannot_run_is_refused_before_any_download(
    tmp_path: Path, server: FileServer
) -> None:
    lock = lock_for(engine_wheels(tmp_path / "wheels"), server)
    offered = lock["platforms"][wheel_platform()]
    offered["cuda"] = {**offered["cpu"], "needs": {"cuda": "13.0", "driver": "580"}}
    old_driver = GpuFacts(name="RTX 3060", driver_version="535.183.01", cuda_driver_version="12.2")
    refused = r"the driver supports CUDA 12\.2; this build needs 13\.0"
    with pytest.raises(HearthError, match=refused):
        pytorch_engine.install(tmp_path / "data", [old_driver], "cuda", None, lock=lock)
    assert server.requests == [], "nothing was downloaded"
