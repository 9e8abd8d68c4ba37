"""``hearth serve``: the library's models (or one, with ``--model``) in OpenAI's, Ollama's
and Anthropic's dialects, on the process's engine host."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from app.cli.common import EXIT_OK, advice, check_ranges, server_key_and_source
from app.core import Core


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
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
    serve.add_argument(
        "--host",
        help="the address to listen on (default: the settings' API server address, "
        "127.0.0.1 unless changed)",
    )
    serve.add_argument(
        "--port", type=int, help="the port (default: the settings' API server port, 8765)"
    )
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
    serve.add_argument(
        "--parallel",
        type=int,
        metavar="N",
        help="replies each GGUF model writes at once, a context each (default: settings)",
    )
    serve.set_defaults(run=cmd_serve)


def cmd_serve(core: Core, args: argparse.Namespace) -> int:
    check_ranges(args)
    # Settings › API server gives the defaults, so the window and the command agree.
    if args.host is None:
        args.host = str(core.settings.get("server.host"))
    if args.port is None:
        args.port = int(core.settings.get("server.port"))
    core.learn_machine()  # the GPU, as the window would use it, and the memory budgets
    if args.parallel:
        core.parallel = args.parallel
    if not args.model:
        return _serve_library(core, args)
    from app.docs.library import api_grounder
    from app.documents import open_documents
    from app.serve.api_server import serve_forever
    from app.serve.config import ServerConfig
    from app.serve.pictures import RequestPictures

    entry = core.find_model(args.model)
    spec = core.load_spec(entry, args.ctx)
    key, source = server_key_and_source(args)
    documents = open_documents(core)
    config = ServerConfig(
        host=args.host,
        port=args.port,
        api_key=key,
        allowed_origins=tuple(args.allow_origin),
        model_name=entry.name,
        ground=api_grounder(documents),
        pictures=RequestPictures.in_data_folder(core.paths.data_dir),
    )
    config.check()

    def ready(url: str) -> None:
        print(f"Serving {entry.name} at {url} (Ctrl+C to stop)", file=sys.stderr, flush=True)
        _say_key(source)

    defaults = core.sampling(advice(entry))
    try:
        serve_forever(core.engines, spec, config, entry.as_json(), defaults, ready)
    finally:
        documents.close()  # first: an indexing in progress ends with the engine it uses
        core.engines.close()
    return EXIT_OK


def _serve_library(core: Core, args: argparse.Namespace) -> int:
    """``hearth serve`` without ``--model``: every model of the library, each loaded when
    a request names it (the default model when a request names none)."""
    from app.documents import open_documents
    from app.library_offer import library_app
    from app.serve.api_server import serve
    from app.serve.config import ServerConfig
    from app.serve.pictures import RequestPictures

    key, source = server_key_and_source(args)
    config = ServerConfig(
        host=args.host,
        port=args.port,
        api_key=key,
        allowed_origins=tuple(args.allow_origin),
        pictures=RequestPictures.in_data_folder(core.paths.data_dir),
    )
    config.check()
    documents = open_documents(core)
    try:
        app, offer = library_app(core, config, documents, args.ctx)

        def ready(url: str) -> None:
            count = len(offer.offered())
            print(
                f"Serving {count} model(s) of the library at {url}, {config.model_name} by "
                "default "
                "(Ctrl+C to stop)",
                file=sys.stderr,
                flush=True,
            )
            _say_key(source)

        serve(app, config, ready)
    finally:
        documents.close()  # first: an indexing in progress ends with the engine it uses
        core.engines.close()
    return EXIT_OK


def _say_key(source: str) -> None:
    """Whether clients need a key, and where it comes from (printed once it listens)."""
    said = (
        f"An API key is required (Authorization: Bearer KEY); it comes from {source}."
        if source
        else "No API key is required: only programs on this computer can connect."
    )
    print(said, file=sys.stderr, flush=True)
