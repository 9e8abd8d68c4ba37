"""``hearth docs``: collections of documents from the command line.

``add`` indexes in the foreground with a progress bar on stderr and lists the files it
left out, with the reasons, on stderr; ``list``, ``rm`` and ``search`` (``--json`` for
scripts).  The window's Documents screen and ``hearth chat --collection`` use the same
``Documents`` object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from app.cli.common import EXIT_ERROR, EXIT_OK
from app.core import Core
from app.docs.index import INDEXED
from app.docs.indexer import Progress
from app.docs.library import DEFAULT_PASSAGES, Documents
from app.documents import open_documents
from app.hub.repo_files import human_duration, human_size
from wire.visible_text import visible


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    docs = commands.add_parser(
        "docs", parents=[common], help="collections of your documents, searched by chats"
    )
    docs_commands = docs.add_subparsers(dest="docs_command", metavar="ACTION", required=True)
    add = docs_commands.add_parser(
        "add",
        parents=[common],
        help="add files and folders to a collection (made if new) and index them; files stay "
        "where they are",
    )
    add.add_argument("name", help="the collection's name")
    add.add_argument("paths", nargs="+", metavar="PATH", help="files and folders")
    listing = docs_commands.add_parser("list", parents=[common], help="the collections")
    listing.add_argument("--json", action="store_true", help="print a JSON list")
    update = docs_commands.add_parser(
        "update",
        parents=[common],
        help="index what changed in a collection's files (and read again the ones that failed)",
    )
    update.add_argument("name")
    remove = docs_commands.add_parser(
        "rm", parents=[common], help="forget a collection (its files are not touched)"
    )
    remove.add_argument("name")
    search = docs_commands.add_parser(
        "search", parents=[common], help="the passages of a collection that best match a query"
    )
    search.add_argument("name", help="the collection (several: a,b)")
    search.add_argument("query")
    search.add_argument(
        "-k", type=int, default=DEFAULT_PASSAGES, metavar="N", help="passages (default 6)"
    )
    search.add_argument("--json", action="store_true", help="print a JSON list")
    docs.set_defaults(run=cmd_docs)


def cmd_docs(core: Core, args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # as it is now, not as it was at import
    documents = open_documents(core)
    try:
        action = args.docs_command
        if action in ("add", "update"):
            return _index(documents, args, out)
        if action == "list":
            return _list(documents, args, out)
        if action == "rm":
            documents.remove(args.name)
            print(f"Removed the collection {args.name} (its files were not touched).", file=out)
            return EXIT_OK
        return _search(documents, args, out)
    finally:
        documents.close()


def _index(documents: Documents, args: argparse.Namespace, out: TextIO) -> int:
    bar = _ProgressBar(sys.stderr)
    if args.docs_command == "add":
        report = documents.add(args.name, [Path(p) for p in args.paths], bar.show)
    else:
        report = documents.update(args.name, bar.show, retry_failed=True)
    bar.end()
    # Every file left out, from this run or before (unchanged files are not read again).
    told: set[str] = set()
    for problem in report.problems:
        state = "failed" if problem.failed else "note" if problem.indexed else "skipped"
        print(f"{state}: {visible(problem.path)}: {visible(problem.reason)}", file=sys.stderr)
        told.add(problem.path)
    for record in documents.index.files(args.name):
        if record.status != INDEXED and record.path not in told:
            print(
                f"{record.status}: {visible(record.path)}: {visible(record.reason)}",
                file=sys.stderr,
            )
    p = report.progress
    if report.rebuilt:  # a damaged index met on the way: set aside and built again
        print(f"hearth: {report.rebuilt}", file=sys.stderr)
    if report.fault:  # the index could not be written: said once, and the run fails
        print(f"hearth: {report.fault}", file=sys.stderr)
    counts = documents.index.counts(args.name)
    left = p.files_total - p.files_done if report.fault else 0
    print(
        f"{args.name}: {counts.indexed} file(s) indexed ({p.indexed} new or changed, "
        f"{p.unchanged} unchanged, {p.renamed} moved, {p.removed} removed), "
        f"{counts.skipped} skipped, {counts.failed} failed, {counts.chunks} passages"
        + (
            f"; {left} file(s) not indexed yet (hearth docs update {args.name} goes on)."
            if left
            else "."
        ),
        file=out,
    )
    if p.ignored:
        print(f"{p.ignored} file(s) of other formats were passed over.", file=out)
    return EXIT_ERROR if report.fault else EXIT_OK


def _list(documents: Documents, args: argparse.Namespace, out: TextIO) -> int:
    summaries = documents.summaries()
    if args.json:
        rows = [
            {
                "name": s.name,
                "paths": s.paths,
                "files": s.files,
                "indexed": s.indexed,
                "skipped": s.skipped,
                "failed": s.failed,
                "chunks": s.chunks,
                "tokens": s.tokens,
            }
            for s in summaries
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2), file=out)
        return EXIT_OK
    if not summaries:
        print("No collections yet. Make one with: hearth docs add NAME FOLDER", file=out)
    for s in summaries:
        problems = f", {s.skipped} skipped, {s.failed} failed" if s.skipped or s.failed else ""
        print(
            f"{visible(s.name)}: {s.indexed} file(s){problems}, {s.chunks} passages — "
            + ", ".join(visible(path) for path in s.paths),
            file=out,
        )
    return EXIT_OK


def _search(documents: Documents, args: argparse.Namespace, out: TextIO) -> int:
    names = [n.strip() for n in args.name.split(",") if n.strip()]
    hits = documents.search(names, args.query, max(1, args.k))
    if args.json:
        rows = [
            {
                "file": h.file,
                "page": h.page,
                "section": h.section,
                "text": h.text,
                "score": round(h.score, 4),
                "collection": h.collection,
            }
            for h in hits
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2), file=out)
        return EXIT_OK
    if not hits:
        print("No passage matched.", file=out)
    for number, h in enumerate(hits, 1):
        where = (
            f", page {h.page}"
            if h.page is not None
            else (f" › {visible(h.section)}" if h.section else "")
        )
        print(f"[{number}] {visible(h.file)}{where}  (score {h.score:.3f})", file=out)
        passage = visible(h.text.strip(), multiline=True)
        print("    " + passage.replace("\n", "\n    "), file=out)
    return EXIT_OK


class _ProgressBar:
    """One line on a terminal (redrawn at most 10 times a second), else a line every 2 s."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.tty = err.isatty()
        self.last = 0.0
        self.drawn = False
        self.pending: Progress | None = None

    def show(self, progress: Progress) -> None:
        if not progress.files_total:
            return
        now = time.monotonic()
        if now - self.last < (0.1 if self.tty else 2.0):
            self.pending = progress
            return
        self.pending = None
        self.last = now
        total = max(1, progress.files_total)
        eta = progress.eta_s
        left = f", {human_duration(eta)} left" if eta is not None and progress.current else ""
        line = (
            f"{progress.files_done / total:6.1%}  "
            f"{progress.files_done}/{progress.files_total} files  "
            f"{human_size(progress.bytes_done)} of {human_size(progress.bytes_total)}{left}"
        )
        if self.tty:
            self.err.write("\r" + line.ljust(78))
            self.drawn = True
        else:
            self.err.write(line + "\n")
        self.err.flush()

    def end(self) -> None:
        if self.pending is not None:
            self.last = 0.0
            self.show(self.pending)
        if self.drawn:
            self.err.write("\n")
            self.err.flush()
