"""ModelScope through its official hub client (``modelscope_hub``, which never imports torch).

Search uses the OpenAPI listing, files come from the repository listing (with SHA-256 per
file), and the transfer is the client's own resumable download into a hidden staging
folder beside the target.  The finished file is then handed to Hearth's download manager,
which verifies it again and moves it into place like any other download, so the library
never shows a partial ModelScope file either.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import threading
from pathlib import Path
from typing import Any, BinaryIO

from app.bounded_http import AnswerRefused, within
from app.errors import AccessDenied, HearthError
from app.hub.huggingface import LISTING_DEADLINE_S, HubNotFound, RepoSummary
from app.hub.reachable import check_reachable
from app.hub.repo_files import RepoFile
from wire.phrases import Phrase, message_of

STAGING = ".hearth-modelscope"
SORTS = {"downloads": "downloads", "likes": "likes", "recent": "last_modified"}


def _api(endpoint_url: str, token: str | None, anonymous: bool = False) -> Any:
    from modelscope_hub import HubApi

    if anonymous:  # an empty token overrides a saved login and MODELSCOPE_API_TOKEN
        return HubApi(endpoint=endpoint_url, token="")
    return HubApi(endpoint=endpoint_url, token=token or None)


def search(
    text: str,
    *,
    sort: str = "downloads",
    limit: int = 50,
    endpoint_url: str,
    token: str | None = None,
) -> list[RepoSummary]:
    check_reachable(endpoint_url, "ModelScope")
    api = _api(endpoint_url, token)
    try:
        page = api.list_repos(
            "model", search=text or None, sort=SORTS.get(sort, sort), page_size=min(limit, 100)
        )
    except Exception as exc:
        raise translate_error(exc, text or "models") from exc
    found = []
    for info in page.items:
        repo_id = str(info.id) if info.id and "/" in str(info.id) else f"{info.owner}/{info.name}"
        found.append(
            RepoSummary(
                repo_id=repo_id,
                downloads=int(info.downloads or 0),
                likes=int(info.likes or 0),
                last_modified=str(info.last_modified or ""),
                tags=tuple(info.tags or ()),
                gated=bool(info.gated),
            )
        )
    return found


def list_files(
    repo_id: str,
    *,
    revision: str = "master",
    endpoint_url: str,
    token: str | None = None,
    anonymous: bool = False,
) -> list[RepoFile]:
    """Every file of a repository with its size (``anonymous``: without any token or saved
    login, for requests the user did not make about their own account)."""
    check_reachable(endpoint_url, "ModelScope")
    api = _api(endpoint_url, token, anonymous)
    try:
        # The client reads with a per-read timeout only: a hub that answers a byte at a
        # time cannot hold the catalogue's check past the listing's deadline.
        files = within(
            lambda: api.list_repo_files(repo_id, "model", revision=revision),
            LISTING_DEADLINE_S,
            endpoint_url,
        )
    except AnswerRefused as exc:
        raise HearthError(message_of(exc)) from None
    except Exception as exc:
        raise translate_error(exc, repo_id) from exc
    return [
        RepoFile(path=f.path, size=int(f.size or 0), sha256=str(f.sha256 or ""))
        for f in files
        if (f.type or "blob") == "blob"
    ]


def fetch(
    repo_id: str,
    path: str,
    target: BinaryIO,
    *,
    resume_from: int,
    expected_size: int | None,
    revision: str = "master",
    endpoint_url: str,
    token: str | None = None,
) -> None:
    """Let the ModelScope client fetch the file (it resumes its own partial file), then
    hand the bytes to ``target``, which hashes them and checks Pause and Cancel."""
    sink: Any = target
    item = sink.item
    # A folder of its own for each file: files of one repository download at once (a
    # vision model and its projector, a model's shards), and one that ends must not
    # remove another's partial file.
    shared = Path(item.target).parent / STAGING
    staging = shared / hashlib.sha256(path.encode()).hexdigest()[:16]
    staging.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    manager = sink.manager

    class Progress:
        """Called by the client for every chunk it receives."""

        def __init__(self, filename: str, file_size: int) -> None:
            self.filename, self.file_size = filename, file_size

        def update(self, size: int) -> None:
            item.received = min(item.received + size, item.size)
            if manager.control(item.id) != "downloading":
                stop.set()
            manager.changed(item)

        def end(self) -> None:
            pass

    api = _api(endpoint_url, token)
    try:
        staged = Path(
            api.downloader.download_file(
                repo_id,
                "model",
                path,
                revision=revision,
                local_dir=staging,
                expected_sha256=item.sha256 or None,
                file_size=expected_size,
                progress_callbacks=[Progress],
                _cancel_event=stop,
            )
        )
    except Exception as exc:
        control = manager.control(item.id)
        if control in ("paused", "cancelled"):
            from app.hub.downloads import DownloadCancelled, DownloadPaused

            if control == "cancelled":
                _remove(staging)
                raise DownloadCancelled from exc
            raise DownloadPaused from exc
        if _nothing_in(staging):  # a failure that left nothing to resume from
            _remove(staging)
        if isinstance(exc, OSError) and not type(exc).__module__.startswith("modelscope"):
            raise
        raise translate_error(exc, f"{repo_id}/{path}") from exc
    sink.adopt(staged)
    _remove(staging)


def _nothing_in(staging: Path) -> bool:
    files = [p for p in staging.rglob("*") if p.is_file()] if staging.is_dir() else []
    return not any(p.stat().st_size for p in files)


def _remove(staging: Path) -> None:
    """A file's staging folder, and the shared one once no other file stages there."""
    shutil.rmtree(staging, ignore_errors=True)
    with contextlib.suppress(OSError):
        staging.parent.rmdir()


def translate_error(exc: BaseException, what: str) -> HearthError:
    name = type(exc).__name__
    if name in ("AuthenticationError", "PermissionDeniedError", "PermissionError"):
        return AccessDenied(
            Phrase(
                "{0} needs a ModelScope access token: File › ModelScope token…, or "
                "MODELSCOPE_API_TOKEN for the command line.",
                what,
            )
        )
    if name in ("NotExistError", "NotFoundError"):
        return HubNotFound(Phrase("{0} was not found on ModelScope.", what))
    if name in ("NetworkError", "RequestTimeoutError", "ConnectionError"):
        return HearthError(
            Phrase(
                "Hearth could not reach ModelScope for {0}: check the network or the "
                "ModelScope address in the settings.",
                what,
            )
        )
    return HearthError(Phrase("The ModelScope request for {0} failed: {1}", what, exc))
