"""Hearth's command line (the commands that need no window).

Every command reports a failure as one human sentence on stderr and a non-zero exit
code; the traceback goes to the log file.  ``hearth chat`` uses the same ``EngineClient``
and worker as the window, so a prompt behaves the same in both.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from app import __version__
from app.chat.session import SessionListener
from app.core import Core
from app.engine_client import EngineClient
from wire import protocol
from wire.phrases import Phrase, message_of

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        metavar="DIR",
        help="keep all of Hearth's state (chats, settings, logs, models) in DIR "
        "(default: $HEARTH_DATA_DIR, else the platform's data folder)",
    )
    parser = argparse.ArgumentParser(
        prog="hearth",
        parents=[common],
        description="Private, offline chat with open language models. Without a command, "
        "opens the Hearth window.",
    )
    parser.add_argument("--version", action="version", version=f"Hearth {__version__}")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="start the window offscreen, stream a short reply from the default model, check "
        "it was shown and saved, and exit 0 (non-zero with the reason otherwise)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

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
        "error; saved with --save)",
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
        "--continue",
        dest="continue_id",
        type=int,
        metavar="ID",
        help="go on with conversation ID of the history (saved too); --system replaces its "
        "system prompt",
    )

    models = commands.add_parser("models", parents=[common], help="list the models Hearth can use")
    models_commands = models.add_subparsers(dest="models_command", metavar="ACTION")
    listing = models_commands.add_parser("list", parents=[common], help="list models")
    listing.add_argument("--json", action="store_true", help="print a JSON list")
    catalog = models_commands.add_parser(
        "catalog",
        parents=[common],
        help="Hearth's recommended models, best first for this machine",
    )
    catalog.add_argument("--json", action="store_true", help="print a JSON list")
    catalog.add_argument(
        "--refresh",
        action="store_true",
        help="first ask the hub for today's file names and sizes (kept for later, offline "
        "too); without it nothing is asked of a hub",
    )
    remove = models_commands.add_parser(
        "rm", parents=[common], help="delete a model Hearth downloaded (asks first)"
    )
    remove.add_argument("name", help="model name (see 'hearth models list') or path")
    remove.add_argument("--yes", "-y", action="store_true", help="do not ask")

    sysinfo = commands.add_parser(
        "sysinfo", parents=[common], help="what Hearth found on this machine"
    )
    sysinfo.add_argument("--json", action="store_true", help="print JSON")

    fit = commands.add_parser(
        "fit",
        parents=[common],
        help="will a model fit on this machine, and where",
        description="Estimate the memory a model needs (weights, KV cache, overhead) and "
        "whether it fits on the GPU, partly on the GPU, on the CPU, or not at all.",
    )
    fit.add_argument("model", help="model name (see 'hearth models list') or path")
    fit.add_argument("--ctx", type=int, metavar="N", help="context length (default: settings)")
    fit.add_argument("--json", action="store_true", help="print JSON")

    serve = commands.add_parser(
        "serve",
        parents=[common],
        help="an OpenAI-, Ollama- and Anthropic-compatible API, for editors and scripts",
        description="Serve the library's models (or one, with --model) in OpenAI's, Ollama's "
        "and Anthropic's dialects. Binds 127.0.0.1 unless --host says otherwise (then an "
        "API key is required).",
    )
    serve.add_argument(
        "--model",
        "-m",
        help="serve only this model (name or path), whatever a request names; without it, "
        "every model of the library, loaded when a request names it",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument(
        "--api-key",
        metavar="KEY",
        help="require this key (Authorization: Bearer). Visible to other users in the "
        "process list: prefer --api-key-file, $HEARTH_SERVE_API_KEY or the system keyring "
        "(service Hearth, name serve)",
    )
    serve.add_argument(
        "--api-key-file", metavar="PATH", help="require the key written in this file"
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="allow browser requests from this origin (repeatable)",
    )
    serve.add_argument("--ctx", type=int, metavar="N", help="context length in tokens")

    pull = commands.add_parser(
        "pull",
        parents=[common],
        help="download a model from Hugging Face or ModelScope",
        description="Download (resumable, verified) from a repository. Without --file, Hearth "
        "picks the usual quantization (Q4_K_M) or the whole checkpoint.",
    )
    pull.add_argument(
        "repo",
        help="repository id (e.g. bartowski/Qwen2.5-1.5B-Instruct-GGUF) or a name from "
        "'hearth models catalog' (e.g. qwen3-4b)",
    )
    pull.add_argument(
        "--file",
        "-f",
        metavar="PATTERN",
        help="file name glob (e.g. '*Q8_0.gguf') or a quantization (Q8_0)",
    )
    pull.add_argument(
        "--source",
        choices=("hf", "modelscope"),
        default=None,
        help="where to download from (default: hf for a repository; for a catalogue name, "
        "modelscope on a Chinese locale, else hf)",
    )

    from app.docs_commands import add_parser as add_docs_parser

    add_docs_parser(commands, common)

    bench = commands.add_parser(
        "bench",
        parents=[common],
        help="measure Hearth against its budgets (tokens/s, first token, start-up, memory)",
    )
    bench.add_argument("--model", "-m", help="model name or .gguf path (default: starter)")
    bench.add_argument("--tokens", type=int, default=256, help="tokens per measured reply")
    bench.add_argument("--rounds", type=int, default=5, help="alternating rounds per side")
    bench.add_argument(
        "--chat-tokens",
        type=int,
        default=20_000,
        help="length of the streamed Markdown reply in the chat benchmark (0 skips it)",
    )
    bench.add_argument(
        "--api",
        action="store_true",
        help="also measure hearth serve and the remote engine (needs the openai package and "
        "llama-cpp-python[server])",
    )
    bench.add_argument(
        "--docs",
        action="store_true",
        help="also measure documents: recall@5 of BM25 and hybrid search on a generated "
        "corpus, query latency over 10,000 passages, indexing throughput",
    )
    bench.add_argument(
        "--docs-only", action="store_true", help="measure documents only (see --docs)"
    )
    bench.add_argument(
        "--docs-corpus",
        metavar="FOLDER",
        help="with --docs: also index this real folder (for example the HTML Python "
        "documentation) and report its throughput",
    )
    bench.add_argument(
        "--download-mb",
        type=int,
        default=256,
        help="size of the loopback download test (0 skips it)",
    )
    bench.add_argument(
        "--json",
        action="store_true",
        help='print a JSON list of {"name","value","unit","budget","ok"}',
    )
    return parser


# The reply settings a flag sets: (flag, argument, the setting it overrides).  Ranges come
# from the settings declaration.
REPLY_FLAGS = (
    ("--temperature", "temperature", "sampling.temperature"),
    ("--top-p", "top_p", "sampling.top_p"),
    ("--max-tokens", "max_tokens", "sampling.max_tokens"),
    ("--ctx", "ctx", "engine.context_length"),
    ("--seed", "seed", "sampling.seed"),
)


def _check_ranges(args: argparse.Namespace) -> None:
    from app.errors import HearthError
    from app.settings import BY_KEY

    for flag, name, key in REPLY_FLAGS:
        value = getattr(args, name, None)
        if value is None:
            continue
        try:
            BY_KEY[key].validate(value)
        except ValueError:
            low, high = BY_KEY[key].minimum, BY_KEY[key].maximum
            raise HearthError(
                Phrase(
                    "{0} must be between {1} and {2}, not {3}.", flag, _num(low), _num(high), value
                )
            ) from None


def _num(value: float | None) -> str:
    """1.0 as "1", 0.5 as "0.5": limits as a person writes them."""
    return f"{value:g}" if value is not None else ""


def cmd_chat(core: Core, args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """``hearth chat``: one exchange through the same chat session as the window."""
    from app.chat.session import ChatSession
    from app.chat.store import ChatStore
    from app.errors import HearthError

    _check_ranges(args)
    # stdin as bytes: the session's input policy (wire.text) decides about what is not UTF-8
    prompt = _stdin_text() if args.prompt == "-" else args.prompt
    if not prompt.strip():
        raise HearthError(Phrase("The prompt is empty. Pass it as an argument or on stdin."))
    core.learn_machine()  # the GPU, as the window would use it
    entry, spec_for = _chat_model(core, args)
    saving = args.save or args.continue_id is not None
    # Without --save the exchange lives in memory only: the same session, nothing kept.
    store = core.open_store() if saving else ChatStore(":memory:")
    store.on_note = _say_note
    if store.recovery_note:
        _say_note(store.recovery_note)
    client = EngineClient(log_dir=core.paths.logs_dir)
    terminal = _Terminal(out, sys.stderr, args.json, args.hide_reasoning)
    try:
        try:
            session = ChatSession(
                core.settings, store, client, spec_for, terminal, args.continue_id
            )
        except KeyError:
            raise HearthError(
                Phrase("There is no conversation {0} in Hearth's history.", args.continue_id)
            ) from None
        session.model = entry
        session.advice = _advice(entry)
        session.overrides = _flag_values(args)
        if args.system is not None:
            session.set_instructions(args.system, session.own_settings)
        documents = None
        if args.collection or args.attach:
            documents = _grounding(core, session, prompt, args)
            terminal.grounded(documents)
        reply = session.send(prompt, documents=documents.to_json() if documents else None)
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
        client.close()
        store.close()
    terminal.end()
    if documents is not None and not reply.error:
        terminal.sources(documents, reply.text)
    if reply.error:
        print(f"hearth: {reply.error}", file=sys.stderr)
        return EXIT_ERROR
    if saving:
        terminal.saved(reply.conversation_id, reply.message_id)
    if entry.format != "remote":
        try:
            core.remember_model(entry)
        except OSError as exc:  # the reply was given: a setting that cannot be saved is a note
            log.warning("could not remember the model", exc_info=True)
            _say_note(
                Phrase(
                    "Hearth could not save {0} as the model to use next time ({1}).",
                    entry.name,
                    exc.strerror or exc,
                )
            )
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def _grounding(core: Core, session: Any, prompt: str, args: argparse.Namespace) -> Any:
    """What ``--collection`` and ``--attach`` give the model, sized to its context."""
    from app.docs_commands import open_documents

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


def _advice(entry: Any) -> dict[str, Any]:
    """What the model's authors recommend for sampling (as the window applies it)."""
    from app.chat.presets import recommended_sampling

    return recommended_sampling(entry) if entry.format != "remote" else {}


