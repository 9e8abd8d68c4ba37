"""What the server has: ``GET /health`` (llama-server's route, for load balancers and
scripts waiting for the server) and OpenAI's ``GET /v1/models`` and ``/v1/models/{id}``
(a model may be named as the library does or as Ollama does)."""

from __future__ import annotations

import time
from typing import Any

from starlette.responses import PlainTextResponse

from app.serve.call import Call
from app.serve.naming import ollama_name
from app.serve.pipeline import Refusal


def model_entry(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": int(time.time()), "owned_by": "hearth"}


async def running(call: Call) -> Any:
    """``GET /`` and ``HEAD /``: a plain "Hearth is running", as Ollama says of itself."""
    return PlainTextResponse("Hearth is running")


async def health(call: Call) -> dict[str, Any]:
    listed = call.models.listed()
    return {
        "status": "ok",
        "model": listed[0][0] if listed else None,
        "models": len(listed),
        "loaded": [running.name for running in call.models.running()],
    }


async def models(call: Call) -> dict[str, Any]:
    return {"object": "list", "data": [model_entry(name) for name, _f in call.models.listed()]}


async def one_model(call: Call) -> dict[str, Any]:
    asked = str(call.request.path_params.get("model_id", ""))
    names = [name for name, _facts in call.models.listed()]
    by_ollama_name = {ollama_name(name): name for name in names}
    model_id = by_ollama_name.get(asked.lower(), asked)
    if model_id not in names:
        raise Refusal(
            404,
            f"The model {model_id!r} is not served here; this server has "
            f"{', '.join(repr(n) for n in names[:5])} (GET /v1/models).",
            "model_not_found",
        )
    return model_entry(model_id)
