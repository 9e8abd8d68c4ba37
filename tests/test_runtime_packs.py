"""llama.cpp runtime packs (``app/packs/runtime_packs.py``), served from a real HTTP server
on 127.0.0.1 and built by ``packaging/llama/make-pack.py`` from a CPU runtime made like
``packaging/llama/unpack_runtime.py`` makes one from a wheel (the installed llama.cpp's
libraries), so that the probe of an installed pack really runs here."""

from __future__ import annotations

import json
import platform
import shutil
import stat
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from app.machine.hardware import CpuFacts, SystemFacts
from app.packs import fetch as fetch_module
from app.packs import runtime_packs
from app.packs.fetch import sha256_of
from app.packs.pack_manifest import (
    MANIFEST_NAME,
    PackCancelled,
    PackError,
    archive_mirrors,
    load_manifest,
    manifest_sources,
)
from app.packs.runtime_packs import (
    AVAILABLE,
    INSTALLED,
    MISSING,
    install_pack,
    pack_rows,
    remove_pack,
    rollback_pack,
)
from backends import runtimes
from tests.conftest import REPO, recorded_machine, run_hearth
from tests.file_server import FileServer
from tests.runtime_pack_builds import make_pack, make_runtime, the_pack

pytestmark = pytest.mark.slow

RESOURCES = REPO / "resources"
NAME = "cpu-pack"


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, object], Path]:
    """A good pack: its manifest and the folder that holds its archive."""
    root = tmp_path_factory.mktemp("good-pack")
    manifest = make_pack(make_runtime(root / "runtime"), root / "out")
    return manifest, root / "out"


@pytest.fixture
def server() -> Iterator[FileServer]:
    served = FileServer()
    yield served
    served.close()


def serve(server: FileServer, manifest: dict[str, object], folder: Path, under: str = "") -> str:
    """``manifest`` and its archives served under ``under``; the folder's address."""
    server.files[f"{under}{MANIFEST_NAME}"] = json.dumps(manifest).encode()
    for pack in manifest["packs"]:  # type: ignore[attr-defined]
        name = pack["archive"]["name"]
        server.files[f"{under}{name}"] = (folder / name).read_bytes()
    return server.url(under) if under else server.url("")


def here() -> SystemFacts:
    """This computer's system and processor, and no NVIDIA GPU."""
    return SystemFacts(
        os=f"{platform.system()} (test)", cpu=CpuFacts(architecture=platform.machine())
    )


def install(folder_url: str, data_dir: Path, **kwargs: object) -> Path:
    manifest = load_manifest([folder_url])
    return install_pack(NAME, data_dir, here(), manifest, **kwargs)  # type: ignore[arg-type]


def row(
    data_dir: Path, name: str = NAME, facts: SystemFacts | None = None
) -> runtime_packs.PackRow:
    rows = pack_rows(facts or here(), data_dir, resources=RESOURCES)
    return next(r for r in rows if r.name == name)


def archive_requests(server: FileServer) -> list[str]:
    return [path for path in server.paths() if path.endswith(".zip")]


def nothing_installed(data_dir: Path) -> None:
    runtimes_dir = data_dir / "runtimes"
    assert not (runtimes_dir / NAME).exists()
    leftovers = sorted(p.name for p in (runtimes_dir / ".packs").glob("*") if p.is_dir())
    assert leftovers in ([], ["downloads"]), leftovers


