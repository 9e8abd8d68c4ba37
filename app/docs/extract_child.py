"""The extraction process: reads one document at a time for ``app.docs.extraction``.

Parsers for PDF, DOCX, EPUB and HTML are large and meet hostile files; they run here, in
a process of their own with a cap on its memory (Unix: its address space; everywhere:
its parent watches its size), so one that hangs or blows up is killed and the file is
skipped — the window and the indexer go on.  Requests and answers are lines of JSON on
stdin and a private copy of stdout; fd 1 itself goes to stderr so a library that prints
cannot corrupt the channel.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from wire import platforms
from wire.child_process import limit_memory, private_protocol_stream

MEMORY_LIMIT_ENV = "HEARTH_EXTRACT_MEMORY_LIMIT"


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """The sections of the requested file, or why it cannot be read."""
    from app.docs.formats import Unreadable, read_document

    path = Path(str(request["path"]))
    try:
        sections = read_document(path, str(request["kind"]))
    except Unreadable as exc:
        return {"ok": False, "reason": str(exc), "failed": exc.damaged}
    except FileNotFoundError as exc:
        if not path.exists():
            return {"ok": False, "reason": "it vanished while it was being read", "vanished": True}
        # The file is there: a part of the reader itself is missing (a broken install).
        return {
            "ok": False,
            "reason": f"Hearth's reader for it is incomplete ({exc.filename or exc} is missing);"
            " reinstalling Hearth should fix this",
            "failed": True,
        }
    except PermissionError:
        return {"ok": False, "reason": "Hearth may not read it (permission denied)"}
    except MemoryError:
        return {
            "ok": False,
            "reason": "reading it needed more memory than Hearth allows",
            "failed": True,
        }
    except RecursionError:
        return {"ok": False, "reason": "it is nested too deeply to read", "failed": True}
    except OSError as exc:
        return {
            "ok": False,
            "reason": f"it could not be read ({exc.strerror or exc})",
            "failed": True,
        }
    except Exception as exc:  # noqa: BLE001 - a parser's bug on a strange file is a skip
        reason = f"it could not be read ({type(exc).__name__}: {exc})"[:300]
        return {"ok": False, "reason": reason, "failed": True}
    return {"ok": True, **_capped(sections)}


def _capped(sections: list[Any]) -> dict[str, Any]:
    """The sections, cut at ``MAX_TEXT_CHARS`` in all (a 200 MB log is not a document, and
    its text would weigh on the indexer): the answer says so when it was cut."""
    from app.docs.formats import MAX_TEXT_CHARS

    kept: list[dict[str, Any]] = []
    total = 0
    for section in sections:
        room = MAX_TEXT_CHARS - total
        if room <= 0:
            break
        item = section.to_json()
        if len(section.text) > room:
            item["text"] = section.text[:room]
        kept.append(item)
        total += len(item["text"])
    answer: dict[str, Any] = {"sections": kept}
    if total >= MAX_TEXT_CHARS:
        answer["note"] = f"only its first {MAX_TEXT_CHARS:,} characters were indexed"
    return answer


def main() -> int:
    platforms.end_with_parent()  # a reader stuck in a hostile parser never outlives Hearth
    limit_memory(MEMORY_LIMIT_ENV)  # Windows: the parent's watch on its size is the limit
    channel = private_protocol_stream()
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        request = json.loads(line)
        reply = answer(request)
        data = json.dumps(reply, ensure_ascii=False).encode("utf-8", errors="replace")
        channel.write(data + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
