"""OpenAI's legacy ``POST /v1/completions``: text that follows a raw prompt, with
``suffix`` for fill-in-the-middle (editors' autocomplete: Continue's tab completion sends
it) where the model has the tokens for it.

The prompt is given to the model as it is (no chat template): an engine that can do that is
needed (the catalogue's ``raw_prompt``).  One prompt per request (a list of one is
accepted); ``n`` choices one after another as in chat; ``echo`` puts the prompt before the
text.  ``logprobs`` (up to 5 alternatives) come in this route's own shape (``tokens``,
``token_logprobs``, ``top_logprobs``, ``text_offset``), from an engine that reports them.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from pydantic import Field, field_validator

from app.engines import LOGPROBS, RAW_PROMPT
from app.serve import pipeline
from app.serve.call import Call, data, sse
from app.serve.folding import Ending, Piece, Usage
from app.serve.openai_chat import finish_of
from app.serve.pipeline import Ask, Reply
from app.serve.sampling import MAX_TEXT, Sampling, unicode_text

DEFAULT_MAX_TOKENS = 16  # OpenAI's default for completions


class CompletionRequest(Sampling):
    prompt: str | list[str] = Field(max_length=MAX_TEXT)
    suffix: str | None = Field(default=None, max_length=MAX_TEXT)
    echo: bool = False
    logprobs: int | None = Field(default=None, ge=0, le=5)

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

    def ask(self) -> Ask:
        needs = {RAW_PROMPT: "completions with a raw prompt"}
        params = self.params()
        if self.logprobs is not None:
            needs[LOGPROBS] = "logprobs"
            params.update(logprobs=True, top_logprobs=self.logprobs)
        return Ask(
            self.model, prompt=self.text, suffix=self.suffix, params=params, n=self.n, needs=needs
        )


async def complete(call: Call) -> Any:
    body: CompletionRequest = call.body
    reply = await pipeline.start(
        body.ask(), call.models, call.request, pictures=call.config.pictures
    )
    shape = TextCompletion(reply, body)
    if body.stream:
        return sse(shape.chunks())
    outcomes = await reply.whole()
    echo = body.text if body.echo else ""
    choices = [
        shape.choice(i, echo + o.text, finish_of(o.ending), o.logprobs)
        for i, o in enumerate(outcomes)
    ]
    usage = Usage.of_choices([o.ending.usage for o in outcomes])
    return {**shape.payload(choices), "usage": usage.openai()}


class TextCompletion:
    """One request's reply in OpenAI's ``text_completion`` shape."""

    def __init__(self, reply: Reply, body: CompletionRequest) -> None:
        self.reply, self.body = reply, body
        self.reply_id = f"cmpl-{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())

    def payload(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": self.reply_id,
            "object": "text_completion",
            "created": self.created,
            "model": self.reply.name,
            "choices": choices,
        }

    def choice(
        self,
        index: int,
        text: str,
        finish: str | None,
        logprobs: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        listed = legacy_logprobs(logprobs or []) if self.body.logprobs is not None else None
        return {"index": index, "text": text, "logprobs": listed, "finish_reason": finish}

    async def chunks(self) -> AsyncIterator[str]:
        started: set[int] = set()
        async for item in self.reply.stream():
            if item.index not in started:
                started.add(item.index)
                if self.body.echo:
                    yield data(self.payload([self.choice(item.index, self.body.text, None)]))
            if isinstance(item, Piece):
                if item.text:
                    choice = self.choice(item.index, item.text, None, item.logprobs)
                    yield data(self.payload([choice]))
                continue
            yield self._end(item)
        yield "data: [DONE]\n\n"

    def _end(self, ending: Ending) -> str:
        if ending.error is not None:
            error = {"message": ending.error.get("message"), "type": ending.error.get("kind")}
            return data({"error": error})
        choice = self.choice(ending.index, "", finish_of(ending), ending.logprobs)
        return data(self.payload([choice]))


def legacy_logprobs(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Token probabilities in the completions route's own shape (offsets from the start of
    the text they come with)."""
    offsets, at = [], 0
    for entry in entries:
        offsets.append(at)
        at += len(str(entry.get("token", "")))
    return {
        "tokens": [e.get("token", "") for e in entries],
        "token_logprobs": [e.get("logprob", 0.0) for e in entries],
        "top_logprobs": [
            {t.get("token", ""): t.get("logprob", 0.0) for t in e.get("top_logprobs") or []}
            for e in entries
        ],
        "text_offset": offsets,
    }
