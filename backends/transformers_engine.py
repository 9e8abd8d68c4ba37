"""The PyTorch/transformers engine, for Hugging Face checkpoints (safetensors + config + tokenizer).

Runs only inside the worker; torch and transformers are imported when the engine is
created.  It speaks the same events as the llama.cpp engine, so the window cannot tell
them apart.

Choices (``build_load_kwargs`` turns them into ``from_pretrained`` arguments and is
unit-tested for the CUDA-only ones):

* device: CUDA when torch sees a GPU (spread with ``device_map="auto"`` over GPUs and CPU
  when one GPU is not enough), else the CPU with a warning that it will be slow;
* dtype: bfloat16 on GPUs that support it, float16 on older ones, float32 on the CPU, or
  what the user chose; 4-bit/8-bit through bitsandbytes on CUDA when asked;
* attention: SDPA by default, FlashAttention-2 when asked and installed;
* optional static KV cache with ``torch.compile`` (CUDA graphs) on CUDA.

Safety: safetensors only unless the user allowed pickle weights for this model;
``trust_remote_code`` only with the user's consent (the worker refuses with the list of
code files, the app asks and remembers).  Out of memory ends the worker so the memory is
surely freed; nothing retries by itself.
"""

from __future__ import annotations

import importlib.util
import json
import secrets
import time
from pathlib import Path
from typing import Any

from backends.context_budget import (
    THINK_OPEN,
    ContextOverflow,
    continues_reply,
    opens_thinking,
    prepare_prompt,
    stats_event,
)
from backends.engine import Emit, EngineError, Progress
from backends.fallback_template import FALLBACK_STOPS, FALLBACK_TEMPLATE
from backends.job_control import JobControl
from backends.pictures import VisionError
from backends.sampling import token_bias
from backends.template_guard import Defuser, bounded_render
from backends.text_stream import request_stops, stop_notice
from backends.tool_prompt import (
    chosen_tools,
    engine_message,
    forces_call,
    has_tool_parts,
    hermes_messages,
    overflow_message,
)
from backends.transformers_generation import (
    CancelCriterion,
    LogitBias,
    ReplyPenalties,
    Streamer,
)
from backends.transformers_vision import PictureInputs, image_tokens, reads_pictures
from wire import images, protocol
from wire.defaults import CONTEXT_TOKENS, SAMPLING
from wire.model_spec import TRANSFORMERS
from wire.phrases import Phrase, message_of

TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "spiece.model")


class OutOfMemory(EngineError):
    """Raised for CUDA or host out-of-memory: the worker ends after reporting it."""

    def __init__(self, where: str) -> None:
        super().__init__(
            protocol.ERR_OUT_OF_MEMORY,
            f"The model ran out of memory while {where}. Hearth closed the engine to free the "
            "memory. Try a smaller model, 4-bit loading, or a shorter context.",
        )


