"""Hugging Face through its official client (``huggingface_hub``).

Search and file listing use ``HfApi``; a file's address and headers come from the client
(``hf_hub_url``, ``build_hf_headers``), and Hearth fetches it as several ranges at once
(``ranged.py``), which the client cannot resume across processes.  The endpoint is passed
explicitly (the client reads ``HF_ENDPOINT`` only once, at import), so a mirror chosen in
the settings applies at once.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from app.bounded_http import AnswerRefused, get_bounded
from app.errors import AccessDenied, HearthError
from app.hub.reachable import check_reachable
from app.hub.repo_files import RepoFile
from wire.phrases import Phrase, message_of

DEFAULT_ENDPOINT = "https://huggingface.co"
# A repository's listing (its files and their hashes): a large one is a few hundred KB.
LISTING_DEADLINE_S = 60.0
LISTING_MAX_BYTES = 32_000_000
SORTS = {"downloads": "downloads", "likes": "likes", "recent": "lastModified"}


# The hubs' tags of models that read pictures (Hugging Face's task, ModelScope's tags).
VISION_TAGS = frozenset(
    {"image-text-to-text", "visual-question-answering", "vision", "multimodal", "多模态"}
)


@dataclass(frozen=True)
class RepoSummary:
    repo_id: str
    downloads: int
    likes: int
    last_modified: str
    tags: tuple[str, ...]
    gated: bool

    @property
    def reads_images(self) -> bool:
        """The repository says its model reads pictures (its task or tags)."""
        return any(tag.lower() in VISION_TAGS for tag in self.tags)


def endpoint(configured: str = "") -> str:
    """The settings' endpoint, else ``HF_ENDPOINT``, else huggingface.co."""
    return (configured or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def _api(endpoint_url: str, token: str | None, anonymous: bool = False) -> Any:
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    from huggingface_hub import HfApi

    # token=False: not even the token of ``hf auth login`` or $HF_TOKEN is sent
    return HfApi(endpoint=endpoint_url, token=False if anonymous else token or None)


def search(
    text: str,
    *,
    kind: str = "gguf",
    sort: str = "downloads",
    limit: int = 50,
    endpoint_url: str = DEFAULT_ENDPOINT,
    token: str | None = None,
) -> list[RepoSummary]:
    """Search models; ``kind`` is 'gguf' or 'transformers' (text-generation checkpoints)."""
    check_reachable(endpoint_url, "Hugging Face")
    api = _api(endpoint_url, token)
    extra: dict[str, Any] = (
        {"filter": "gguf"}
        if kind == "gguf"
        else {"filter": "transformers", "pipeline_tag": "text-generation"}
    )
    try:
        found = api.list_models(
            search=text or None, sort=SORTS.get(sort, sort), limit=limit, **extra
        )
        return [
            RepoSummary(
                repo_id=m.id,
                downloads=int(m.downloads or 0),
                likes=int(m.likes or 0),
                last_modified=str(m.last_modified or m.created_at or ""),
                tags=tuple(m.tags or ()),
                gated=bool(m.gated),
            )
            for m in found
        ]
    except Exception as exc:
        raise translate_error(exc, text or "models") from exc


def list_files(
    repo_id: str,
    *,
    revision: str = "main",
    endpoint_url: str = DEFAULT_ENDPOINT,
    token: str | None = None,
    anonymous: bool = False,
) -> list[RepoFile]:
    """Every file of a repository with its size and hash, without downloading anything
    (``anonymous``: without any token, for requests that are not about the user's own
    access, such as the catalogue's check)."""
    check_reachable(endpoint_url, "Hugging Face")
    info = _model_info(repo_id, revision, endpoint_url, token, anonymous)
    files = []
    for sibling in info.siblings or []:
        lfs = sibling.lfs
        files.append(
            RepoFile(
                path=sibling.rfilename,
                size=int(sibling.size or (lfs.size if lfs else 0) or 0),
                sha256=(lfs.sha256 if lfs else "") or "",
                git_sha1="" if lfs else (sibling.blob_id or ""),
            )
        )
    return files


def _model_info(
    repo_id: str, revision: str, endpoint_url: str, token: str | None, anonymous: bool
) -> Any:
    """What ``HfApi.model_info(files_metadata=True)`` asks, read through the client's own
    session and headers but bounded (``app.bounded_http``): a hub that answers a byte a
    second, sends gigabytes or redirects elsewhere is refused in words, and an answer that
    is not a repository's description is "could not be read", not a KeyError's text."""
    _api(endpoint_url, token, anonymous)  # sets the client's environment
    from huggingface_hub.hf_api import ModelInfo
    from huggingface_hub.utils import (  # type: ignore[attr-defined]
        build_hf_headers,
        get_session,
        hf_raise_for_status,
    )

    url = f"{endpoint_url}/api/models/{repo_id}/revision/{quote(revision, safe='')}"
    headers = build_hf_headers(token=False if anonymous else token or None)
    try:
        answer = get_bounded(
            get_session(),
            url,
            deadline_s=LISTING_DEADLINE_S,
            max_bytes=LISTING_MAX_BYTES,
            headers=headers,
            params={"blobs": True},
        )
    except AnswerRefused as exc:
        raise HearthError(message_of(exc)) from None
    except Exception as exc:
        raise translate_error(exc, repo_id) from exc
    try:
        import httpx2  # the client's HTTP library: its errors read this response

        # The body was decoded as it was read: its encoding and length headers no longer
        # describe it (a gzip answer would be decoded twice).
        decoded = [
            (name, value)
            for name, value in answer.headers.items()
            if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")
        ]
        whole = httpx2.Response(
            answer.status, headers=decoded, content=answer.body, request=answer.request
        )
        hf_raise_for_status(whole)
    except Exception as exc:
        raise translate_error(exc, repo_id) from exc
    try:
        return ModelInfo(**json.loads(answer.body))  # type: ignore[no-untyped-call]
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise HearthError(
            Phrase("The hub's answer about {0} could not be read ({1}).", repo_id, answer.url)
        ) from exc


def refusal(status: int, what: str) -> HearthError:
    """The sentence for a file the hub refused (``ranged.FileAddress.refusal``)."""
    if status in (401, 403):
        return HubAccessError(
            f"{what} is gated or private: accept its terms on the hub, then give Hearth your "
            "access token (File › Hugging Face token…, or HF_TOKEN for the command line)."
        )
    return HubNotFound(f"{what} was not found on the hub.")


class HubAccessError(AccessDenied):
    """401/403: the repository is gated or private and needs a token."""


class HubNotFound(HearthError):
    pass


def translate_error(exc: BaseException, what: str) -> HearthError:
    """A hub client exception as a sentence saying what to do."""
    name = type(exc).__name__
    if name == "GatedRepoError" or (name == "HfHubHTTPError" and "401" in str(exc)):
        return refusal(401, what)
    if name in ("RepositoryNotFoundError",):
        return HubNotFound(f"{what} was not found on the hub (or it is private: add a token).")
    if name in ("EntryNotFoundError", "RemoteEntryNotFoundError", "RevisionNotFoundError"):
        return HubNotFound(f"{what} was not found on the hub.")
    if name in (
        "ConnectError",
        "ConnectTimeout",
        "LocalEntryNotFoundError",
        "OfflineModeIsEnabled",
    ):
        return HearthError(
            Phrase(
                "Hearth could not reach the hub for {0}: check the network or the hub "
                "address in the settings (a mirror may help).",
                what,
            )
        )
    return HearthError(Phrase("The hub request for {0} failed: {1}", what, exc))
