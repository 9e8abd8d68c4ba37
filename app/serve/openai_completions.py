"""OpenAI's legacy ``POST /v1/completions``: text that follows a raw prompt, with
``suffix`` for fill-in-the-middle (editors' autocomplete: Continue's tab completion sends
it) where the model has the tokens for it.

The prompt is given to the model as it is (no chat template).  One prompt per request (a
list of one is accepted); ``n`` choices one after another as in chat; ``echo`` puts the
prompt before the text.  GGUF models only: a transformers or remote model answers 400.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import Field, field_validator

from app.engine_client import EngineClient
from app.serve.openai_chat import (
    Choice,
    Sampling,
    choice_params,
    finish_of,
    refused_by_engine,
    total_usage,
    unicode_text,
)
from app.serve.relay import Relay
from wire import protocol
from wire.model_spec import LLAMA_CPP, SYNTHETIC, ModelSpec

DEFAULT_MAX_TOKENS = 16  # OpenAI's default for completions


class CompletionRequest(Sampling):
    prompt: str | list[str] = Field(max_length=1_000_000)
    suffix: str | None = Field(default=None, max_length=1_000_000)
    echo: bool = False

    @field_validator("prompt")
    @classmethod
    def _one_prompt(cls, prompt: str | list[str]) -> str | list[str]:
        if isinstance(prompt, list) and len(prompt) != 1:
            raise ValueError("one prompt per request (a list of exactly one is accepted)")
        return unicode_text(prompt if isinstance(prompt, str) else prompt[0])

    @property
    def text(self) -> str:
        return self.prompt if isinstance(self.prompt, str) else self.prompt[0]

    def reply_limit(self) -> int | None:
        return self.max_tokens or DEFAULT_MAX_TOKENS

    def refusal(self, spec: ModelSpec) -> str | None:
        if spec.engine not in (LLAMA_CPP, SYNTHETIC):
            return "completions with a raw prompt need a GGUF model (llama.cpp) for now"
        return None


class TextCompletion:
    """One request's reply: ``n`` completions, whole or streamed."""

    def __init__(
        self,
        client: EngineClient,
        spec: ModelSpec,
        body: CompletionRequest,
        params: dict[str, Any],
        model_name: str,
    ) -> None:
        self.client, self.spec, self.body, self.params = client, spec, body, params
        self.model_name = model_name
        self.reply_id = f"cmpl-{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())

    def start(self, index: int) -> tuple[Relay, Any]:
        relay = Relay()
        job = self.client.complete(
            self.spec,
            self.body.text,
            choice_params(self.params, index),
            relay.put,
            suffix=self.body.suffix,
        )
        return relay, job

    def _payload(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": self.reply_id,
            "object": "text_completion",
            "created": self.created,
            "model": self.model_name,
            "choices": choices,
        }

    def _choice(self, index: int, text: str, finish: str | None) -> dict[str, Any]:
        return {"index": index, "text": text, "logprobs": None, "finish_reason": finish}

    async def answer(self, request: Request, refuse: Callable[..., JSONResponse]) -> Any:
        relay, job = self.start(0)
        first = await relay.first(request, job)
        if first["type"] == protocol.ERROR:
            return refused_by_engine(first, refuse)
        if self.body.stream:
            return StreamingResponse(
                self._events(relay, job),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache"},
            )
        choices: list[Choice] = []
        for index in range(self.body.n):
            if index:
                relay, job = self.start(index)
            choice = Choice()
            async for event in relay.events_until_gone(request, job):
                choice.take(event)
            if choice.final.get("type") == protocol.ERROR:
                return refused_by_engine(choice.final, refuse)
            choices.append(choice)
            if choice.final.get("finish_reason") == protocol.FINISH_CANCELLED:
                break
        echo = self.body.text if self.body.echo else ""
        listed = [
            self._choice(i, echo + "".join(c.text), finish_of(c.final))
            for i, c in enumerate(choices)
        ]
        return {**self._payload(listed), "usage": total_usage([c.usage for c in choices])}

    async def _events(self, relay: Relay, job: Any) -> AsyncIterator[str]:
        for index in range(self.body.n):
            if index:
                relay, job = self.start(index)
            try:
                if self.body.echo:
                    yield self._data([self._choice(index, self.body.text, None)])
                async for event in relay.events():
                    if event["type"] == protocol.DELTA and event.get("text"):
                        yield self._data([self._choice(index, event["text"], None)])
                    elif event["type"] == protocol.DONE:
                        yield self._data([self._choice(index, "", finish_of(event))])
                    elif event["type"] == protocol.ERROR:
                        error = {"message": event.get("message"), "type": event.get("kind")}
                        yield "data: " + json.dumps({"error": error}) + "\n\n"
                        return
            finally:
                if not job.finished:
                    job.cancel()  # the client went away: stop generating
        yield "data: [DONE]\n\n"

    def _data(self, choices: list[dict[str, Any]]) -> str:
        return "data: " + json.dumps(self._payload(choices)) + "\n\n"