def remote_code_files(folder: Path) -> list[str]:
    """The Python files a checkpoint asks to run (``auto_map``); empty when it needs none."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    auto_map = config.get("auto_map") or {}
    files = {str(v).split(".")[0] + ".py" for v in auto_map.values() if isinstance(v, str)}
    return sorted(files)


def build_load_kwargs(
    spec: dict[str, Any], cuda: bool, bf16: bool, flash_attn_installed: bool
) -> dict[str, Any]:
    """The ``from_pretrained`` arguments for ``spec`` on this device (pure, unit-tested)."""
    dtype = str(spec.get("dtype") or "auto")
    if dtype == "auto":
        dtype = ("bfloat16" if bf16 else "float16") if cuda else "float32"
    kwargs: dict[str, Any] = {
        "dtype": dtype,
        "use_safetensors": not spec.get("allow_pickle", False),
        "trust_remote_code": bool(spec.get("trust_remote_code", False)),
        "attn_implementation": "sdpa",
    }
    if spec.get("attention") == "flash_attention_2":
        if not (cuda and flash_attn_installed):
            raise EngineError(
                protocol.ERR_BAD_REQUEST,
                Phrase("FlashAttention-2 needs an NVIDIA GPU and the flash-attn package."),
            )
        kwargs["attn_implementation"] = "flash_attention_2"
    if cuda:
        kwargs["device_map"] = "auto"
    quantization = str(spec.get("quantization") or "")
    if quantization:
        if not cuda:
            raise EngineError(
                protocol.ERR_BAD_REQUEST,
                Phrase("4-bit and 8-bit loading need an NVIDIA GPU (bitsandbytes)."),
            )
        if importlib.util.find_spec("bitsandbytes") is None:
            raise EngineError(
                protocol.ERR_BAD_REQUEST,
                Phrase("4-bit and 8-bit loading need the bitsandbytes package."),
            )
        from transformers import BitsAndBytesConfig

        if quantization == "4bit":
            kwargs["quantization_config"] = BitsAndBytesConfig(
                load_in_4bit=True, bnb_4bit_compute_dtype=dtype, bnb_4bit_quant_type="nf4"
            )
        elif quantization == "8bit":
            kwargs["quantization_config"] = BitsAndBytesConfig(load_in_8bit=True)
        else:
            raise EngineError(
                protocol.ERR_BAD_REQUEST, Phrase("Unknown quantization {0!r}.", quantization)
            )
    return kwargs


def generation_kwargs(spec: dict[str, Any], cuda: bool) -> dict[str, Any]:
    """Static KV cache (and with it torch.compile's CUDA graphs) only where it helps: CUDA."""
    if spec.get("static_cache") and cuda:
        return {"cache_implementation": "static"}
    return {}


class TransformersEngine:
    def __init__(self) -> None:
        import torch
        import transformers

        self.torch = torch
        self.transformers = transformers
        self.model: Any = None
        self.tokenizer: Any = None
        self.processor: Any = None  # a checkpoint that reads pictures (its vision tower's)
        self.spec: dict[str, Any] = {}
        self.device = "cpu"
        self.n_ctx = CONTEXT_TOKENS
        self.template_source = "model"
        self.opens_thinking = False
        self._defuser = Defuser(())

    # -- loading ---------------------------------------------------------------------
    def load(self, spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
        folder = Path(str(spec["path"]))
        self.spec = spec
        self._check_folder(folder, spec)
        torch = self.torch
        cuda = torch.cuda.is_available() and spec.get("device") != "cpu"
        bf16 = cuda and torch.cuda.is_bf16_supported()
        kwargs = build_load_kwargs(
            spec, cuda, bf16, importlib.util.find_spec("flash_attn") is not None
        )
        progress(0.1, "Reading the tokenizer")
        vision = reads_pictures(folder)
        try:
            if vision:
                self.processor = self.transformers.AutoProcessor.from_pretrained(
                    str(folder), trust_remote_code=kwargs["trust_remote_code"]
                )
                self.tokenizer = self.processor.tokenizer
            else:
                self.tokenizer = self.transformers.AutoTokenizer.from_pretrained(
                    str(folder), trust_remote_code=kwargs["trust_remote_code"]
                )
        except MemoryError as exc:
            raise OutOfMemory("loading") from exc
        except Exception as exc:
            raise EngineError(
                protocol.ERR_MODEL_INVALID,
                Phrase("The tokenizer of {0} cannot be loaded ({1}).", folder.name, exc),
            ) from exc
        progress(0.3, "Loading the weights")
        try:
            kind = (
                self.transformers.AutoModelForImageTextToText
                if vision
                else self.transformers.AutoModelForCausalLM
            )
            self.model = kind.from_pretrained(str(folder), **kwargs)
        except (torch.cuda.OutOfMemoryError, MemoryError) as exc:
            raise OutOfMemory("loading") from exc
        except RuntimeError as exc:
            if "memory" in str(exc).lower() or "alloc" in str(exc).lower():
                raise OutOfMemory("loading") from exc
            raise EngineError(
                protocol.ERR_LOAD_FAILED, Phrase("{0} failed to load: {1}", folder.name, exc)
            ) from exc
        except (ValueError, KeyError, OSError) as exc:
            raise EngineError(
                protocol.ERR_MODEL_INVALID,
                Phrase(
                    "{0} cannot be loaded by transformers {1}: {2}",
                    folder.name,
                    self.transformers.__version__,
                    exc,
                ),
            ) from exc
        self.model.eval()
        self.device = "cuda" if cuda else "cpu"
        config = self.model.config
        config_ctx = (
            getattr(config, "max_position_embeddings", None)
            or getattr(getattr(config, "text_config", None), "max_position_embeddings", None)
            or CONTEXT_TOKENS
        )
        self.n_ctx = int(spec.get("n_ctx") or config_ctx)
        if self.processor is not None and self.processor.chat_template:
            self.tokenizer.chat_template = self.processor.chat_template
        if not self.tokenizer.chat_template:
            self.tokenizer.chat_template = FALLBACK_TEMPLATE
            self.template_source = "fallback"
        self._defuser = Defuser(
            [*self.tokenizer.all_special_tokens, *self.tokenizer.get_added_vocab()]
        )
        first_turn = bounded_render(self._prompt_text)
        self.opens_thinking = opens_thinking(first_turn([{"role": "user", "content": "Hi"}]))
        progress(1.0, "Ready")
        notes = [] if cuda else ["No usable GPU: running on the CPU in float32, which is slow."]
        return {
            "n_ctx": self.n_ctx,
            "device": self.device,
            "dtype": kwargs["dtype"],
            "chat_template": self.template_source,
            "engine": TRANSFORMERS,
            "architecture": (self.model.config.architectures or [""])[0],
            "reads_images": self.processor is not None,
            "notes": notes,
        }

    def _check_folder(self, folder: Path, spec: dict[str, Any]) -> None:
        if not (folder / "config.json").is_file():
            raise EngineError(
                protocol.ERR_MODEL_NOT_FOUND,
                Phrase("{0} is not a Hugging Face checkpoint (no config.json).", folder),
            )
        safetensors = list(folder.glob("*.safetensors"))
        pickles = [p for p in folder.iterdir() if p.suffix in (".bin", ".pt", ".pth")]
        if not safetensors and pickles and not spec.get("allow_pickle"):
            raise EngineError(
                protocol.ERR_PICKLE_REFUSED,
                Phrase(
                    "{0} only has pickle weights ({1}). Loading a pickle can run code hidden "
                    "in the file, so Hearth refuses unless you allow it for this model "
                    "(Model settings…).",
                    folder.name,
                    ", ".join(p.name for p in pickles),
                ),
            )
        if not safetensors and not pickles:
            raise EngineError(
                protocol.ERR_MODEL_INVALID, Phrase("{0} has no weight files.", folder.name)
            )
        if not any((folder / name).is_file() for name in TOKENIZER_FILES):
            raise EngineError(
                protocol.ERR_MODEL_INVALID,
                Phrase(
                    "{0} has no tokenizer files ({1}). Download the whole checkpoint, not "
                    "only the weights.",
                    folder.name,
                    ", ".join(TOKENIZER_FILES),
                ),
            )
        code = remote_code_files(folder)
        if code and not spec.get("trust_remote_code"):
            raise EngineError(
                protocol.ERR_NEEDS_REMOTE_CODE,
                Phrase(
                    "{0} needs to run its own Python code ({1}). Hearth does not run a "
                    "model's code without your consent.",
                    folder.name,
                    ", ".join(code),
                ),
            )
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        model_type = config.get("model_type")
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING

        if not code and model_type not in CONFIG_MAPPING:
            raise EngineError(
                protocol.ERR_MODEL_INVALID,
                Phrase(
                    "{0} is a {1!r} model, which transformers {2} does not support. Update "
                    "transformers or use a GGUF of this model.",
                    folder.name,
                    model_type,
                    self.transformers.__version__,
                ),
            )

    # -- generation ------------------------------------------------------------------
    def _prompt_text(self, messages: list[dict[str, Any]], continuing: bool = False) -> str:
        try:
            if continuing:
                rendered = self.tokenizer.apply_chat_template(
                    messages, continue_final_message=True, tokenize=False
                )
            else:
                rendered = self.tokenizer.apply_chat_template(
                    messages, add_generation_prompt=True, tokenize=False
                )
        except Exception as exc:
            raise EngineError(
                protocol.ERR_BAD_REQUEST,
                Phrase("The model's chat template rejected the conversation: {0}", exc),
            ) from exc
        return str(rendered)

    def _render(self, messages: list[dict[str, Any]], continuing: bool = False) -> list[int]:
        """The prompt's tokens; special-token texts in the messages are defused first
        (``backends.template_guard``), so only the template's own become tokens."""

        def text(candidate: list[dict[str, Any]]) -> str:
            return self._prompt_text(candidate, continuing)

        prompt = bounded_render(text)(self._defuser.messages(messages))
        return list(self.tokenizer(prompt, add_special_tokens=False)["input_ids"])

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def set_threads(self, threads: int) -> None:
        """Use ``threads`` CPU threads from the next token on (the engine host's share)."""
        self.torch.set_num_threads(threads)

    def chat(self, request: dict[str, Any], control: JobControl, emit: Emit) -> str:
        torch = self.torch
        started = time.perf_counter()
        messages = [engine_message(m) for m in request.get("messages") or []]
        if not messages:
            raise EngineError(
                protocol.ERR_BAD_REQUEST, Phrase("A chat request needs at least one message.")
            )
        params = dict(request.get("params") or {})
        tools = chosen_tools(params)
        if tools or has_tool_parts(messages):
            # Written into the conversation the Hermes way, whatever the template: without a
            # grammar a call cannot be forced ("required"), only offered.
            if forces_call(params):
                raise EngineError(
                    protocol.ERR_BAD_REQUEST,
                    Phrase(
                        "Forcing a tool call (tool_choice) needs a GGUF model: llama.cpp "
                        "enforces it by grammar, and this model runs in transformers."
                    ),
                )
            messages = hermes_messages(messages, tools)
        if (params.get("response_format") or {}).get("type", "text") != "text":
            raise EngineError(
                protocol.ERR_BAD_REQUEST,
                Phrase(
                    "JSON output (response_format) needs a GGUF model: llama.cpp keeps it to "
                    "the schema by grammar, and this model runs in transformers."
                ),
            )
        max_tokens = int(params["max_tokens"]) if params.get("max_tokens") else None
        continuing = continues_reply(request, messages)

        pictures = self._pictures(messages, continuing)

        def render(candidate: list[dict[str, Any]]) -> list[int]:
            if pictures is not None:
                return pictures.render(self._defuser.messages(candidate))
            return self._render(candidate, continuing)

        try:
            fitted = prepare_prompt(messages, render, self.n_ctx, max_tokens, emit)
        except ContextOverflow as exc:
            raise EngineError(protocol.ERR_CONTEXT_OVERFLOW, overflow_message(exc, params)) from exc
        except (VisionError, images.ImageRefused) as exc:  # a picture that is none
            raise EngineError(protocol.ERR_BAD_REQUEST, message_of(exc)) from exc
        prompt, limit = fitted.tokens, fitted.limit
        control.tokens(len(prompt), 0)
        # A seed serves its own request only: without one, a fresh random seed, so the
        # draw does not go on from where a seeded request left torch's generator.
        seed = int(params["seed"]) if params.get("seed") is not None else -1
        torch.manual_seed(seed if seed >= 0 else secrets.randbits(63))
        template_stops = FALLBACK_STOPS if self.template_source == "fallback" else ()
        streamer = Streamer(
            self.tokenizer, emit, (*template_stops, *request_stops(params.get("stop")))
        )
        if self.opens_thinking and not continuing:
            emit({"type": protocol.DELTA, "text": THINK_OPEN})  # the template's own <think>
        temperature = float(params.get("temperature", SAMPLING["temperature"]))
        sampling: dict[str, Any] = {"do_sample": temperature > 0}
        if temperature > 0:
            sampling.update(
                temperature=temperature,
                top_p=float(params.get("top_p", SAMPLING["top_p"])),
                top_k=int(params.get("top_k", SAMPLING["top_k"])),
            )
            min_p = float(params.get("min_p", SAMPLING["min_p"]) or 0.0)
            if min_p:
                sampling["min_p"] = min_p
        processors = self.transformers.LogitsProcessorList()
        bias = token_bias(params.get("logit_bias"), len(self.tokenizer))
        if bias:
            processors.append(LogitBias(bias))
        penalties = ReplyPenalties(
            float(params.get("repeat_penalty", SAMPLING["repeat_penalty"]) or 1.0),
            float(params.get("frequency_penalty") or 0.0),
            float(params.get("presence_penalty") or 0.0),
            len(prompt),
        )
        if penalties.active:
            processors.append(penalties)
        sampling["logits_processor"] = processors
        if params.get("ignore_eos"):
            sampling["min_new_tokens"] = limit
        stop = self.transformers.StoppingCriteriaList(
            [CancelCriterion(control, streamer, len(prompt))]
        )
        input_ids = torch.tensor([prompt], device=self.model.device)
        extra = pictures.inputs(prompt, self.model.device, self.model.dtype) if pictures else {}
        try:
            with torch.inference_mode():
                self.model.generate(
                    input_ids=input_ids,
                    **extra,
                    attention_mask=torch.ones_like(input_ids),
                    max_new_tokens=max(limit, 1),
                    streamer=streamer,
                    stopping_criteria=stop,
                    pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
                    **sampling,
                    **generation_kwargs(self.spec, self.device == "cuda"),
                )
        except (torch.cuda.OutOfMemoryError, MemoryError) as exc:
            raise OutOfMemory("generating") from exc
        except RuntimeError as exc:
            if "out of memory" in str(exc).lower() or "can't allocate" in str(exc).lower():
                raise OutOfMemory("generating") from exc
            raise
        streamer.finish()
        notice = stop_notice(streamer.assembler, request_stops(params.get("stop")))
        if notice:
            emit(notice)
        if control.cancelled():
            finish = protocol.FINISH_CANCELLED
        elif streamer.stopped_by_text or streamer.generated < limit:
            finish = protocol.FINISH_STOP
        else:
            finish = protocol.FINISH_LENGTH
        if params.get("final_text"):
            whole = self.tokenizer.decode(streamer.ids, skip_special_tokens=True).rstrip("\ufffd")
            emit(
                {
                    "type": protocol.NOTICE,
                    "kind": protocol.NOTICE_FINAL_TEXT,
                    "text": whole.lstrip(" "),
                }
            )
        now = time.perf_counter()
        emit(
            stats_event(
                len(prompt),
                streamer.generated,
                started,
                streamer.first_at,
                streamer.last_at or now,
                now,
                dropped_messages=fitted.dropped,
                device=self.device,
                **({"image_tokens": image_tokens(self.model, prompt)} if extra else {}),
            )
        )
        return finish

    def _pictures(self, messages: list[dict[str, Any]], continuing: bool) -> PictureInputs | None:
        """A checkpoint that reads pictures renders every prompt through its processor
        (its template takes lists of parts); one that does not refuses pictures in words."""
        if self.processor is None:
            if images.has_images(messages):
                raise EngineError(
                    protocol.ERR_BAD_REQUEST,
                    Phrase(
                        "This model reads text only, so it cannot see the pictures. Choose a "
                        "model that reads images, or send the message without them."
                    ),
                )
            return None
        render = bounded_render(lambda chosen: self._prompt_text(chosen, continuing))
        return PictureInputs(self.processor, render)

    def close(self) -> None:
        self.model = None
        self.tokenizer = None
        import gc

        gc.collect()
        if self.torch.cuda.is_available():
            self.torch.cuda.empty_cache()
