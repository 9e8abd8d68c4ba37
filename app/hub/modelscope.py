"""ModelScope through its official hub client (``modelscope_hub``, which never imports torch).

Search uses the OpenAPI listing, files come from the repository listing (with SHA-256 per
file).  A file is fetched by Hearth's own downloader, several ranges at once, from the
repository's file address (``sources.file_url``), like a Hugging Face file.
"""

from __future__ import annotations

from typing import Any

from app.bounded_http import AnswerRefused, within
from app.errors import AccessDenied, HearthError
from app.hub.huggingface import LISTING_DEADLINE_S, HubNotFound, RepoSummary
from app.hub.reachable import check_reachable
from app.hub.repo_files import RepoFile
from wire.phrases import Phrase, message_of

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


def refusal(status: int, what: str) -> HearthError:
    """The sentence for a file ModelScope refused (``ranged.FileAddress.refusal``)."""
    if status in (401, 403):
        return _needs_token(what)
    return HubNotFound(Phrase("{0} was not found on ModelScope.", what))


def _needs_token(what: str) -> AccessDenied:
    return AccessDenied(
        Phrase(
            "{0} needs a ModelScope access token: File › ModelScope token…, or "
            "MODELSCOPE_API_TOKEN for the command line.",
            what,
        )
    )


def translate_error(exc: BaseException, what: str) -> HearthError:
    name = type(exc).__name__
    if name in ("AuthenticationError", "PermissionDeniedError", "PermissionError"):
        return _needs_token(what)
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
