"""One download as the queue keeps it (``downloads.json``) and its users see it: the file,
where it goes, its state, what has arrived and how fast.  Its bytes arrive in
``<target>.part`` next to where the file will live (``ranged.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

QUEUED, RUNNING, PAUSED, VERIFYING, DONE, FAILED, CANCELLED = (
    "queued",
    "downloading",
    "paused",
    "verifying",
    "done",
    "failed",
    "cancelled",
)


class DownloadPaused(Exception):
    """Raised inside the transfer to stop it, keeping the part file."""


class DownloadCancelled(Exception):
    """Raised inside the transfer to stop it; the part file is removed."""


@dataclass
class Download:
    id: str
    source: str  # "hf" or "modelscope"
    repo_id: str
    path: str  # the file's path inside the repository
    size: int
    sha256: str
    git_sha1: str
    target: str  # where the verified file will live
    revision: str = "main"
    state: str = QUEUED
    received: int = 0
    error: str = ""
    speed: float = 0.0  # bytes/s over the last seconds (link.RateWindow)
    started_at: float = 0.0
    finished_at: float = 0.0
    resume_on_start: bool = False  # it was running when Hearth quit
    error_kind: str = ""  # "access" (needs a token), "disk", "damaged" or "" for others

    @property
    def part(self) -> Path:
        return Path(self.target + ".part")

    @property
    def eta_s(self) -> float | None:
        if self.state != RUNNING or self.speed <= 0:
            return None
        return max(self.size - self.received, 0) / self.speed

    @property
    def fraction(self) -> float:
        return min(self.received / self.size, 1.0) if self.size else 0.0
