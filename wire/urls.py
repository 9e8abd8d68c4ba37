"""Server addresses as people type them, made into the URL of an OpenAI-compatible API.

Shared by the window's endpoints (app) and the remote engine (worker), so that both read
an address the same way.
"""

from __future__ import annotations


def with_scheme(url: str) -> str:
    """``localhost:8765`` means ``http://localhost:8765`` (as curl and browsers read it)."""
    url = url.strip()
    return url if "://" in url else "http://" + url


def api_base(url: str) -> str:
    """``http://host:8000`` and ``http://host:8000/v1`` both mean the /v1 API."""
    url = with_scheme(url).rstrip("/")
    return url if url.endswith("/v1") else url + "/v1"