# -- installing ------------------------------------------------------------------------
def test_a_good_pack_is_installed_probed_and_found_where_runtimes_are(
    good: tuple[dict[str, object], Path],
    server: FileServer,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stages: list[str] = []
    folder = install(serve(server, *good), data_dir, on_stage=stages.append)
    assert folder == data_dir / "runtimes" / NAME
    for file in the_pack(good[0])["files"]:  # type: ignore[attr-defined]
        assert sha256_of(folder / file["path"]).hexdigest() == file["sha256"]
    assert [s.split(" ")[0] for s in stages] == ["Downloading", "Checking", "Checking"]
    assert not list((data_dir / "runtimes" / ".packs" / "downloads").glob("*.zip"))
    installed = row(data_dir)
    assert (installed.state, installed.usable, installed.installed_version) == (
        INSTALLED,
        True,
        runtime_packs.llama_version(),
    )
    assert installed.installed_size > 0 and not installed.can_roll_back
    listed = json.loads(json.dumps(installed.as_json()))
    assert (listed["installed"], listed["usable"], listed["reason"]) == (True, True, "")
    monkeypatch.setenv(runtimes.RUNTIMES_ENV, str(data_dir / "runtimes"))
    found = {runtime.name: runtime for runtime in runtimes.discover()}
    assert found[NAME].kind == "cpu"
    usable, reason, _ = runtimes.assess(found[NAME], runtime_packs.llama_version())
    assert usable, reason


def test_a_reply_runs_on_an_installed_pack_of_a_data_folder_chosen_by_flag(
    good: tuple[dict[str, object], Path], server: FileServer, tmp_path: Path
) -> None:
    """The workers find the data folder's packs however the folder was chosen (here
    ``--data-dir``, with no HEARTH_DATA_DIR), and a reply runs on the pack."""
    chosen = tmp_path / "chosen-data"
    install(serve(server, *good), chosen)
    result = run_hearth(
        "--data-dir",
        str(chosen),
        "chat",
        "--json",
        "--max-tokens",
        "4",
        "--temperature",
        "0",
        "--runtime",
        NAME,
        "Hi",
        unset=("HEARTH_DATA_DIR",),
    )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert next(e for e in events if e["type"] == "stats")["runtime"] == NAME


def test_a_tampered_file_is_refused_and_nothing_is_installed(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path, tmp_path: Path
) -> None:
    """The archive is whole (its own hash matches) but a library in it is not the one the
    manifest lists."""
    runtime = make_runtime(tmp_path / "runtime")
    library = next(p for p in runtime.iterdir() if "llama" in p.name)
    data = library.read_bytes()
    library.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
    tampered = make_pack(runtime, tmp_path / "out")
    manifest = json.loads(json.dumps(good[0]))
    manifest["packs"][0]["archive"] = the_pack(tampered)["archive"]
    with pytest.raises(PackError, match=rf"damaged \({library.name} is not the file its list"):
        install(serve(server, manifest, tmp_path / "out"), data_dir)
    nothing_installed(data_dir)
    assert NAME not in rows_on(here(), data_dir)  # neither installed nor in a list read


def test_a_truncated_archive_is_refused(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path, tmp_path: Path
) -> None:
    manifest, folder = good
    url = serve(server, manifest, folder)
    archive = the_pack(manifest)["archive"]["name"]  # type: ignore[index]
    whole = server.files[archive]
    server.files[archive] = whole[: len(whole) // 2]  # served short of what the list says
    with pytest.raises(PackError, match=r"could not be downloaded: the file at .* is shorter"):
        install(url, data_dir)
    nothing_installed(data_dir)
    # Listed as what it is (its own hash and size), it is still no archive: refused too.
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / archive).write_bytes(whole[: len(whole) // 2])
    listed = json.loads(json.dumps(manifest))
    listed["packs"][0]["archive"].update(
        size=len(whole) // 2, sha256=sha256_of(cut / archive).hexdigest()
    )
    (cut / MANIFEST_NAME).write_text(json.dumps(listed))
    with pytest.raises(PackError, match=r"damaged \(its archive cannot be read"):
        install(str(cut), data_dir)
    nothing_installed(data_dir)


def test_an_archive_with_more_than_its_list_or_a_link_is_refused(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path, tmp_path: Path
) -> None:
    manifest, folder = good
    archive_name = the_pack(manifest)["archive"]["name"]  # type: ignore[index]
    for extra, said in (
        (zipfile.ZipInfo("stowaway.so"), r"its archive holds stowaway.so, which its list lacks"),
        (zipfile.ZipInfo("runtime.json"), r"runtime.json is a link"),
    ):
        out = tmp_path / extra.filename
        out.mkdir()
        with (
            zipfile.ZipFile(folder / archive_name) as source,
            zipfile.ZipFile(out / archive_name, "w") as target,
        ):
            for info in source.infolist():
                if info.filename != extra.filename:
                    target.writestr(info, source.read(info))
            if extra.filename == "runtime.json":  # the label, as a link to it
                extra.external_attr = (stat.S_IFLNK | 0o777) << 16
                target.writestr(extra, source.read("runtime.json"))
            else:
                target.writestr(extra, b"more")
        listed = json.loads(json.dumps(manifest))
        listed["packs"][0]["archive"].update(
            size=(out / archive_name).stat().st_size,
            sha256=sha256_of(out / archive_name).hexdigest(),
        )
        (out / MANIFEST_NAME).write_text(json.dumps(listed))
        with pytest.raises(PackError, match=said):
            install(str(out), data_dir)
        nothing_installed(data_dir)


def test_a_file_larger_than_its_list_says_is_not_written_past_it(
    good: tuple[dict[str, object], Path], data_dir: Path, tmp_path: Path
) -> None:
    manifest, folder = good
    listed = json.loads(json.dumps(manifest))
    listed["packs"][0]["files"][0]["size"] = 10
    (tmp_path / MANIFEST_NAME).write_text(json.dumps(listed))
    archive_name = listed["packs"][0]["archive"]["name"]
    shutil.copyfile(folder / archive_name, tmp_path / archive_name)
    with pytest.raises(PackError, match=r"is not the file its list names"):
        install(str(tmp_path), data_dir)
    nothing_installed(data_dir)


def test_a_pack_that_does_not_describe_itself_as_its_list_is_refused(
    server: FileServer, data_dir: Path, tmp_path: Path
) -> None:
    manifest = make_pack(make_runtime(tmp_path / "rt", NAME, "vulkan"), tmp_path / "out")
    the_pack(manifest)["kind"] = "cpu"
    with pytest.raises(PackError, match=r"does not describe itself as its list does"):
        install(serve(server, manifest, tmp_path / "out"), data_dir)
    nothing_installed(data_dir)


def test_a_disk_without_room_for_the_pack_is_said_before_download(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path
) -> None:
    manifest = json.loads(json.dumps(good[0]))
    manifest["packs"][0]["files"][0]["size"] = 10**18
    with pytest.raises(PackError, match=r"not enough free disk space for the cpu-pack pack"):
        install(serve(server, manifest, good[1]), data_dir)
    assert archive_requests(server) == []


def test_a_list_naming_a_path_out_of_the_pack_is_refused(
    good: tuple[dict[str, object], Path], server: FileServer
) -> None:
    manifest = json.loads(json.dumps(good[0]))
    manifest["packs"][0]["files"][0]["path"] = "../../outside.so"
    with pytest.raises(PackError, match=r"'\.\./\.\./outside\.so' is not a path inside a pack"):
        load_manifest([serve(server, manifest, good[1])])


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("llama_cpp_python", "0.0.1", r"built for llama-cpp-python 0\.0\.1, but this Hearth has"),
        ("os", "plan9", r"built for plan9 .*, not for this computer"),
    ],
)
def test_a_pack_for_another_llama_cpp_or_system_is_refused_before_download(
    good: tuple[dict[str, object], Path],
    server: FileServer,
    data_dir: Path,
    field: str,
    value: str,
    said: str,
) -> None:
    manifest = json.loads(json.dumps(good[0]))
    manifest["packs"][0][field] = value
    with pytest.raises(PackError, match=said):
        install(serve(server, manifest, good[1]), data_dir)
    assert archive_requests(server) == []
    nothing_installed(data_dir)


def test_a_pack_that_cannot_run_here_is_refused_before_download_unless_forced(
    server: FileServer, data_dir: Path, tmp_path: Path
) -> None:
    """A CUDA pack (here: a CPU build labelled cuda) on a machine without an NVIDIA GPU:
    refused by the facts; forced, downloaded and refused by its probe."""
    manifest = make_pack(
        make_runtime(tmp_path / "rt", "cuda-12", "cuda"), tmp_path / "out", "cuda-12"
    )
    url = serve(server, manifest, tmp_path / "out")
    with pytest.raises(PackError, match=r"cannot run here: no NVIDIA GPU\. Nothing was"):
        install_pack("cuda-12", data_dir, here(), load_manifest([url]))
    assert archive_requests(server) == []
    with pytest.raises(PackError, match=r"did not pass its check \(no cuda GPU was found"):
        install_pack("cuda-12", data_dir, here(), load_manifest([url]), force=True)
    assert not (data_dir / "runtimes" / "cuda-12").exists()


def test_a_mirror_that_answers_404_then_the_original(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path
) -> None:
    """The list always from the release page; the pack from the mirror when it has it,
    else from the release page."""
    original = serve(server, *good, under="release/")
    mirror = server.url("mirror/")
    install_pack(NAME, data_dir, here(), load_manifest([original], [mirror]))
    assert [p.split("/")[0] for p in server.paths()] == ["release", "mirror", "release"]
    remove_pack(NAME, data_dir)
    server.requests.clear()
    serve(server, *good, under="mirror/")
    install_pack(NAME, data_dir, here(), load_manifest([original], [mirror]))
    assert [p.split("/")[0] for p in server.paths()] == ["release", "mirror"]
    assert row(data_dir).state == INSTALLED


def test_a_mirror_cannot_change_the_list(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path
) -> None:
    """A mirror's own list (other hashes, another pack) is never read: the list's place
    decides what is installed."""
    original = serve(server, *good, under="release/")
    server.files[f"mirror/{MANIFEST_NAME}"] = b'{"format": 1, "packs": []}'
    manifest = load_manifest([original], [server.url("mirror/")])
    assert [p.name for p in manifest.packs] == [NAME]
    assert f"mirror/{MANIFEST_NAME}" not in server.paths()


def test_a_list_over_plain_http_from_another_computer_is_refused() -> None:
    with pytest.raises(PackError, match=r"plain http address; a list of packs is read only over"):
        load_manifest(["http://packs.example/hearth-runtime-packs.json"])


def test_a_hanging_mirror_is_given_up_within_its_deadline(
    good: tuple[dict[str, object], Path],
    server: FileServer,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fetch_module, "SILENCE_S", 1.0)
    original = serve(server, *good, under="release/")
    serve(server, *good, under="mirror/")
    archive = the_pack(good[0])["archive"]["name"]  # type: ignore[index]
    server.fault(f"mirror/{archive}", silent=True)
    install_pack(NAME, data_dir, here(), load_manifest([original], [server.url("mirror/")]))
    assert archive_requests(server) == [f"mirror/{archive}", f"release/{archive}"]


def test_cancel_installs_nothing_and_the_next_install_goes_on(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path
) -> None:
    url = serve(server, *good)
    archive = the_pack(good[0])["archive"]["name"]  # type: ignore[index]
    stall = server.fault(archive, stall_after=1000)
    cancel = threading.Event()
    with pytest.raises(PackCancelled):
        install(url, data_dir, cancel=cancel, on_progress=lambda t: cancel.set())
    nothing_installed(data_dir)
    listed = pack_rows(here(), data_dir, load_manifest([url]), RESOURCES)
    kept = next(r for r in listed if r.name == NAME).kept
    assert kept > 0, "the page offers to delete what was downloaded"
    stall.go.set()
    install(url, data_dir)
    assert server.requests[-1].range.startswith("bytes=")


# -- one at a time, rollback, removal ----------------------------------------------------
def test_a_second_install_while_one_runs_is_refused_in_words(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path
) -> None:
    url = serve(server, *good)
    archive = the_pack(good[0])["archive"]["name"]  # type: ignore[index]
    stall = server.fault(archive, stall_after=1000)
    first: list[object] = []
    runner = threading.Thread(target=lambda: first.append(install(url, data_dir)))
    runner.start()
    try:
        part = data_dir / "runtimes" / ".packs" / "downloads" / f"{archive}.part"
        while not part.exists():
            assert runner.is_alive()
            time.sleep(0.05)
        with pytest.raises(PackError, match=r"Another runtime pack is being installed"):
            install(url, data_dir)
        with pytest.raises(PackError, match=r"Another runtime pack"):
            remove_pack(NAME, data_dir)
    finally:
        stall.go.set()
        runner.join()
    assert first == [data_dir / "runtimes" / NAME]


def test_a_failed_probe_keeps_the_previous_pack_current(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path, tmp_path: Path
) -> None:
    install(serve(server, *good), data_dir)
    before = sha256_of(data_dir / "runtimes" / NAME / "runtime.json").hexdigest()
    broken = make_runtime(tmp_path / "broken")
    for library in broken.iterdir():
        if library.name != "runtime.json":
            library.write_bytes(b"not a shared library")
    manifest = make_pack(broken, tmp_path / "out")
    with pytest.raises(PackError, match=r"did not pass its check .*; what was installed before"):
        install(serve(server, manifest, tmp_path / "out"), data_dir)
    current = data_dir / "runtimes" / NAME
    assert sha256_of(current / "runtime.json").hexdigest() == before
    assert all(p.read_bytes()[:4] != b"not " for p in current.iterdir())
    assert row(data_dir).state == INSTALLED and not row(data_dir).can_roll_back
    assert not (data_dir / "runtimes" / ".packs" / f"{NAME}.staging").exists()


def test_rollback_brings_the_previous_pack_back_and_again_the_newer(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path, tmp_path: Path
) -> None:
    install(serve(server, *good), data_dir)
    newer = make_runtime(tmp_path / "newer")
    (newer / "NOTICE.txt").write_text("the newer pack")
    install(serve(server, make_pack(newer, tmp_path / "out"), tmp_path / "out"), data_dir)
    current = data_dir / "runtimes" / NAME
    assert (current / "NOTICE.txt").exists() and row(data_dir).can_roll_back
    rollback_pack(NAME, data_dir)
    assert not (current / "NOTICE.txt").exists() and row(data_dir).can_roll_back
    rollback_pack(NAME, data_dir)
    assert (current / "NOTICE.txt").exists()
    remove_pack(NAME, data_dir)
    with pytest.raises(PackError, match=r"There is no earlier cpu-pack pack to go back to"):
        rollback_pack(NAME, data_dir)


def test_remove_frees_the_disk(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path
) -> None:
    install(serve(server, *good), data_dir)
    install(serve(server, *good), data_dir)  # the same again: a previous version is kept
    runtimes_dir = data_dir / "runtimes"
    used = sum(p.stat().st_size for p in runtimes_dir.rglob("*") if p.is_file())
    freed = remove_pack(NAME, data_dir)
    left = sum(p.stat().st_size for p in runtimes_dir.rglob("*") if p.is_file())
    assert freed > 2 * the_pack(good[0])["archive"]["size"]  # type: ignore[index]
    assert left < 10_000 and freed > used - 10_000  # what is left: the small state file
    assert NAME not in rows_on(here(), data_dir)
    with pytest.raises(PackError, match=r"No runtime pack called cpu-pack is installed"):
        remove_pack(NAME, data_dir)


def test_a_pack_folder_removed_by_hand_is_reported(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path
) -> None:
    install(serve(server, *good), data_dir)
    shutil.rmtree(data_dir / "runtimes" / NAME)
    missing = row(data_dir)
    assert (missing.state, missing.usable) == (MISSING, False)
    assert missing.why_not == "its folder was removed; install it again"
    remove_pack(NAME, data_dir)
    assert NAME not in rows_on(here(), data_dir)
    offered = pack_rows(here(), data_dir, load_manifest([serve(server, *good)]), RESOURCES)
    assert next(r for r in offered if r.name == NAME).state == AVAILABLE


def test_remove_and_rollback_touch_only_packs(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path, tmp_path: Path
) -> None:
    """A name that is not a pack's is refused before any path is made of it; a runtime
    folder a person put there under another name is not Hearth's to remove."""
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "thesis.txt").write_text("years of work")
    (data_dir / "runtimes").mkdir(parents=True)
    for name in ("../../precious", "..", ".packs", str(outside), "CUDA 12", ""):
        with pytest.raises(PackError, match=r"is not the name of a runtime pack"):
            remove_pack(name, data_dir)
        with pytest.raises(PackError, match=r"is not the name of a runtime pack"):
            rollback_pack(name, data_dir)
    mine = data_dir / "runtimes" / "mine"
    mine.mkdir()
    (mine / "runtime.json").write_text(json.dumps({"name": "someone-elses"}))
    with pytest.raises(PackError, match=r"No runtime pack called mine is installed"):
        remove_pack("mine", data_dir)
    assert (outside / "thesis.txt").read_text() == "years of work"
    assert (mine / "runtime.json").exists()


