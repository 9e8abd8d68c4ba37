"""The hubs as Hearth uses them: endpoints from the settings, tokens from the keyring."""

from __future__ import annotations

import os
from pathlib import Path

from app.hub import huggingface
from app.hub.downloads import Download, DownloadManager, FileAddress, Locate
from app.hub.link import Link
from app.secrets import get_token
from app.settings import Settings

HF, MODELSCOPE = "hf", "modelscope"
SOURCES = (HF, MODELSCOPE)
MODELSCOPE_DEFAULT = "https://www.modelscope.cn"
HF_MIRROR = "https://hf-mirror.com"  # offered on a Chinese locale


def hf_endpoint(settings: Settings) -> str:
    return huggingface.endpoint(str(settings.get("hub.huggingface_endpoint")))


def modelscope_endpoint(settings: Settings) -> str:
    configured = str(settings.get("hub.modelscope_endpoint"))
    return (configured or os.environ.get("MODELSCOPE_ENDPOINT") or MODELSCOPE_DEFAULT).rstrip("/")


def addresses(settings: Settings) -> dict[str, Locate]:
    """Where each hub serves a file, with the user's token; read when the file starts, so
    a mirror or a token set meanwhile applies."""

    def on_hf(item: Download) -> FileAddress:
        url, headers = file_url(settings, HF, item.repo_id, item.path, item.revision)
        what = f"{item.repo_id}/{item.path}"
        return FileAddress(url, headers, lambda status: huggingface.refusal(status, what))

    def on_modelscope(item: Download) -> FileAddress:
        from app.hub import modelscope

        url, headers = file_url(settings, MODELSCOPE, item.repo_id, item.path, item.revision)
        what = f"{item.repo_id}/{item.path}"
        return FileAddress(url, headers, lambda status: modelscope.refusal(status, what))

    return {HF: on_hf, MODELSCOPE: on_modelscope}


def download_manager(settings: Settings, data_dir: Path) -> DownloadManager:
    """The download queue of the Hearth whose data folder is ``data_dir``."""
    return DownloadManager(
        data_dir / "downloads.json",
        addresses(settings),
        parallel=int(settings.get("downloads.parallel")),
        link=Link(limits=lambda: link_limits(settings)),
    )


def link_limits(settings: Settings) -> tuple[int, float]:
    """The settings' caps on every download together, as they are now: connections at
    once, and bytes a second (0: no limit)."""
    return (
        int(settings.get("downloads.connections")),
        float(settings.get("downloads.limit_mb_s")) * 1e6,
    )


def file_url(
    settings: Settings, source: str, repo_id: str, path: str, revision: str = "main"
) -> tuple[str, dict[str, str]]:
    """Where a repository's file can be read directly (the hub redirects to its CDN), and
    the headers that request needs (the user's token)."""
    if source == MODELSCOPE:
        from urllib.parse import quote

        revision = "master" if revision == "main" else revision
        url = (
            f"{modelscope_endpoint(settings)}/api/v1/models/{repo_id}/repo?Revision="
            f"{quote(revision)}&FilePath={quote(path)}"
        )
        token = get_token(MODELSCOPE)  # its client sends the token as this cookie
        return url, {"Cookie": f"m_session_id={token}"} if token else {}
    from huggingface_hub import hf_hub_url
    from huggingface_hub.utils import build_hf_headers  # type: ignore[attr-defined]

    url = hf_hub_url(repo_id, path, revision=revision, endpoint=hf_endpoint(settings))
    return url, dict(build_hf_headers(token=get_token(HF)))
