"""``hearth bench``: its options (the launcher runs it: ``hearth.bench``, which may import
every room)."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
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
        "--parallel",
        action="store_true",
        help="also measure four replies at once: hearth serve against llama-server -np 4 "
        "(make bench-tools builds it), the gain, the first tokens' spread, what slots cost "
        "one reply, and switching back to a long conversation",
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
        "--tools",
        action="store_true",
        help="also measure a tool call in a reply: from the model's finished call to the "
        "result reaching the model, with a local MCP server already running",
    )
    bench.add_argument("--tools-only", action="store_true", help="measure tools only")
    bench.add_argument(
        "--engines",
        action="store_true",
        help="also measure the PyTorch engine added after install: its install from a "
        "local folder, and its tokens/s in the frozen app against this environment "
        "($HEARTH_BENCH_FROZEN names the frozen app; make bench sets it after make dist)",
    )
    bench.add_argument(
        "--engines-only", action="store_true", help="measure the PyTorch engine only"
    )
    bench.add_argument(
        "--vision",
        action="store_true",
        help="also measure reading pictures (the tests' vision model) against llama.cpp's "
        "llama-mtmd-cli of the same build",
    )
    bench.add_argument(
        "--vision-only", action="store_true", help="measure pictures only (see --vision)"
    )
    bench.add_argument(
        "--docs-corpus",
        metavar="FOLDER",
        help="with --docs: also index this real folder (for example the HTML Python "
        "documentation) and report its throughput",
    )
    bench.add_argument(
        "--download",
        action="store_true",
        help="measure downloads only: several connections against one from a loopback "
        "server that caps each connection, as hubs do, and the memory it takes",
    )
    bench.add_argument(
        "--download-mb",
        type=int,
        default=256,
        help="size of the loopback download test (0 skips it); the test of several "
        "connections takes a file of this size, at most 64 MB",
    )
    bench.add_argument(
        "--json",
        action="store_true",
        help='print a JSON list of {"name","value","unit","budget","ok"}',
    )
    bench.set_defaults(run=None)