def test_a_cancel_during_the_check_installs_nothing(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path
) -> None:
    url = serve(server, *good)
    cancel = threading.Event()

    def stop_at_the_check(stage: str) -> None:
        if str(stage).startswith("Checking that"):
            cancel.set()

    with pytest.raises(PackCancelled, match=r"was cancelled"):
        install(url, data_dir, cancel=cancel, on_stage=stop_at_the_check)
    nothing_installed(data_dir)


def test_an_install_stopped_by_a_crash_leaves_nothing_behind_the_next(
    good: tuple[dict[str, object], Path], server: FileServer, data_dir: Path
) -> None:
    staging = data_dir / "runtimes" / ".packs" / f"{NAME}.staging"
    staging.mkdir(parents=True)
    (staging / "half-written.so").write_bytes(b"\0" * 1000)
    install(serve(server, *good), data_dir)
    assert not staging.exists() and row(data_dir).state == INSTALLED


# -- where the list comes from -----------------------------------------------------------
def test_a_local_folder_or_file_is_a_source(
    good: tuple[dict[str, object], Path], data_dir: Path
) -> None:
    manifest, folder = good
    (folder / MANIFEST_NAME).write_text(json.dumps(manifest))
    install(str(folder), data_dir)
    assert (
        load_manifest([(folder / MANIFEST_NAME).as_uri()]).packs
        == load_manifest([str(folder)]).packs
    )


