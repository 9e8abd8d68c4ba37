"""The remote engine: an OpenAI-compatible server (vLLM, trtllm-serve, Ollama, llama-server,
LM Studio, or another Hearth) behind the same interface as the local engines.

It runs in the worker like the others, so the window cannot tell a remote model from a
local one: the same deltas, Stop (the stream is closed), stats and errors.  The spec's
``path`` is the server's base URL and ``remote_model`` the model name; the API key reaches
the worker through its environment (``HEARTH_REMOTE_API_KEY``), never through the pipe.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from backends.context_budget import stats_event
from backends.engine import Emit, EngineError, Progress
from backends.job_control import JobControl
from backends.sse import sse_events
from wire import protocol
from wire.model_spec import REMOTE
from wire.phrases import Phrase
from wire.urls import api_base

KEY_ENV = "HEARTH_REMOTE_API_KEY"


class RemoteEngine:
    def __init__(self) -> None:
        import httpx

        self.httpx = httpx
        self.base = ""
        self.model = ""
        self.timeout = 120.0
        self.n_ctx = 0
        self.client: Any = None

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(KEY_ENV, "")
        return {"Authorization": f"Bearer {key}"} if key else {}

    def load(self, spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
        self.base = api_base(str(spec["path"]))
        self.model = str(spec.get("remote_model") or "")
        self.timeout = float(spec.get("timeout") or 120.0)
        self.n_ctx = int(spec.get("n_ctx") or 0)
        self.client = self.httpx.Client(
            timeout=self.httpx.Timeout(self.timeout, connect=10.0), headers=self._headers()
        )
        progress(0.3, "Connecting to the server")
        names = self.list_models()
        if self.model and names and self.model not in names:
            raise EngineError(
                protocol.ERR_MODEL_NOT_FOUND,
                Phrase(
                    "The server has no model called {0!r}. It offers: {1}.",
                    self.model,
                    ", ".join(names),
                ),
            )
        if not self.model and names:
            self.model = names[0]
        progress(1.0, "Ready")
        return {
            "n_ctx": self.n_ctx,
            "engine": REMOTE,
            "server": self.base,
            "remote_model": self.model,
            "chat_template": "server",
        }

    def list_models(self) -> list[str]:
        response = self._request("GET", "/models")
        try:
            data = response.json().get("data", [])
            return [str(m.get("id")) for m in data if isinstance(m, dict) and m.get("id")]
        except (ValueError, AttributeError):
            return []

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        httpx = self.httpx
        try:
            response = self.client.request(method, self.base + path, **kwargs)
        except httpx.ConnectError as exc:
            raise EngineError(
                protocol.ERR_CONNECTION_REFUSED,
                Phrase(
                    "Hearth could not connect to {0} ({1}). Is the server running, and is "
                    "the address right?",
                    self.base,
                    exc,
                ),
            ) from exc
        except httpx.TimeoutException as exc:
            raise EngineError(
                protocol.ERR_TIMEOUT,
                Phrase("{0} did not answer within {1:.0f} s.", self.base, self.timeout),
            ) from exc
        _raise_for_status(response, self.base)
        return response

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4)  # the API has no tokenizer endpoint; a fair guess

    def chat(self, request: dict[str, Any], control: JobControl, emit: Emit) -> str:
        httpx = self.httpx
        params = dict(request.get("params") or {})
        body: dict[str, Any] = {
            "model": self.model,
            "stream": True,
            "messages": [_message(m) for m in request.get("messages") or []],
            "stream_options": {"include_usage": True},
        }
        if request.get("continue"):
            # Go on with the last (assistant) message: vLLM's and SGLang's extension;
            # other servers answer it as a new turn.
            body["continue_final_message"] = True
            body["add_generation_prompt"] = False
        for ours, theirs in (
            ("temperature", "temperature"),
            ("top_p", "top_p"),
            ("max_tokens", "max_tokens"),
            ("seed", "seed"),
            ("stop", "stop"),  # the serving engine ends the reply at them
            ("presence_penalty", "presence_penalty"),
            ("frequency_penalty", "frequency_penalty"),
            ("logit_bias", "logit_bias"),  # in the serving model's token ids
            ("response_format", "response_format"),
            ("tools", "tools"),  # vLLM, llama-server, LM Studio and Ollama call them
            ("tool_choice", "tool_choice"),
        ):
            if params.get(ours) is not None:
                body[theirs] = params[ours]
        calls = ToolCallParts()
        started = time.perf_counter()
        first_at: float | None = None
        last_at = started
        chunks = 0
        usage: dict[str, Any] = {}
        finish = protocol.FINISH_STOP

        try:
            with self.client.stream("POST", self.base + "/chat/completions", json=body) as response:
                if response.status_code >= 400:
                    response.read()
                _raise_for_status(response, self.base)
                for event in sse_events(response.iter_lines()):
                    if control.cancelled():
                        finish = protocol.FINISH_CANCELLED
                        break
                    try:
                        chunk = json.loads(event.data)
                    except ValueError:
                        continue
                    if event.event == "error" or "error" in chunk:
                        error = chunk.get("error", chunk)
                        message = (
                            error.get("message", str(error))
                            if isinstance(error, dict)
                            else str(error)
                        )
                        raise EngineError(
                            protocol.ERR_SERVER,
                            Phrase("The server reported an error: {0}", message),
                        )
                    if chunk.get("usage"):
                        usage = chunk["usage"]
                    for choice in chunk.get("choices") or []:
                        delta = choice.get("delta") or {}
                        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                        content = delta.get("content")
                        if reasoning or content:
                            now = time.perf_counter()
                            first_at = first_at or now
                            last_at = now
                            chunks += 1
                            control.tokens(0, chunks)  # a server's chunk: about a token
                        if reasoning:
                            emit({"type": protocol.DELTA, "text": "", "reasoning": reasoning})
                        if content:
                            # Inline <think> text is passed on as written; the worker
                            # separates it (the same way for every engine).
                            emit({"type": protocol.DELTA, "text": content})
                        calls.add(delta.get("tool_calls"))
                        if choice.get("finish_reason") == "length":
                            finish = protocol.FINISH_LENGTH
                if control.cancelled():
                    finish = protocol.FINISH_CANCELLED
        except httpx.ConnectError as exc:
            raise EngineError(
                protocol.ERR_CONNECTION_REFUSED,
                Phrase("Hearth could not connect to {0}.", self.base),
            ) from exc
        except httpx.TimeoutException as exc:
            raise EngineError(
                protocol.ERR_TIMEOUT,
                Phrase("{0} stopped answering (no data for {1:.0f} s).", self.base, self.timeout),
            ) from exc
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise EngineError(
                protocol.ERR_SERVER,
                Phrase(
                    "The connection to {0} broke in the middle of the reply; what arrived "
                    "was kept.",
                    self.base,
                ),
            ) from exc
        written = calls.as_text()
        if written and finish != protocol.FINISH_CANCELLED:
            # As a model writes them itself: every front end reads calls from the text.
            emit({"type": protocol.DELTA, "text": written})
        generated = int(usage.get("completion_tokens") or chunks)
        emit(
            stats_event(
                int(usage.get("prompt_tokens") or 0),
                generated,
                started,
                first_at,
                last_at,
                time.perf_counter(),
                dropped_messages=0,
            )
        )
        return finish

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


def _raise_for_status(response: Any, base: str) -> None:
    status = response.status_code
    if status < 400:
        return
    try:
        detail = response.json()
        error = detail.get("error", detail) if isinstance(detail, dict) else detail
        message = error.get("message", str(error)) if isinstance(error, dict) else str(error)
    except ValueError:
        message = response.text[:300]
    if status in (401, 403):
        raise EngineError(
            protocol.ERR_UNAUTHORIZED,
            Phrase(
                "{0} refused the API key ({1}). Check the key saved for this endpoint.",
                base,
                status,
            ),
        )
    if status == 404:
        raise EngineError(
            protocol.ERR_MODEL_NOT_FOUND,
            Phrase("{0} does not know that model or path (404): {1}", base, message),
        )
    raise EngineError(protocol.ERR_SERVER, Phrase("{0} answered {1}: {2}", base, status, message))


def _message(message: dict[str, Any]) -> dict[str, Any]:
    """A message as OpenAI's API takes it: a history's tool calls and results keep the
    fields that pair them (a server refuses a ``tool`` message without its call), and a
    call's arguments are a JSON string there."""
    sent = {"role": message.get("role"), "content": message.get("content")}
    for field in ("tool_call_id", "name"):
        if message.get(field):
            sent[field] = message[field]
    if message.get("tool_calls"):
        sent["tool_calls"] = [_openai_call(call) for call in message["tool_calls"]]
    return sent


