"""The hubs as Hearth uses them: endpoints from the settings, tokens from the keyring."""

from __future__ import annotations

import os
from typing import BinaryIO

from app.core import Core
from app.hub import huggingface
from app.hub.downloads import Download, DownloadManager, Fetcher
from app.secrets import get_token

HF, MODELSCOPE = "hf", "modelscope"
SOURCES = (HF, MODELSCOPE)
MODELSCOPE_DEFAULT = "https://www.modelscope.cn"
HF_MIRROR = "https://hf-mirror.com"  # offered on a Chinese locale


def hf_endpoint(core: Core) -> str:
    return huggingface.endpoint(str(core.settings.get("hub.huggingface_endpoint")))


def modelscope_endpoint(core: Core) -> str:
    configured = str(core.settings.get("hub.modelscope_endpoint"))
    return (configured or os.environ.get("MODELSCOPE_ENDPOINT") or MODELSCOPE_DEFAULT).rstrip("/")


def fetchers(core: Core) -> dict[str, Fetcher]:
    def from_hf(item: Download, sink: BinaryIO, resume_from: int) -> None:
        huggingface.fetch(
            item.repo_id,
            item.path,
            sink,
            resume_from=resume_from,
            expected_size=item.size,
            revision=item.revision,
            endpoint_url=hf_endpoint(core),
            token=get_token(HF),
        )

    def from_modelscope(item: Download, sink: BinaryIO, resume_from: int) -> None:
        from app.hub import modelscope

        modelscope.fetch(
            item.repo_id,
            item.path,
            sink,
            resume_from=resume_from,
            expected_size=item.size,
            revision=item.revision,
            endpoint_url=modelscope_endpoint(core),
            token=get_token(MODELSCOPE),
        )

    return {HF: from_hf, MODELSCOPE: from_modelscope}


def download_manager(core: Core) -> DownloadManager:
    return DownloadManager(
        core.paths.data_dir / "downloads.json",
        fetchers(core),
        parallel=int(core.settings.get("downloads.parallel")),
    )


def file_url(core: Core, source: str, repo_id: str, path: str) -> tuple[str, dict[str, str]]:
    """Where a repository's file can be read directly (for a header's first bytes), and the
    headers that request needs (the user's token)."""
    if source == MODELSCOPE:
        from urllib.parse import quote

        url = (
            f"{modelscope_endpoint(core)}/api/v1/models/{repo_id}/repo?Revision=master"
            f"&FilePath={quote(path)}"
        )
        return url, {}
    from huggingface_hub import hf_hub_url
    from huggingface_hub.utils import build_hf_headers  # type: ignore[attr-defined]

    url = hf_hub_url(repo_id, path, endpoint=hf_endpoint(core))
    return url, dict(build_hf_headers(token=get_token(HF)))