def test_the_list_is_looked_for_where_the_setting_says_else_on_the_release_page(
    tmp_path: Path,
) -> None:
    (tmp_path / "release.json").write_text(json.dumps({"repository": "hearth-app/hearth"}))
    [source] = manifest_sources("", tmp_path)
    assert source.startswith("https://github.com/hearth-app/hearth/releases/download/v")
    assert source.endswith(f"/{MANIFEST_NAME}")
    assert manifest_sources(" https://packs.example/list.json ", tmp_path) == [
        "https://packs.example/list.json"
    ]
    assert manifest_sources("", tmp_path / "none") == []
    assert archive_mirrors("https://mirror.example/hearth") == ["https://mirror.example/hearth/"]
    with pytest.raises(PackError, match=r"does not know where its runtime packs are published"):
        load_manifest([])


def test_the_settings_say_where_the_list_is(
    good: tuple[dict[str, object], Path], server: FileServer, tmp_path: Path
) -> None:
    from app.settings import Settings

    settings = Settings(tmp_path / "settings.json")
    settings.set("engine.packs_mirror", serve(server, *good, under="mirror/"))
    settings.set("engine.packs_manifest", serve(server, *good, under="release/"))
    manifest = runtime_packs.settings_manifest(settings, RESOURCES)
    assert [p.name for p in manifest.packs] == [NAME]
    assert manifest.folders == (server.url("mirror/"), server.url("release/"))


