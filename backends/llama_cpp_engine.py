"""The llama.cpp engine (llama-cpp-python), for GGUF files.

Runs only inside the worker.  ``llama_cpp`` is imported when the engine is created, so
nothing else pays for it.

Why we drive generation ourselves (``backends.llama_loop``: llama.cpp's sampler chain and
``llama_decode``) instead of ``create_chat_completion(stream=True)`` or ``Llama.generate``:
those spend about 1 ms of Python per token (a copy of the logits into numpy and Python
sampling), and we need the cancel flag checked between every two tokens, exact
prompt/generated token counts and timings for the stats line, and our own UTF-8 assembly
so that the streamed text always equals the final text.  The prompt is
rendered with the GGUF's own chat template through llama-cpp-python's sandboxed Jinja2
formatter.  When a GGUF has no template we use the documented fallback below.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from backends.context_budget import (
    THINK_OPEN,
    ContextOverflow,
    Prompt,
    continues_reply,
    fit_raw,
    opens_thinking,
    prepare_prompt,
    stats_event,
)
from backends.engine import Emit, EngineError, Progress
from backends.fallback_template import FALLBACK_STOPS, FALLBACK_TEMPLATE
from backends.job_control import JobControl
from backends.json_mode import grammar_for
from backends.llama_embed import (
    EmbeddingContext,
    EmbeddingFailed,
    context_size,
    longest_input,
)
from backends.llama_logprobs import LogprobReader
from backends.llama_loop import (
    CONTINUE,
    DecodeCosts,
    GrammarRefused,
    NgramDrafter,
    PieceDecoder,
    PrefillPacer,
    SamplerChain,
)
from backends.llama_raw import raw_prompt
from backends.pictures import VisionError
from backends.runtimes import BUILT_IN, RUNTIME_ENV
from backends.schema_bounds import SchemaTooLarge, check_grammar
from backends.slots.context import BATCH, SlotContext
from backends.slots.disk_cache import DiskShelf
from backends.slots.prompt_cache import PromptCache
from backends.slots.scheduler import Scheduler, SchedulerClosed
from backends.slots.task import Task, prompt_progress, queue_progress
from backends.template_guard import Defuser, bounded_render
from backends.text_stream import TextAssembler, complete_text, request_stops, stop_notice
from backends.tool_prompt import (
    chosen_tools,
    engine_message,
    has_tool_parts,
    hermes_messages,
    overflow_message,
    tool_call_grammar,
)
from wire import images, protocol
from wire.defaults import CONTEXT_TOKENS, PROMPT_CACHE_MB, SAMPLING
from wire.phrases import Phrase, message_of
from wire.templates import takes_tools

if TYPE_CHECKING:
    from backends.llama_images import PicturePrompt, PictureReader

# The context llama-cpp-python's ``Llama`` makes for itself: replies use the slots' own
# (``SlotContext``), so this one is kept as small as llama.cpp allows.
OWN_CONTEXT = 256
MOST_SLOTS = 64
MIB = 1 << 20
Tools = Sequence[dict[str, Any]]


class LlamaCppEngine:
    """One GGUF model in llama.cpp."""

    def __init__(self) -> None:
        import llama_cpp
        from llama_cpp import llama_chat_format

        self._llama_cpp = llama_cpp
        self._lib: Any = llama_cpp.llama_cpp  # the low-level C API
        self._chat_format = llama_chat_format
        self._llm: Any = None
        self._slots: SlotContext | None = None
        self._scheduler: Scheduler | None = None
        self._pacer = PrefillPacer(1)  # sized to the context's batch when a model loads
        self._ctx: Any = None
        self._piece: Any = None
        self._prompt_lookup = True
        self._can_draft = True
        self._decode_costs = DecodeCosts()  # what a decode costs with the loaded model
        self.runtime = os.environ.get(RUNTIME_ENV, BUILT_IN)
        self._formatter: Any = None
        self._stops: tuple[str, ...] = ()
        self._eog: set[int] = set()
        self._defuser = Defuser(())
        self._takes_tools = False
        self._embedder: EmbeddingContext | None = None
        self._threads = 0
        self._pictures: PictureReader | None = None  # the projector's, when there is one
        self._picture_problem: str = ""  # why a projector that was named is not used
        self.n_ctx = 0

    # -- loading -----------------------------------------------------------------------
    def load(self, spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
        path = str(spec["path"])
        if not os.path.isfile(path):
            raise EngineError(
                protocol.ERR_MODEL_NOT_FOUND, Phrase("The model file {0} does not exist.", path)
            )
        progress(0.1, "Reading the model file")
        n_ctx = int(spec.get("n_ctx") or CONTEXT_TOKENS)
        slots = max(1, min(int(spec.get("parallel") or 1), MOST_SLOTS))
        threads = spec.get("threads") or None
        self._threads = int(threads or 0)
        llm: Any = None
        try:
            llm = self._llama_cpp.Llama(
                model_path=path,
                n_ctx=OWN_CONTEXT,
                n_batch=OWN_CONTEXT,
                n_ubatch=OWN_CONTEXT,
                n_threads=threads,
                n_threads_batch=threads,
                n_gpu_layers=int(spec.get("gpu_layers") or 0),
                flash_attn=bool(spec.get("flash_attn", True)),
                use_mmap=True,
                verbose=bool(spec.get("verbose", False)),
            )
            context = SlotContext(
                self._lib, llm._model.model, llm.context_params, n_ctx, slots, self._threads
            )
        except (ValueError, RuntimeError, OSError) as exc:
            if llm is not None:
                llm.close()
            raise EngineError(
                protocol.ERR_LOAD_FAILED,
                Phrase(
                    "llama.cpp could not load {0} with a context of {1} tokens ({2}). There "
                    "may not be enough memory for that context (try a shorter one), or the "
                    "file is not one this engine can read, or it is damaged.",
                    os.path.basename(path),
                    n_ctx,
                    exc,
                ),
            ) from exc
        progress(0.8, "Preparing the chat template")
        self._llm = llm
        self._slots = context
        self.n_ctx = context.n_ctx
        self._ctx = context.ctx
        self._pacer = PrefillPacer(context.capacity)
        self._piece = PieceDecoder(self._lib, llm._model.vocab)
        model = llm._model.model
        # A recurrent state cannot be cut back after a wrong guess: no drafting there.
        self._can_draft = not (
            self._lib.llama_model_is_recurrent(model) or self._lib.llama_model_is_hybrid(model)
        )
        self._prompt_lookup = bool(spec.get("prompt_lookup", True)) and self._can_draft
        self._decode_costs = DecodeCosts()
        cache_mb = max(0, int(spec.get("prompt_cache_mb", PROMPT_CACHE_MB) or 0))
        self._scheduler = Scheduler(
            self._lib,
            context,
            self._pacer,
            self._decode_costs,
            PromptCache(self._lib, context.ctx, cache_mb * MIB, DiskShelf.for_spec(spec)),
        )
        vocab = llm._model.vocab
        self._eog = (
            {t for t in range(llm.n_vocab()) if self._is_eog(vocab, t)}
            if (llm.n_vocab() <= 300_000)
            else {llm.token_eos()}
        )
        template = llm.metadata.get("tokenizer.chat_template")
        eos = self._token_text(llm.token_eos())
        bos = self._token_text(llm.token_bos())
        self._defuser = Defuser(self._special_texts())
        self._formatter = self._chat_format.Jinja2ChatFormatter(
            template=template or FALLBACK_TEMPLATE, eos_token=eos, bos_token=bos
        )
        self._stops = () if template else FALLBACK_STOPS
        self._takes_tools = takes_tools(template or "")
        self._adds_special = bool(template)
        self._opens_thinking = opens_thinking(
            self._prompt_text([{"role": "user", "content": "Hi"}])
        )
        if spec.get("projector"):
            progress(0.9, "Loading the image projector")
            from backends.llama_images import load_pictures

            self._pictures, self._picture_problem = load_pictures(
                str(spec["projector"]),
                llm._model.model,
                self._threads or os.cpu_count() or 1,
                bool(spec.get("gpu_layers")),
                self._unbounded_prompt_text,
            )
        progress(1.0, "Ready")
        return {
            "n_ctx": self.n_ctx,
            "parallel": slots,
            "n_ctx_train": int(llm._model.n_ctx_train()),
            "chat_template": "gguf" if template else "fallback",
            "architecture": llm.metadata.get("general.architecture", ""),
            "name": llm.metadata.get("general.name", os.path.basename(path)),
            "reads_images": self._pictures is not None,
            **({"image_problem": self._picture_problem} if self._picture_problem else {}),
        }

    def _is_eog(self, vocab: Any, token: int) -> bool:
        return bool(self._llama_cpp.llama_vocab_is_eog(vocab, token))

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        return str(self._llm._model.token_get_text(token))

    # -- prompt ------------------------------------------------------------------------
    def _prompt_text(self, messages: list[dict[str, Any]], tools: Tools = ()) -> str:
        return bounded_render(lambda chosen: self._unbounded_prompt_text(chosen, tools))(messages)

    def _unbounded_prompt_text(self, messages: list[dict[str, Any]], tools: Tools = ()) -> str:
        try:
            return str(self._formatter(messages=messages, tools=list(tools) or None).prompt)
        except Exception as exc:  # jinja errors, raise_exception() in templates
            raise EngineError(
                protocol.ERR_BAD_REQUEST,
                Phrase("The model's chat template rejected the conversation: {0}", exc),
            ) from exc

    def _text(self, messages: list[dict[str, Any]], tools: Tools = ()) -> str:
        defused = self._defuser.values(list(tools))
        return self._prompt_text(self._defuser.messages(messages), defused)

    def _continuation_text(self, messages: list[dict[str, Any]], tools: Tools = ()) -> str:
        """The prompt that makes the model go on with its last, unfinished reply."""
        *before, partial = messages
        return self._text(before, tools) + self._defuser.text(images.text_of(partial["content"]))

    def _tokenize_prompt(self, prompt: str) -> list[int]:
        """Special tokens are parsed: message texts were defused (``template_guard``)."""
        tokens: list[int] = self._llm.tokenize(
            prompt.encode("utf-8"), add_bos=not self._adds_special, special=True
        )
        return tokens

    def _special_texts(self) -> list[str]:
        """The texts of the vocabulary's control and user-defined tokens (both are matched
        when a prompt is tokenised with special tokens)."""
        vocab = self._llm._model.vocab
        kinds = self._llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | (
            self._llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED
        )
        return [
            self._token_text(token)
            for token in range(self._llm.n_vocab())
            if self._llama_cpp.llama_vocab_get_attr(vocab, token) & kinds
        ]

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _chat_prompt(
        self,
        request: dict[str, Any],
        params: dict[str, Any],
        max_tokens: int | None,
        emit: Emit,
        pictures: Callable[[Callable[..., str]], PicturePrompt],
    ) -> tuple[Prompt, bool]:
        """A conversation's prompt through the template, fitted to the context; and
        whether the last message is a reply to go on with.  A conversation with pictures
        is read by the ``PicturePrompt`` that ``pictures`` makes."""
        messages = [engine_message(m) for m in request.get("messages") or []]
        if not messages:
            raise EngineError(
                protocol.ERR_BAD_REQUEST, Phrase("A chat request needs at least one message.")
            )
        continuing = continues_reply(request, messages)
        tools = chosen_tools(params)
        if not self._takes_tools and (tools or has_tool_parts(messages)):
            messages, tools = hermes_messages(messages, tools), []
        text_of = self._continuation_text if continuing else self._text
        with_pictures = (
            pictures(lambda chosen: text_of(chosen, tools)) if images.has_images(messages) else None
        )

        def render(chosen: list[dict[str, Any]]) -> list[int]:
            if with_pictures is not None:
                return with_pictures.render(chosen)
            return self._tokenize_prompt(text_of(chosen, tools))

        return prepare_prompt(messages, render, self.n_ctx, max_tokens, emit), continuing

    # -- generation --------------------------------------------------------------------
    def set_threads(self, threads: int) -> None:
        """Use ``threads`` CPU threads from the next decode on (the engine host's share)."""
        self._threads = threads
        if self._slots is not None:
            self._slots.set_threads(threads)
        if self._embedder is not None:
            self._embedder.set_threads(threads)

    def reserve(self) -> int:
        """A place in the slots' queue for a request as it arrives (``Scheduler.reserve``)."""
        return self._loaded_scheduler().reserve()

    def chat(self, request: dict[str, Any], control: JobControl, emit: Emit) -> str:
        made: list[PicturePrompt] = []
        try:
            return self._chat(request, control, emit, made)
        except (VisionError, images.ImageRefused) as exc:
            raise EngineError(protocol.ERR_BAD_REQUEST, message_of(exc)) from exc
        finally:  # a request that failed before its turn leaves its place in the queue
            for prompt in made:
                prompt.close()
            if control.ticket and self._scheduler is not None:
                self._scheduler.withdraw(control.ticket)

    def _picture_prompt(
        self, text_of: Callable[..., str], made: list[PicturePrompt]
    ) -> PicturePrompt:
        """A prompt with pictures, read through the model's projector; refused in words
        when the model has none."""
        if self._pictures is None:
            raise EngineError(
                protocol.ERR_BAD_REQUEST,
                self._picture_problem
                or Phrase(
                    "This model reads text only, so it cannot see the pictures. Choose a "
                    "model that reads images, or send the message without them."
                ),
            )
        from backends.llama_images import PicturePrompt

        made.append(PicturePrompt(self._pictures, text_of, not self._adds_special))
        return made[-1]

    def _chat(
        self, request: dict[str, Any], control: JobControl, emit: Emit, made: list[PicturePrompt]
    ) -> str:
        started = time.perf_counter()
        params = {**SAMPLING, **(request.get("params") or {})}
        max_tokens = params.get("max_tokens")
        max_tokens = int(max_tokens) if max_tokens else None
        # A completion's raw prompt, or a reply the model goes on with: the text follows
        # on from what is there (no leading space stripped, no template <think>).
        raw = request.get("prompt") is not None
        try:
            if raw:
                fitted = fit_raw(raw_prompt(self._llm, self._lib, request), self.n_ctx, max_tokens)
                continuing = True
            else:
                fitted, continuing = self._chat_prompt(
                    request,
                    params,
                    max_tokens,
                    emit,
                    lambda text_of: self._picture_prompt(text_of, made),
                )
        except ContextOverflow as exc:
            raise EngineError(protocol.ERR_CONTEXT_OVERFLOW, overflow_message(exc, params)) from exc
        prompt, limit = fitted.tokens, fitted.limit
        control.tokens(len(prompt), 0)
        ignore_eos = bool(params.get("ignore_eos"))
        try:
            if not params.get("grammar"):
                params["grammar"] = tool_call_grammar(params) or grammar_for(
                    params.get("response_format")
                )
            elif isinstance(params["grammar"], str):  # a request's own GBNF
                check_grammar(params["grammar"])
            sampler = SamplerChain(
                self._lib,
                self._llm._model.vocab,
                self._llm.n_vocab(),
                params,
                banned=sorted(self._eog) if ignore_eos else (),
            )
        except (GrammarRefused, SchemaTooLarge) as exc:
            raise EngineError(
                protocol.ERR_BAD_REQUEST, Phrase("The request's grammar was refused: {0}", exc)
            ) from exc
        except (TypeError, ValueError, OverflowError) as exc:
            raise EngineError(
                protocol.ERR_BAD_REQUEST, Phrase("A sampling setting is not valid: {0}", exc)
            ) from exc
        stops = self._stops + request_stops(params.get("stop"))
        assembler = TextAssembler(stops, strip_leading=not continuing)
        # The template's own <think>; a grammar (JSON, a forced tool call) decides the whole
        # reply, which then holds no thinking at all.
        if self._opens_thinking and not continuing and not params.get("grammar"):
            emit({"type": protocol.DELTA, "text": THINK_OPEN})
        produced: list[int] = []
        marks: dict[str, float] = {"last": started}
        eog = frozenset() if ignore_eos else self._eog
        piece = self._piece
        logprobs = (
            LogprobReader(
                self._lib, self._ctx, self._llm.n_vocab(), piece, params.get("top_logprobs") or 0
            )
            if params.get("logprobs")
            else None
        )

        def on_token(token: int, row: int) -> str | None:
            now = time.perf_counter()
            marks.setdefault("first", now)
            marks["last"] = now
            if token in eog:
                return protocol.FINISH_STOP
            produced.append(token)
            control.tokens(len(prompt), len(produced))
            if logprobs is not None:  # before the next decode replaces this token's row
                emit(
                    {
                        "type": protocol.NOTICE,
                        "kind": protocol.NOTICE_LOGPROB,
                        **logprobs.read(token, row),
                    }
                )
            text = assembler.feed(piece(token))
            if text:
                emit({"type": protocol.DELTA, "text": text})
            if assembler.stopped:
                return protocol.FINISH_STOP
            if control.cancelled():
                return protocol.FINISH_CANCELLED
            if len(produced) >= limit:
                return protocol.FINISH_LENGTH
            return CONTINUE

        # Drafting reads logits from rows other than the last: not with logprobs.
        wanted: Any = params.get("prompt_lookup", self._prompt_lookup)
        if logprobs is not None:
            wanted = False
        drafter = (
            NgramDrafter(prompt, self._decode_costs, always=wanted == "always")
            if wanted and self._can_draft
            else None
        )
        task = Task(
            prompt,
            sampler,
            on_token,
            control,
            drafter,
            on_prompt_read=lambda done: emit(prompt_progress(done, len(prompt))),
            on_wait=lambda place: emit(queue_progress(place)),
            ticket=control.ticket,
            pictures=made[-1].pictures(prompt, self._ctx, BATCH) if made else {},
        )
        try:
            finish = self._loaded_scheduler().run(task)
        except SchedulerClosed as exc:
            raise EngineError(protocol.ERR_NOT_LOADED, Phrase("No model is loaded.")) from exc

        finally:
            sampler.close()
        if task.failure:
            # Out of room in the context or a backend failure: the reply so far is kept.
            emit(
                {
                    "type": protocol.NOTICE,
                    "kind": protocol.NOTICE_DECODE_FAILED,
                    "text": task.failure,
                }
            )
        tail = assembler.finish()
        if tail:
            emit({"type": protocol.DELTA, "text": tail})
        notice = stop_notice(assembler, request_stops(params.get("stop")))
        if notice:
            emit(notice)
        if params.get("final_text"):
            # The reply decoded in one piece, independently of the streaming path, so a
            # caller can verify that the streamed deltas add up to exactly this.
            whole = complete_text(self._llm.detokenize(produced))
            emit(
                {
                    "type": protocol.NOTICE,
                    "kind": protocol.NOTICE_FINAL_TEXT,
                    "text": whole.lstrip(" ") if not stops else assembler.text,
                }
            )
        emit(
            stats_event(
                len(prompt),
                len(produced),
                started,
                marks.get("first"),
                marks["last"],
                time.perf_counter(),
                dropped_messages=fitted.dropped,
                runtime=self.runtime,
                drafted_tokens=task.stats.drafted,
                accepted_draft_tokens=task.stats.accepted,
                cached_prompt_tokens=task.cached,
                **(made[-1].stats(prompt, task.picture_s) if made else {}),
            )
        )
        return finish

    def _loaded_scheduler(self) -> Scheduler:
        if self._scheduler is None:
            raise EngineError(protocol.ERR_NOT_LOADED, Phrase("No model is loaded."))
        return self._scheduler

    @property
    def slots(self) -> int:
        """Replies it answers at once (0 before a model is loaded)."""
        return len(self._slots.slots) if self._slots is not None else 0

    # -- embeddings --------------------------------------------------------------------
    def embed(self, texts: list[str]) -> dict[str, Any]:
        """Normalised embeddings of ``texts``, one per text, and the tokens read."""
        if self._llm is None:
            raise EngineError(protocol.ERR_NOT_LOADED, Phrase("No model is loaded."))
        inputs = [
            self._llm.tokenize(text.encode("utf-8"), add_bos=True, special=False) for text in texts
        ]
        model = self._llm._model.model
        limit = longest_input(self._lib, model)
        for number, tokens in enumerate(inputs):
            if not 0 < len(tokens) <= limit:
                raise EngineError(
                    protocol.ERR_CONTEXT_OVERFLOW,
                    Phrase(
                        "Input {0} has {1} tokens; this model embeds at most {2} at a time. "
                        "Split it into shorter pieces.",
                        number,
                        len(tokens),
                        limit,
                    ),
                )
        needed = max((len(tokens) for tokens in inputs), default=1)
        try:
            if self._embedder is None or self._embedder.n_ctx < needed:
                if self._embedder is not None:
                    self._embedder.close()
                    self._embedder = None
                self._embedder = EmbeddingContext(
                    self._lib,
                    model,
                    self._llm.metadata,
                    self._threads,
                    min(context_size(needed), limit),
                )
            vectors = [self._embedder.embed(tokens) for tokens in inputs]
        except EmbeddingFailed as exc:
            raise EngineError(
                protocol.ERR_ENGINE,
                Phrase("The model could not make embeddings: {0}", str(exc)),
            ) from exc
        return {"embeddings": vectors, "prompt_tokens": sum(len(t) for t in inputs)}

    def close(self) -> None:
        if self._pictures is not None:
            if self._scheduler is not None:
                self._scheduler.close()
                self._scheduler = None
            self._pictures.projector.close()
            self._pictures = None
        if self._embedder is not None:
            self._embedder.close()
            self._embedder = None
        if self._scheduler is not None:
            self._scheduler.close()
            self._scheduler = None
        if self._slots is not None:
            self._slots.close()
            self._slots = None
            self._ctx = None
        if self._llm is not None:
            self._llm.close()
            self._llm = None
