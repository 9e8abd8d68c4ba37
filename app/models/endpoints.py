"""Remote OpenAI-compatible servers the user added (vLLM, trtllm-serve, Ollama,
llama-server, LM Studio, another Hearth).

Names and addresses live in ``endpoints.json`` in the data folder; API keys live in the
system keyring under ``endpoint:NAME`` and never in a file.  Listing a server's models is
one ``GET /v1/models`` with a short timeout, done off the UI thread.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from app.errors import HearthError
from app.json_document import JsonDocument
from app.models.library import ModelEntry
from app.secrets import get_token, set_token
from wire.phrases import Phrase
from wire.urls import api_base, with_scheme

FORMAT = "remote"


@dataclass(frozen=True)
class Endpoint:
    name: str
    base_url: str

    @property
    def secret_name(self) -> str:
        return f"endpoint:{self.name}"


class Endpoints:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.document = JsonDocument(path, Phrase("server endpoints"))

    def all(self) -> list[Endpoint]:
        def endpoints_of(document: dict[str, Any]) -> list[Endpoint]:
            return [
                Endpoint(str(item["name"]), str(item["base_url"])) for item in document["endpoints"]
            ]

        return self.document.load(endpoints_of) or []

    def _save(self, endpoints: list[Endpoint]) -> None:
        self.document.save({"endpoints": [asdict(e) for e in endpoints]})

    def add(self, name: str, base_url: str, api_key: str = "") -> Endpoint:
        name, base_url = name.strip(), with_scheme(base_url).rstrip("/") if base_url.strip() else ""
        if not name or not base_url.startswith(("http://", "https://")):
            raise HearthError(
                Phrase("An endpoint needs a name and an address starting with http:// or https://.")
            )
        endpoint = Endpoint(name, base_url)
        if api_key:
            set_token(endpoint.secret_name, api_key)
        self._save([e for e in self.all() if e.name != name] + [endpoint])
        return endpoint

    def remove(self, name: str) -> None:
        self._save([e for e in self.all() if e.name != name])


def list_remote_models(endpoint: Endpoint, timeout: float = 5.0) -> list[ModelEntry]:
    """The endpoint's models as library entries; an unreachable server gives one entry with
    the reason, so the picker can show it greyed out."""
    import httpx

    key = get_token(endpoint.secret_name)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        response = httpx.get(
            api_base(endpoint.base_url) + "/models", headers=headers, timeout=timeout
        )
        response.raise_for_status()
        names = [str(m["id"]) for m in response.json().get("data", []) if m.get("id")]
    except (httpx.HTTPError, ValueError, KeyError, AttributeError) as exc:
        return [_entry(endpoint, "", problem=f"{endpoint.base_url} cannot be reached ({exc}).")]
    return [_entry(endpoint, name) for name in names]


def _entry(endpoint: Endpoint, model: str, problem: str = "") -> ModelEntry:
    label = f"{model} @ {endpoint.name}" if model else f"{endpoint.name} (server)"
    return ModelEntry(
        name=label,
        path=Path("endpoint") / endpoint.name / (model or "-"),
        format=FORMAT,
        size_bytes=0,
        source=f"endpoint:{endpoint.name}",
        architecture="remote",
        repo_id=model,
        problem=problem,
    )