def test_a_damaged_list_is_refused_in_words(server: FileServer, tmp_path: Path) -> None:
    server.files[MANIFEST_NAME] = b'{"format": 1, "packs": [{"name": "../x"}]}'
    with pytest.raises(PackError, match=r"could not be read: the list at .* cannot be used"):
        load_manifest([server.url("")])


# -- the choice on recorded machines -----------------------------------------------------
def rows_on(facts: SystemFacts, data_dir: Path) -> dict[str, runtime_packs.PackRow]:
    return {r.name: r for r in pack_rows(facts, data_dir, resources=RESOURCES)}


def test_an_rtx_3060_with_driver_535_gets_cuda_12(data_dir: Path) -> None:
    rows = rows_on(recorded_machine("rtx3060"), data_dir)
    assert rows["cuda-12"].usable and rows["cuda-12"].recommended
    assert rows["cuda-13"].why_not == "the driver supports CUDA 12.2; this pack needs 13.0"
    assert not rows["cuda-13"].recommended
    old = recorded_machine("rtx3060")
    old.gpus[0].driver_version, old.gpus[0].cuda_driver_version = "520.61.05", "11.8"
    why = rows_on(old, data_dir)["cuda-12"].why_not
    assert why == "the driver supports CUDA 11.8; this pack needs 12.0"


