"""One verified, resumable download (``app.packs.fetch``), against a real HTTP server on
127.0.0.1 and real files: cut, resumed, damaged, missing, silent, cancelled, local."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.packs import fetch as fetch_module
from app.packs.fetch import FetchCancelled, FetchError, Transfer, exclusive, fetch
from tests.conftest import kill_hard
from tests.file_server import FileServer

DATA = os.urandom(3 * fetch_module.CHUNK + 12345)  # several chunks, the last one short
SHA = hashlib.sha256(DATA).hexdigest()


@pytest.fixture
def server() -> Iterator[FileServer]:
    served = FileServer()
    served.files["pack.zip"] = DATA
    yield served
    served.close()


def _get(sources: list[str], target: Path, **kwargs: object) -> Path:
    return fetch(sources, target, sha256=SHA, size=len(DATA), **kwargs)  # type: ignore[arg-type]


def _part(target: Path) -> Path:
    return target.with_name(target.name + ".part")


def test_a_file_arrives_whole_with_progress_in_bytes_speed_and_time_left(
    server: FileServer, tmp_path: Path
) -> None:
    seen: list[Transfer] = []
    target = _get([server.url("pack.zip")], tmp_path / "pack.zip", on_progress=seen.append)
    assert target.read_bytes() == DATA
    assert not _part(target).exists()
    assert seen[-1] == Transfer(len(DATA), len(DATA), seen[-1].bytes_per_s, 0.0)
    assert seen[-1].bytes_per_s > 0
    assert all(t.total == len(DATA) for t in seen)
    assert [t.done for t in seen] == sorted(t.done for t in seen)


def test_a_cut_connection_is_resumed_where_it_stopped(server: FileServer, tmp_path: Path) -> None:
    server.fault("pack.zip", cut_after=fetch_module.CHUNK + 7)
    target = _get([server.url("pack.zip")], tmp_path / "pack.zip")
    assert target.read_bytes() == DATA
    ranges = [request.range for request in server.requests]
    assert ranges[0] == "" and ranges[1] == f"bytes={fetch_module.CHUNK + 7}-"


def test_a_server_that_ignores_range_starts_the_part_again(
    server: FileServer, tmp_path: Path
) -> None:
    server.fault("pack.zip", cut_after=1000, ignore_range=True)
    assert _get([server.url("pack.zip")], tmp_path / "pack.zip").read_bytes() == DATA


def test_a_download_killed_with_its_process_goes_on_in_the_next(
    server: FileServer, tmp_path: Path
) -> None:
    """Across processes: the part a killed download left is hashed and gone on from."""
    stall = server.fault("pack.zip", stall_after=2 * fetch_module.CHUNK)
    target = tmp_path / "pack.zip"
    script = (
        "import sys; from pathlib import Path; from app.packs.fetch import fetch; "
        f"fetch([{server.url('pack.zip')!r}], Path(sys.argv[1]), sha256={SHA!r}, size={len(DATA)})"
    )
    child = subprocess.Popen([sys.executable, "-c", script, str(target)], cwd=Path.cwd())
    try:
        while not (
            _part(target).exists() and _part(target).stat().st_size >= 2 * fetch_module.CHUNK
        ):
            assert child.poll() is None, "the download ended before it was killed"
            time.sleep(0.05)
    finally:
        kill_hard(child.pid)
        child.wait()
    stall.go.set()
    assert _get([server.url("pack.zip")], target).read_bytes() == DATA
    assert server.requests[-1].range == f"bytes={2 * fetch_module.CHUNK}-"


def _left(folder: Path) -> list[Path]:
    """What a fetch left in ``folder`` besides its lock file: that one stays, empty, on
    purpose (deleting it after the release would let two Hearths lock two files)."""
    return [p for p in folder.iterdir() if not p.name.endswith(".part.lock")]


def test_a_wrong_hash_is_refused_and_nothing_is_left(server: FileServer, tmp_path: Path) -> None:
    target = tmp_path / "downloads" / "pack.zip"
    with pytest.raises(FetchError) as caught:
        fetch([server.url("pack.zip")], target, sha256="0" * 64, size=len(DATA))
    assert "damaged" in str(caught.value) and "SHA-256" in str(caught.value)
    assert _left(target.parent) == []


def test_a_404_then_a_good_mirror(server: FileServer, tmp_path: Path) -> None:
    target = _get([server.url("missing.zip"), server.url("pack.zip")], tmp_path / "pack.zip")
    assert target.read_bytes() == DATA
    assert server.paths() == ["missing.zip", "pack.zip"]


@pytest.mark.parametrize("status", [403, 404, 500, 503])
def test_when_every_source_fails_the_last_reason_is_said(
    server: FileServer, tmp_path: Path, status: int
) -> None:
    server.fault("other.zip", status=status)
    with pytest.raises(FetchError) as caught:
        _get([server.url("missing.zip"), server.url("other.zip")], tmp_path / "pack.zip")
    assert str(caught.value).startswith("pack.zip could not be downloaded: 127.0.0.1:")
    assert f"answered {status}" in str(caught.value)
    assert "Traceback" not in str(caught.value)


def test_a_silent_server_is_given_up_within_its_deadline(
    server: FileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fetch_module, "SILENCE_S", 1.0)
    server.fault("silent.zip", silent=True)
    target = _get([server.url("silent.zip"), server.url("pack.zip")], tmp_path / "pack.zip")
    assert target.read_bytes() == DATA
    with pytest.raises(FetchError, match=r"sent nothing for 1 s"):
        _get([server.url("silent.zip")], tmp_path / "other.zip")


def test_a_server_that_stops_mid_file_is_given_up_within_its_deadline(
    server: FileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fetch_module, "SILENCE_S", 1.0)
    server.fault("pack.zip", stall_after=1000)
    with pytest.raises(FetchError, match=r"sent nothing for 1 s"):
        _get([server.url("pack.zip")], tmp_path / "pack.zip")
    assert _part(tmp_path / "pack.zip").stat().st_size >= 1000  # kept for the next time


def test_cancel_keeps_the_part_and_the_next_call_resumes(
    server: FileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelled while the server is silent mid-file: at once, not after the deadline."""
    monkeypatch.setattr(fetch_module, "SILENCE_S", 120.0)
    stall = server.fault("pack.zip", stall_after=fetch_module.CHUNK)
    cancel = threading.Event()

    def progress(transfer: Transfer) -> None:
        if transfer.done >= fetch_module.CHUNK:
            cancel.set()

    target = tmp_path / "pack.zip"
    started = time.monotonic()
    with pytest.raises(FetchCancelled):
        _get([server.url("pack.zip")], target, on_progress=progress, cancel=cancel)
    assert time.monotonic() - started < fetch_module.SILENCE_S / 2  # not the silence's end
    kept = _part(target).stat().st_size
    assert kept >= fetch_module.CHUNK and not target.exists()
    stall.go.set()
    assert _get([server.url("pack.zip")], target).read_bytes() == DATA
    assert server.requests[-1].range == f"bytes={kept}-"


