"""``hearth chat``: one exchange through the same chat session as the window, its answer on
stdout (or one JSON event per line), its thinking and notes on stderr."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any, TextIO

from app.cli import chat_tools
from app.cli.common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    REPLY_FLAGS,
    advice,
    check_ranges,
    say_note,
    stdin_text,
)
from app.cli.terminal import Terminal
from app.core import Core
from app.engine.seat import Seat
from app.files import open_regular
from app.models.endpoints import FORMAT as ENDPOINT_FORMAT
from wire import images
from wire.phrases import Phrase, message_of

log = logging.getLogger(__name__)


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    chat = commands.add_parser(
        "chat",
        parents=[common],
        help="stream a reply to a prompt on stdout",
        description="Stream the reply to PROMPT on stdout. Reads the prompt from stdin when "
        "PROMPT is '-' or missing.",
    )
    chat.add_argument("prompt", nargs="?", default="-")
    chat.add_argument(
        "--model",
        "-m",
        help="model name (see 'hearth models list') or path "
        "to a .gguf file; default: the last one used, else the starter model",
    )
    chat.add_argument(
        "--engine",
        choices=("llama.cpp", "llama_cpp", "transformers"),
        help="the engine the model must run on: llama.cpp (GGUF files) or transformers "
        "(Hugging Face checkpoints, on the PyTorch engine; see 'hearth engines'); a model "
        "of the other kind is refused",
    )
    chat.add_argument("--temperature", type=float, metavar="T")
    chat.add_argument("--top-p", type=float, metavar="P")
    chat.add_argument("--seed", type=int, metavar="N")
    chat.add_argument("--max-tokens", type=int, metavar="N")
    chat.add_argument("--ctx", type=int, metavar="N", help="context length in tokens")
    chat.add_argument("--system", metavar="TEXT", help="system prompt")
    chat.add_argument(
        "--runtime",
        metavar="NAME",
        help="run a GGUF model on this llama.cpp runtime (cpu, vulkan, cuda, metal; see "
        "'hearth sysinfo'); default: the fastest that works here",
    )
    chat.add_argument(
        "--gpu-layers",
        type=int,
        metavar="N",
        help="layers of a GGUF model on the GPU: -1 all, 0 none; default: as many as fit",
    )
    chat.add_argument(
        "--endpoint",
        metavar="URL",
        help="an OpenAI-compatible server (vLLM, trtllm-serve, Ollama, "
        "llama-server, …); --model then names the model there",
    )
    chat.add_argument(
        "--api-key", metavar="KEY", help="API key for --endpoint (default: $HEARTH_API_KEY)"
    )
    chat.add_argument(
        "--json",
        action="store_true",
        help="print one JSON event per line (delta with text and reasoning, stats, done, "
        "error; tool_call and tool_result with tools; saved with --save)",
    )
    chat.add_argument(
        "--hide-reasoning",
        action="store_true",
        help="leave out a reasoning model's thinking (by default it goes to stderr, or in "
        "--json to the deltas' reasoning field)",
    )
    chat.add_argument(
        "--save",
        action="store_true",
        help="keep the exchange as a conversation in Hearth's history (the window shows it)",
    )
    chat.add_argument(
        "--collection",
        action="append",
        default=[],
        metavar="NAME",
        help="answer from a document collection (see 'hearth docs'); repeat for several",
    )
    chat.add_argument(
        "--attach",
        action="append",
        default=[],
        metavar="FILE",
        help="give the model a file (whole if it fits, else its passages that match the "
        "question); repeat for several",
    )
    chat.add_argument(
        "--image",
        action="append",
        default=[],
        metavar="FILE",
        help="show the model a picture (PNG, JPEG, GIF, BMP or WebP; a model that reads "
        "images, see 'hearth models list'); repeat for several",
    )
    chat.add_argument(
        "--continue",
        dest="continue_id",
        type=int,
        metavar="ID",
        help="go on with conversation ID of the history (saved too); --system replaces its "
        "system prompt",
    )
    chat_tools.add_arguments(chat)
    chat.set_defaults(run=cmd_chat)


def cmd_chat(core: Core, args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``hearth chat``: one exchange through the same chat session as the window."""
    out = out or sys.stdout  # as it is now, not as it was at import
    from app.chat.session import ChatSession
    from app.chat.store import ChatStore
    from app.errors import HearthError

    check_ranges(args)
    # stdin as bytes: the session's input policy (wire.text) decides about what is not UTF-8
    prompt = stdin_text() if args.prompt == "-" else args.prompt
    if not prompt.strip():
        raise HearthError(Phrase("The prompt is empty. Pass it as an argument or on stdin."))
    core.learn_machine()  # the GPU, as the window would use it
    entry, spec_for = _chat_model(core, args)
    saving = args.save or args.continue_id is not None
    # Without --save the exchange lives in memory only: the same session, nothing kept.
    store = core.open_store() if saving else ChatStore(":memory:")
    store.on_note = say_note
    if store.recovery_note:
        say_note(store.recovery_note)
    seat = Seat(core.engines)
    seat.label = entry.name
    terminal = Terminal(out, sys.stderr, args.json, args.hide_reasoning)
    closers: list[Any] = []
    try:
        try:
            session = ChatSession(core.settings, store, seat, spec_for, terminal, args.continue_id)
        except KeyError:
            raise HearthError(
                Phrase("There is no conversation {0} in Hearth's history.", args.continue_id)
            ) from None
        session.model = entry
        session.advice = advice(entry)
        session.overrides = _flag_values(args)
        if args.system is not None:
            session.set_instructions(args.system, session.own_settings)
        if chat_tools.wanted(args):
            session.tools = _tools(core, args, closers)
            terminal.approve = chat_tools.TerminalApproval(args, session.tools.offered).decide
        documents = None
        if args.collection or args.attach:
            documents = _grounding(core, session, prompt, args)
            terminal.grounded(documents)
        given = [read_picture(Path(name)) for name in args.image]
        if given:
            session.ready_for_pictures()  # said before anything is kept
        reply = session.send(
            prompt,
            documents=documents.to_json() if documents else None,
            pictures=[session.keep_picture(data, name) for data, name in given],
        )
        assert reply is not None
        interrupted = False

        def on_sigint(_signum: int, _frame: object) -> None:
            nonlocal interrupted
            interrupted = True
            session.stop()

        previous = signal.signal(signal.SIGINT, on_sigint)
        try:
            session.wait()
        finally:
            signal.signal(signal.SIGINT, previous)
    finally:
        for close in reversed(closers):
            close()
        core.engines.close()
        store.close()
    terminal.end()
    if documents is not None and not reply.error:
        terminal.sources(documents, reply.text)
    if reply.error:
        print(f"hearth: {reply.error}", file=sys.stderr)
        return EXIT_ERROR
    if saving and reply.save_failed:  # the reply was shown, not kept whole: said above
        return EXIT_ERROR
    if saving:
        terminal.saved(reply.conversation_id, reply.message_id)
    if entry.format != ENDPOINT_FORMAT:  # a server's model is chosen in its own way
        try:
            core.remember_model(entry)
        except OSError as exc:  # the reply was given: a setting that cannot be saved is a note
            log.warning("could not remember the model", exc_info=True)
            say_note(
                Phrase(
                    "Hearth could not save {0} as the model to use next time ({1}).",
                    entry.name,
                    exc.strerror or exc,
                )
            )
    return EXIT_INTERRUPTED if interrupted or terminal.interrupted else EXIT_OK