def test_an_h200_gets_cuda_13_once_its_driver_runs_cuda_13(data_dir: Path) -> None:
    """As recorded (driver 570, CUDA 12.8) it gets CUDA 12's pack; with driver 580 CUDA 13's."""
    rows = rows_on(recorded_machine("h200"), data_dir)
    assert rows["cuda-12"].recommended
    assert rows["cuda-13"].why_not == "the driver supports CUDA 12.8; this pack needs 13.0"
    newer = recorded_machine("h200")
    newer.gpus[0].driver_version, newer.gpus[0].cuda_driver_version = "580.65.06", "13.0"
    rows = rows_on(newer, data_dir)
    assert rows["cuda-13"].recommended and rows["cuda-12"].usable


def test_a_laptop_and_an_m2_get_no_cuda_pack_and_say_why(data_dir: Path) -> None:
    for row_ in rows_on(recorded_machine("laptop"), data_dir).values():
        assert row_.why_not == "no NVIDIA GPU" and not row_.recommended
    for row_ in rows_on(recorded_machine("m2"), data_dir).values():
        assert row_.why_not.startswith("this pack is for Linux (x86_64); this computer is macOS")


@pytest.mark.parametrize(
    ("capability", "cuda", "said"),
    [
        ("5.0", "12.8", "the GPU (compute capability 5.0) is older than this pack's kernels"),
        ("8.9", "12.2", ""),  # 8.9's own kernels
        ("8.7", "12.8", ""),  # 8.6's run on 8.7
        ("12.1", "12.8", ""),  # 12.0's run on 12.1
        ("10.3", "12.8", "this pack has no kernels for the GPU (compute capability 10.3)"),
    ],
)
def test_a_gpu_needs_kernels_of_its_own_major(
    data_dir: Path, capability: str, cuda: str, said: str
) -> None:
    facts = recorded_machine("rtx3060")
    facts.gpus = [replace(facts.gpus[0], compute_capability=capability, cuda_driver_version=cuda)]
    assert rows_on(facts, data_dir)["cuda-12"].why_not == said