def test_a_local_file_or_file_url_is_a_source(tmp_path: Path) -> None:
    local = tmp_path / "mirror" / "pack.zip"
    local.parent.mkdir()
    local.write_bytes(DATA)
    assert _get([str(local)], tmp_path / "a" / "pack.zip").read_bytes() == DATA
    assert _get([local.as_uri()], tmp_path / "b" / "pack.zip").read_bytes() == DATA


def test_a_local_file_of_another_size_is_passed_over(server: FileServer, tmp_path: Path) -> None:
    short = tmp_path / "short.zip"
    short.write_bytes(DATA[:100])
    target = _get([str(short), server.url("pack.zip")], tmp_path / "pack.zip")
    assert target.read_bytes() == DATA
    with pytest.raises(FetchError, match=r"has 100 bytes, not the"):
        _get([str(short)], tmp_path / "other.zip")


def test_a_redirect_to_plain_http_is_refused(server: FileServer, tmp_path: Path) -> None:
    server.fault("moved.zip", redirect=server.url("pack.zip"))
    with pytest.raises(FetchError, match=r"which is not https"):
        _get([server.url("moved.zip")], tmp_path / "pack.zip")


def test_a_disk_too_small_is_said_before_the_first_byte(server: FileServer, tmp_path: Path) -> None:
    target = tmp_path / "downloads" / "huge.zip"
    with pytest.raises(FetchError, match=r"not enough free disk space for huge.zip"):
        fetch([server.url("pack.zip")], target, sha256=SHA, size=10**18)
    assert server.requests == [] and _left(target.parent) == []


@pytest.mark.linux_only("/dev/full stands for a disk that fills up")
def test_a_disk_that_fills_up_keeps_the_part(server: FileServer, tmp_path: Path) -> None:
    target = tmp_path / "pack.zip"
    _part(target).symlink_to("/dev/full")
    with pytest.raises(FetchError, match=r"The disk is full"):
        _get([server.url("pack.zip")], target)
    assert _part(target).is_symlink() and not target.exists()


def test_a_second_download_of_the_same_file_is_refused(server: FileServer, tmp_path: Path) -> None:
    target = tmp_path / "pack.zip"
    lock = target.with_name("pack.zip.part.lock")
    with exclusive(lock, "busy"), pytest.raises(FetchError, match=r"Another download of pack.zip"):
        _get([server.url("pack.zip")], target)
    assert _get([server.url("pack.zip")], target).read_bytes() == DATA


def test_a_file_already_in_place_is_not_fetched_again(server: FileServer, tmp_path: Path) -> None:
    target = tmp_path / "pack.zip"
    target.write_bytes(DATA)
    assert _get([server.url("pack.zip")], target) == target
    assert server.requests == []


def test_the_speed_is_the_recent_rate_and_falls_to_nothing_in_a_stall(
    server: FileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fetch_module, "SPEED_WINDOW_S", 0.5)
    server.fault("pack.zip", stall_after=fetch_module.CHUNK)
    cancel = threading.Event()
    seen: list[Transfer] = []

    def progress(transfer: Transfer) -> None:
        seen.append(transfer)
        if transfer.done >= fetch_module.CHUNK and transfer.bytes_per_s == 0:
            cancel.set()  # the stall is shown: stop

    with pytest.raises(FetchCancelled):
        _get([server.url("pack.zip")], tmp_path / "pack.zip", on_progress=progress, cancel=cancel)
    assert seen[-1].done == fetch_module.CHUNK and seen[-1].seconds_left is None
