"""The API's dialects and the shape each gives an error, so that a client reads a refusal
as it reads its own server's: OpenAI's ``{"error": {"message", "type"}}``, Ollama's
``{"error": "…"}``, Anthropic's ``{"type": "error", "error": {"type", "message"}}``."""

from __future__ import annotations

from fastapi.responses import JSONResponse

OPENAI = "openai"
OLLAMA = "ollama"
ANTHROPIC = "anthropic"

ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    503: "overloaded_error",
}


def error(dialect: str, status: int, message: str, kind: str = "error") -> JSONResponse:
    """A refusal in ``dialect``'s shape; ``kind`` is OpenAI's error ``type``."""
    if dialect == OLLAMA:
        return JSONResponse({"error": message}, status_code=status)
    if dialect == ANTHROPIC:
        body = {
            "type": "error",
            "error": {"type": ANTHROPIC_TYPES.get(status, "api_error"), "message": message},
        }
        return JSONResponse(body, status_code=status)
    return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)