def test_ptx_needs_a_driver_of_the_packs_own_cuda(data_dir: Path) -> None:
    """A GPU newer than every kernel runs the PTX only on a driver that knows its CUDA."""
    facts = recorded_machine("rtx3060")
    gpu = replace(facts.gpus[0], compute_capability="13.0")
    facts.gpus = [replace(gpu, driver_version="575.51.03", cuda_driver_version="12.9")]
    assert rows_on(facts, data_dir)["cuda-12"].why_not == ""
    facts.gpus = [gpu]  # driver 535: CUDA 12.2, older than the pack's 12.8
    assert rows_on(facts, data_dir)["cuda-12"].why_not == (
        "the GPU (compute capability 13.0) needs this pack's PTX compiled by a driver that "
        "supports CUDA 12.8; the driver supports 12.2"
    )


def test_a_pack_that_names_no_kernels_is_left_to_its_probe() -> None:
    """A pack made from a build of one's own (the GPU check's) says nothing of its kernels."""
    from app.packs.pack_fit import why_not
    from app.packs.pack_manifest import Pack

    facts = recorded_machine("rtx3060")
    pack = Pack(name="gpu-check", kind="cuda", os="linux", arch="x86_64")
    assert why_not(pack, facts) == ""
    assert why_not(replace(pack, compute_capabilities=("7.5",)), facts) == (
        "this pack has no kernels for the GPU (compute capability 8.6)"
    )
