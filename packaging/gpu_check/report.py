"""The GPU check's JSON report: the steps that ran, were skipped or failed, and why.

It is written to disk after every step and printed however the run ends (done, a part
that failed, the deadline, SIGTERM from a time limit), so a run cut short still says
what it measured and where it stopped."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any


class Report:
    def __init__(self, budget_s: float, saved_to: list[Path]) -> None:
        self.started = time.monotonic()
        self.budget_s = budget_s
        self.saved_to = saved_to
        self.data: dict[str, Any] = {"steps": []}

    def left(self) -> float:
        """Seconds left of the budget."""
        return self.budget_s - (time.monotonic() - self.started)

    def timeout(self, reserve_s: float) -> float:
        """How long a part may take and still leave ``reserve_s`` for what follows."""
        return max(1.0, self.left() - reserve_s)

    def elapsed(self) -> float:
        return round(time.monotonic() - self.started, 1)

    def step(self, name: str, status: str, **details: Any) -> None:
        entry = {"step": name, "status": status, "at_s": self.elapsed(), **details}
        self.data["steps"].append(entry)
        shown = {k: v for k, v in details.items() if k != "log"}
        print(f"gpu-check: {name}: {status} {shown or ''}", file=sys.stderr, flush=True)
        self.save()

    def save(self) -> None:
        """The report so far, to every file it is kept in (a file that cannot be written
        is left: the report is printed at the end anyway)."""
        self.data["seconds"] = self.elapsed()
        text = json.dumps(self.data, indent=2, default=str)
        for path in self.saved_to:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                partial = path.with_suffix(".part")
                partial.write_text(text)
                os.replace(partial, path)
            except OSError:
                continue

    def failed(self) -> bool:
        return any(step["status"] == "failed" for step in self.data["steps"])

    def text(self) -> str:
        """The report as last saved (the same as in its files)."""
        return json.dumps(self.data, indent=2, default=str)
