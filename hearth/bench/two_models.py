"""Two models answering at once, the engine host sharing the CPU cores among their workers
(a core each on a two-core machine) against each worker taking every core, as the workers
did before the host shared them: the total tokens per second of both replies, from the
moment both are sent to the end of the last.  Rounds alternate the two sides."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from app.engine.cores import physical_cores
from app.engine.host import EngineHost
from wire.model_spec import ModelSpec

STORY = [{"role": "user", "content": "Tell me a long story about two lighthouses."}]


def _together(host: EngineHost, specs: list[ModelSpec], tokens: int) -> float:
    """Both replies at once: tokens per second of the two together."""
    leases = [host.lease(spec) for spec in specs]
    try:
        for lease in leases:  # loaded and warmed up
            lease.chat(STORY, {"max_tokens": 8, "temperature": 0}).wait(600)
        params = {"max_tokens": tokens, "temperature": 0, "ignore_eos": True, "seed": 1}
        started = time.perf_counter()
        jobs = [lease.chat(STORY, params) for lease in leases]
        finals = [job.wait(600) for job in jobs]
        elapsed = time.perf_counter() - started
        if any(final is None or final.get("type") != "done" for final in finals):
            raise RuntimeError(f"a reply failed: {finals}")
        return sum(int(job.stats.get("generated_tokens") or 0) for job in jobs) / elapsed
    finally:
        for lease in leases:
            lease.release(keep_alive_s=0)


def measure(model_path: Path, rounds: int, tokens: int) -> tuple[list[float], list[float]]:
    """(shared, unshared) totals, one per round each, of replies of ``tokens`` (the
    bench's ``--tokens`` and ``--rounds``, as its other comparisons)."""
    shared: list[float] = []
    unshared: list[float] = []
    cores = physical_cores()
    with tempfile.TemporaryDirectory(prefix="hearth-bench-two-") as scratch:
        paths = []
        for name in ("left", "right"):  # two names: two models to the host, two workers
            path = Path(scratch) / f"{name}.gguf"
            try:
                os.link(model_path, path)
            except OSError:  # another file system
                shutil.copyfile(model_path, path)
            paths.append(path)
        specs = [ModelSpec(str(path), n_ctx=2048, threads=cores) for path in paths]
        for _ in range(rounds):
            for totals, told in ((shared, cores), (unshared, 2 * cores)):
                # Told of twice the cores, the host lets each worker take all of them.
                host = EngineHost(Path(scratch) / "logs", cores=told)
                try:
                    totals.append(_together(host, specs, tokens))
                finally:
                    host.close()
    return shared, unshared