def _openai_call(call: dict[str, Any]) -> dict[str, Any]:
    inner = call.get("function")
    function: dict[str, Any] = inner if isinstance(inner, dict) else call
    arguments = function.get("arguments", {})
    return {
        "id": str(call.get("id") or ""),
        "type": "function",
        "function": {
            "name": str(function.get("name", "")),
            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
        },
    }


class ToolCallParts:
    """A server's streamed tool calls (OpenAI's ``delta.tool_calls``: pieces by index, the
    name first, the arguments as pieces of a JSON string), put together."""

    def __init__(self) -> None:
        self.calls: dict[int, dict[str, str]] = {}

    def add(self, pieces: Any) -> None:
        for piece in pieces if isinstance(pieces, list) else []:
            if not isinstance(piece, dict):
                continue
            call = self.calls.setdefault(int(piece.get("index") or 0), {"name": "", "args": ""})
            function = piece.get("function") or {}
            call["name"] += str(function.get("name") or "")
            arguments = function.get("arguments")
            call["args"] += arguments if isinstance(arguments, str) else ""

    def as_text(self) -> str:
        """The calls written as Hermes calls (``<tool_call>{…}</tool_call>``)."""
        written = []
        for _, call in sorted(self.calls.items()):
            try:
                arguments = json.loads(call["args"] or "{}")
            except ValueError:
                arguments = call["args"]  # read as a call that could not be read
            whole = {"name": call["name"], "arguments": arguments}
            written.append(f"<tool_call>{json.dumps(whole, ensure_ascii=False)}</tool_call>")
        return "".join(written)