def _say_note(note: str) -> None:
    """What Hearth repaired on its own: said on stderr, the command goes on."""
    print(f"hearth: {note}", file=sys.stderr, flush=True)


def _stdin_text() -> str:
    return sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")


def _chat_model(core: Core, args: argparse.Namespace) -> tuple[Any, Any]:
    """The model ``hearth chat`` talks to, and how to build its spec."""
    if not args.endpoint:
        runtime = str(getattr(args, "runtime", None) or "")
        layers = getattr(args, "gpu_layers", None)

        def spec_for(entry: Any, n_ctx: int | None) -> Any:
            spec = core.load_spec(entry, n_ctx).on_runtime(runtime)
            return spec.with_gpu_layers(int(layers)) if layers is not None else spec

        return core.find_model(args.model), spec_for
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


def _flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The reply settings given as flags (for this exchange; never saved)."""
    values = {key: getattr(args, name, None) for _flag, name, key in REPLY_FLAGS}
    return {key: value for key, value in values.items() if value is not None}


class _Terminal(SessionListener):
    """``hearth chat`` on a terminal: the answer on stdout, thinking and notes on stderr
    (thinking dimmed on a terminal), or with ``--json`` one event per line."""

    DIM, PLAIN = "\x1b[2m", "\x1b[0m"

    def __init__(self, out: TextIO, err: TextIO, as_json: bool, hide_reasoning: bool) -> None:
        self.out, self.err = out, err
        self.as_json, self.hide_reasoning = as_json, hide_reasoning
        self.dim = err.isatty()
        self.ended_with_newline = True
        self.thinking = False  # thinking was printed and the answer has not started

    def _print(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def engine_event(self, session: Any, reply: Any, event: dict[str, Any]) -> None:
        if not self.as_json:
            return
        public = _public_event(event)
        if self.hide_reasoning and event["type"] == protocol.DELTA:
            public.pop(protocol.DELTA_REASONING, None)
            if not public.get(protocol.DELTA_TEXT) and not public.get(protocol.MOVED_TO_REASONING):
                return
        self._print(json.dumps(public, ensure_ascii=False) + "\n")

    def reply_text(self, session: Any, reply: Any, text: str) -> None:
        if self.as_json:
            return
        self._end_thinking()
        self._print(text)
        self.ended_with_newline = text.endswith("\n")

    def reply_reasoning(self, session: Any, reply: Any, text: str) -> None:
        if self.as_json or self.hide_reasoning:
            return
        self.err.write(f"{self.DIM}{text}{self.PLAIN}" if self.dim else text)
        self.err.flush()
        self.thinking = True

    def notice(self, message: str) -> None:
        if not self.as_json:
            print(f"[{message}]", file=self.err)

    def reply_stats(self, session: Any, reply: Any, stats: dict[str, Any]) -> None:
        if not self.as_json:
            self._end_thinking()
            print(_stats_line(stats), file=self.err)

    def _end_thinking(self) -> None:
        """Thinking went to stderr without a line break: end its line."""
        if self.thinking:
            self.err.write("\n")
            self.err.flush()
            self.thinking = False

    def problem(self, exc: BaseException, doing: str) -> None:
        from app.errors import describe_error

        print(f"hearth: {describe_error(exc, doing)}", file=self.err)

    def end(self) -> None:
        if not self.as_json and not self.ended_with_newline:
            self._print("\n")

    def grounded(self, grounding: Any) -> None:
        """What the model is given besides the question: a ``sources`` event with
        ``--json``, else the notes (a file given as passages, nothing found) on stderr."""
        if self.as_json:
            sources = [
                {k: v for k, v in source.to_json().items() if k != "whole"}
                for source in grounding.sources
            ]
            event = {
                "type": "sources",
                "sources": sources,
                "notes": [str(n) for n in grounding.notes],
            }
            self._print(json.dumps(event, ensure_ascii=False) + "\n")
            return
        for note in grounding.notes:
            print(f"[{note}]", file=self.err)

    def sources(self, grounding: Any, answer: str) -> None:
        """After the answer: its numbered sources, the ones it cited marked."""
        from app.docs.grounding import cited_numbers

        cited = cited_numbers(answer)
        if self.as_json:
            known = sorted(n for n in cited if 1 <= n <= len(grounding.sources))
            self._print(json.dumps({"type": "cited", "sources": known}) + "\n")
            return
        if not grounding.sources:
            return
        self._print("\nSources:\n")
        for source in grounding.sources:
            mark = "" if source.n in cited else "  (given to the model, not cited)"
            self._print(f"[{source.n}] {source.label}{mark}\n")

    def saved(self, conversation_id: int, message_id: int) -> None:
        if self.as_json:
            event = {"type": "saved", "conversation_id": conversation_id, "message_id": message_id}
            self._print(json.dumps(event) + "\n")
        else:
            print(
                f"[saved as conversation {conversation_id}; go on with: "
                f"hearth chat --continue {conversation_id} …]",
                file=self.err,
            )


def _public_event(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "id"}


def _stats_line(stats: dict[str, Any]) -> str:
    speed = stats.get("tokens_per_s")
    parts = [f"{stats.get('generated_tokens', 0)} tokens"]
    if speed:
        parts.append(f"{speed:.1f} tok/s")
    if stats.get("ttft_ms") is not None:
        parts.append(f"first token {stats['ttft_ms']:.0f} ms")
    if stats.get("runtime"):
        parts.append(f"llama.cpp {stats['runtime']}")
    return "[" + " · ".join(parts) + "]"


def cmd_models(core: Core, args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    models = core.models()
    if getattr(args, "json", False):
        out.write(json.dumps([m.as_json() for m in models], indent=2) + "\n")
        return EXIT_OK
    if not models:
        out.write(f"No models found. Put .gguf files into {core.models_dir}.\n")
        return EXIT_OK
    width = max(len(m.name) for m in models)
    for m in models:
        size = f"{m.size_bytes / 1e6:,.0f} MB"
        facts = " ".join(x for x in (m.architecture, m.quantization) if x)
        note = f"  (unusable: {m.problem})" if m.problem else ""
        out.write(f"{m.name:<{width}}  {size:>9}  {facts:<16} {m.source:<10} {m.path}{note}\n")
    return EXIT_OK


def cmd_models_catalog(
    core: Core, args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    """``hearth models catalog``: the curated models, best first for this machine, with
    the fit verdict; ``hearth pull NAME`` fetches one."""
    from app.hub.catalog import load_catalog, preferred_source, ranked
    from app.hub.catalog_refresh import check_hub, current_catalog, summary

    if getattr(args, "refresh", False):
        language = str(core.settings.get("appearance.language"))
        checked = check_hub(core, load_catalog(), preferred_source(language))
        for name, problem in checked.problems.items():
            err.write(f"{name}: {problem}\n")
    core.learn_machine()
    context = int(core.settings.get("engine.context_length"))
    entries, facts = current_catalog(core.paths.data_dir)
    if facts.problem:
        err.write(f"{facts.problem}\n")
    listing = ranked(core.machine_facts(), context, entries)
    if getattr(args, "json", False):
        out.write(json.dumps([r.to_json() for r in listing], indent=2) + "\n")
        return EXIT_OK
    width = max(len(r.entry.name) for r in listing)
    for item in listing:
        entry, fit = item.entry, item.estimate
        speed = f", ~{fit.tokens_per_s:.0f} tok/s" if fit.tokens_per_s else ""
        out.write(
            f"{entry.name:<{width}}  {entry.size_bytes / 1e9:5.1f} GB  {entry.purpose:<12} "
            f"{fit.verdict_text}{speed}\n"
        )
    out.write(f"\n{summary(facts, len(entries))}\nDownload one with: hearth pull NAME\n")
    return EXIT_OK


def cmd_models_rm(core: Core, args: argparse.Namespace) -> int:
    from app.errors import HearthError
    from app.hub.library_actions import delete_model

    models = core.models()
    try:
        entry = next(m for m in models if args.name in (m.name, str(m.path), m.path.name))
    except StopIteration:
        raise HearthError(
            Phrase("No model called {0!r}; see 'hearth models list'.", args.name)
        ) from None
    if not args.yes:
        if not sys.stdin.isatty():
            raise HearthError(Phrase("Add --yes to delete without being asked."))
        answer = input(f"Delete {entry.name} ({entry.size_bytes / 1e6:,.0f} MB)? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            return EXIT_OK
    removed = delete_model(core, entry)
    print(f"Deleted {entry.name} ({removed / 1e6:,.0f} MB freed).", file=sys.stderr)
    return EXIT_OK


def cmd_sysinfo(core: Core, args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    from app.machine.hardware import probe_system
    from app.machine.system_check import format_facts

    facts = probe_system(core.models_dir)
    if args.json:
        out.write(json.dumps(facts.to_json(), indent=2) + "\n")
    else:
        out.write(format_facts(facts) + "\n")
    return EXIT_OK


def cmd_fit(core: Core, args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    from app.machine.fit_service import estimate_entry
    from app.machine.hardware import probe_system
    from app.models.library import resolve_model

    models = core.models()
    try:
        entry = resolve_model(args.model, models)
    except LookupError as exc:
        from app.errors import HearthError

        raise HearthError(message_of(exc)) from exc
    ctx = args.ctx or int(core.settings.get("engine.context_length"))
    result = estimate_entry(entry, probe_system(core.models_dir), ctx)
    if args.json:
        out.write(json.dumps(result.to_json(), indent=2) + "\n")
        return EXIT_OK
    gib = 1e9
    out.write(
        f"{entry.name} at {ctx} tokens of context: {result.verdict_text}\n"
        f"  weights   {result.weights_bytes / gib:8.2f} GB\n"
        f"  KV cache  {result.kv_cache_bytes / gib:8.2f} GB\n"
        f"  overhead  {result.overhead_bytes / gib:8.2f} GB\n"
        f"  total     {result.total_bytes / gib:8.2f} GB (peak {result.peak_bytes / gib:.2f} GB)\n"
    )
    if result.gpu_layers is not None:
        out.write(f"  GPU layers {result.gpu_layers} of {result.n_layers}\n")
    if result.speed_hint:
        out.write(f"  expected speed: {result.speed_hint}\n")
    for note in result.notes:
        out.write(f"  note: {note}\n")
    return EXIT_OK


def _server_key(args: argparse.Namespace) -> str:
    """The key ``hearth serve`` requires: --api-key, --api-key-file, then
    $HEARTH_SERVE_API_KEY, then the keyring; empty when none is set."""
    from app.errors import HearthError
    from app.secrets import get_token

    if args.api_key:
        return str(args.api_key)
    if args.api_key_file:
        try:
            key = Path(args.api_key_file).expanduser().read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise HearthError(
                Phrase("The API key file {0} cannot be read ({1}).", args.api_key_file, exc)
            ) from exc
        if not key:
            raise HearthError(Phrase("The API key file {0} is empty.", args.api_key_file))
        return key
    return get_token("serve") or ""


def cmd_serve(core: Core, args: argparse.Namespace) -> int:
    _check_ranges(args)
    core.learn_machine()  # the GPU, as the window would use it, and the memory budgets
    if not args.model:
        return _serve_library(core, args)
    from app.docs.library import api_grounder
    from app.docs_commands import open_documents
    from app.serve.api_server import ServerConfig, serve_forever

    entry = core.find_model(args.model)
    spec = core.load_spec(entry, args.ctx)
    documents = open_documents(core)
    config = ServerConfig(
        host=args.host,
        port=args.port,
        api_key=_server_key(args),
        allowed_origins=tuple(args.allow_origin),
        model_name=entry.name,
        model_facts=entry.as_json(),
        ground=api_grounder(documents),
    )
    config.check()
    client = EngineClient(log_dir=core.paths.logs_dir)

    def ready(url: str) -> None:
        print(f"Serving {entry.name} at {url} (Ctrl+C to stop)", file=sys.stderr, flush=True)

    try:
        serve_forever(client, spec, config, core.sampling(_advice(entry)), ready)
    finally:
        client.close()
        documents.close()
    return EXIT_OK


def _serve_library(core: Core, args: argparse.Namespace) -> int:
    """``hearth serve`` without ``--model``: every model of the library, each loaded when
    a request names it (the default model when a request names none)."""
    from app.docs.library import api_grounder
    from app.docs_commands import open_documents
    from app.library_offer import LibraryOffer
    from app.serve.api_server import ServerConfig, serve_models
    from app.serve.model_pool import ModelPool
    from app.serve.served_models import LibraryModels

    offer = LibraryOffer(core, args.ctx)
    default = offer.first()  # an empty library is said now, not at the first request
    documents = open_documents(core)
    config = ServerConfig(
        host=args.host,
        port=args.port,
        api_key=_server_key(args),
        allowed_origins=tuple(args.allow_origin),
        model_name=default.name,
        ground=api_grounder(documents),
    )
    config.check()
    pool = ModelPool(
        offer.offered,
        core.paths.logs_dir,
        offer.budget_bytes(),
        60.0 * float(core.settings.get("server.keep_alive_minutes")),
        vram_budget_bytes=offer.vram_budget_bytes(),
    )

    def ready(url: str) -> None:
        count = len(offer.offered())
        print(
            f"Serving {count} model(s) of the library at {url}, {default.name} by default "
            "(Ctrl+C to stop)",
            file=sys.stderr,
            flush=True,
        )

    try:
        serve_models(LibraryModels(pool), config, ready)
    finally:
        pool.close()
        documents.close()
    return EXIT_OK


def run_command(core: Core, args: argparse.Namespace) -> int:
    if args.command == "serve":
        return cmd_serve(core, args)
    if args.command == "sysinfo":
        return cmd_sysinfo(core, args)
    if args.command == "fit":
        return cmd_fit(core, args)
    if args.command == "chat":
        return cmd_chat(core, args)
    if args.command == "models" and args.models_command == "rm":
        return cmd_models_rm(core, args)
    if args.command == "models" and args.models_command == "catalog":
        return cmd_models_catalog(core, args)
    if args.command == "models":
        return cmd_models(core, args)
    if args.command == "docs":
        from app.docs_commands import cmd_docs

        return cmd_docs(core, args)
    if args.command == "pull":
        from app.hub.pull import run_pull

        return run_pull(core, args.repo, args.file, args.source)
    raise SystemExit(EXIT_USAGE)


def parse(argv: Sequence[str]) -> argparse.Namespace:
    args = build_parser().parse_args(list(argv))
    if args.command == "models" and args.models_command is None:
        args.models_command = "list"
    return args