def read_picture(path: Path) -> tuple[bytes, str]:
    """A picture file given with ``--image``: its bytes and name (HearthError in words when
    it cannot be read, or is no picture a model reads)."""
    from app.errors import HearthError

    try:
        with open_regular(path) as file:
            size = os.fstat(file.fileno()).st_size
            if size > images.MAX_IMAGE_BYTES:  # said without reading it all
                raise HearthError(message_of(images.too_large(size, path.name)))
            return images.checked(file.read(), path.name), path.name
    except images.ImageRefused as exc:
        raise HearthError(message_of(exc)) from exc
    except OSError as exc:
        raise HearthError(
            Phrase("The picture {0} cannot be read: {1}", str(path), exc.strerror or exc)
        ) from exc


def _tools(core: Core, args: argparse.Namespace, closers: list[Any]) -> Any:
    """The tools of ``--tools``/``--mcp-config``, their servers started (and stopped by
    ``closers``); Hearth's document search reads ``--collection``."""
    search = None
    if args.collection:
        from app.documents import open_documents

        documents = open_documents(core)
        closers.append(documents.close)
        search = documents.search
    tools, stop = chat_tools.chat_tools(core, args, search)
    closers.append(stop)
    return tools


def _grounding(core: Core, session: Any, prompt: str, args: argparse.Namespace) -> Any:
    """What ``--collection`` and ``--attach`` give the model, sized to its context."""
    from app.documents import open_documents

    documents = open_documents(core)
    try:
        return documents.ground(
            prompt,
            collections=list(args.collection),
            attachments=[Path(p) for p in args.attach],
            budget_tokens=session.room_for_documents(prompt),
            k=int(core.settings.get("documents.passages")),
        )
    finally:
        documents.close()


def _chat_model(core: Core, args: argparse.Namespace) -> tuple[Any, Any]:
    """The model ``hearth chat`` talks to, and how to build its spec."""
    if not args.endpoint:
        runtime = str(getattr(args, "runtime", None) or "")
        layers = getattr(args, "gpu_layers", None)

        def spec_for(entry: Any, n_ctx: int | None) -> Any:
            spec = core.load_spec(entry, n_ctx).on_runtime(runtime)
            return spec.with_gpu_layers(int(layers)) if layers is not None else spec

        entry = core.find_model(args.model)
        _check_engine(entry, getattr(args, "engine", None))
        return entry, spec_for
    from pathlib import Path

    from app.models.library import ModelEntry
    from wire.model_spec import REMOTE, ModelSpec

    key = args.api_key or os.environ.get("HEARTH_API_KEY", "")
    if key:
        os.environ["HEARTH_REMOTE_API_KEY"] = key  # reaches the worker, not the pipe
    name = args.model or ""
    entry = ModelEntry(
        f"{name or 'default'} @ {args.endpoint}", Path(args.endpoint), REMOTE, 0, "endpoint"
    )
    spec = ModelSpec(path=args.endpoint, n_ctx=args.ctx or 0, engine=REMOTE, remote_model=name)
    return entry, lambda _entry, _n_ctx: spec


def _check_engine(entry: Any, engine: str | None) -> None:
    """``--engine``: the model must be of the kind that engine runs."""
    from app.engines import engine_for
    from app.errors import HearthError

    if engine is None:
        return
    runs_on = engine_for(entry.format).name
    if runs_on != engine.replace(".", "_"):
        raise HearthError(
            Phrase(
                "{0} runs on the {1} engine, not on {2} (--engine): choose a model of the "
                "other kind, or leave out --engine.",
                entry.name,
                runs_on,
                engine,
            )
        )


def _flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The reply settings given as flags (for this exchange; never saved)."""
    values = {key: getattr(args, name, None) for _flag, name, key in REPLY_FLAGS}
    return {key: value for key, value in values.items() if value is not None}
