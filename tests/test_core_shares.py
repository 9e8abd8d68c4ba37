"""The CPU cores shared among workers that compute (``app.engine.cores``), as the engine
host uses them: the threads of all workers together never pass the cores, a worker whose
share shrinks keeps its cores until it says it uses fewer, newcomers wait in order, and a
worker that is done gives its share back."""

from __future__ import annotations

from app.engine.cores import CoreShares, fair_split
from backends.job_control import JobControl


class Worker:
    """A worker as the shares see it: it remembers what it was told, and follows the
    newest share it heard of (told, or carried by a request)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.told: list[int] = []
        self.grants: list[int] = []  # the numbers of the shares it heard of, in order
        self.latest = (0, 0)  # (threads, grant)

    def tell_threads(self, threads: int, grant: int) -> None:
        self.told.append(threads)
        self.heard(threads, grant)

    def heard(self, threads: int, grant: int) -> None:
        self.grants.append(grant)
        if grant > self.latest[1]:
            self.latest = (threads, grant)

    def applies(self, shares: CoreShares) -> None:
        """It now uses the newest share it heard of, and says so."""
        shares.applied(self, *self.latest)

    def __repr__(self) -> str:
        return self.name


class Sent:
    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []

    def to(self, worker: Worker) -> object:
        def send(threads: int, grant: int) -> None:
            self.sent.append((worker.name, threads))
            worker.heard(threads, grant)

        return send


def test_the_cores_are_dealt_evenly_within_each_cap() -> None:
    assert fair_split(8, [8, 8]) == [4, 4]
    assert fair_split(8, [8, 8, 8]) == [3, 3, 2]
    assert fair_split(8, [2, 8]) == [2, 6], "what one cannot use goes to the other"
    assert fair_split(2, [2, 2, 2]) == [1, 1, 0], "more takers than cores: the last waits"


def test_a_newcomer_starts_only_once_the_worker_it_shares_with_uses_fewer_threads() -> None:
    shares, sent = CoreShares(2), Sent()
    a, b = Worker("a"), Worker("b")
    shares.run(a, 8, 1, sent.to(a))  # type: ignore[arg-type]
    assert sent.sent == [("a", 2)] and shares.taken() == 2, "alone: every core"
    shares.run(b, 8, 2, sent.to(b))  # type: ignore[arg-type]
    assert a.told == [1], "a is asked to use one core"
    assert sent.sent == [("a", 2)], "b waits: a still uses two"
    assert shares.taken() == 2
    a.applies(shares)
    assert sent.sent == [("a", 2), ("b", 1)] and shares.taken() == 2
    shares.ended(b, 2)
    assert a.told == [1, 2] and shares.taken() == 2, "b is done: a grows back"


def test_more_workers_than_cores_wait_in_order_and_a_cancelled_one_is_dropped() -> None:
    shares, sent = CoreShares(2), Sent()
    a, b, c, d = (Worker(n) for n in "abcd")
    shares.run(a, 1, 1, sent.to(a))  # type: ignore[arg-type]
    shares.run(b, 1, 2, sent.to(b))  # type: ignore[arg-type]
    shares.run(c, 1, 3, sent.to(c))  # type: ignore[arg-type]
    shares.run(d, 1, 4, sent.to(d))  # type: ignore[arg-type]
    assert sent.sent == [("a", 1), ("b", 1)] and shares.waiting() == 2
    assert shares.withdraw(3), "c's request was cancelled before it was sent"
    shares.ended(a, 1)
    assert sent.sent[-1] == ("d", 1) and shares.taken() == 2
    assert not shares.withdraw(3)


def test_a_worker_keeps_its_share_for_all_its_requests_and_gives_it_back_at_the_last() -> None:
    shares, sent = CoreShares(4), Sent()
    a, b = Worker("a"), Worker("b")
    shares.run(a, 4, 1, sent.to(a))  # type: ignore[arg-type]
    shares.run(a, 4, 2, sent.to(a))  # type: ignore[arg-type]
    assert sent.sent == [("a", 4), ("a", 4)], "a second request queues with the same share"
    shares.ended(a, 1)
    assert shares.granted(a) == 4
    shares.ended(a, 2)
    assert shares.taken() == 0
    shares.run(b, 2, 3, sent.to(b))  # type: ignore[arg-type]
    assert sent.sent[-1] == ("b", 2), "b's model may use two threads: it gets two"


def test_a_worker_that_dies_gives_its_share_back_and_says_what_never_left() -> None:
    shares, sent = CoreShares(1), Sent()
    a, b = Worker("a"), Worker("b")
    shares.run(a, 1, 1, sent.to(a))  # type: ignore[arg-type]
    shares.run(b, 1, 2, sent.to(b))  # type: ignore[arg-type]
    shares.run(b, 1, 3, sent.to(b))  # type: ignore[arg-type]
    assert shares.release(b) == [2, 3], "b's requests never reached it"
    assert shares.release(a) == [] and shares.taken() == 0


def test_a_share_that_grew_counts_at_once_when_it_shrinks_again() -> None:
    """Grown, a worker may use its new threads before it says so: a newcomer right after
    waits for it to say it uses fewer again, and an old notice of a smaller share does not
    make its cores look free."""
    shares, sent = CoreShares(8), Sent()
    a, b, c = Worker("a"), Worker("b"), Worker("c")
    shares.run(a, 8, 1, sent.to(a))  # type: ignore[arg-type]
    shares.run(b, 8, 2, sent.to(b))  # type: ignore[arg-type]
    shrunk = a.grants[-1]
    assert shares.withdraw(2)  # stopped before a said it uses four: never sent
    assert sent.sent == [("a", 8)] and a.told == [4, 8]
    shares.run(b, 8, 3, sent.to(b))  # type: ignore[arg-type]
    a.applies(shares)
    assert sent.sent[-1] == ("b", 4)
    shares.ended(b, 3)
    assert a.told == [4, 8, 4, 8] and shares.taken() == 8
    shares.applied(a, 4, shrunk)  # late: the notice of an older, smaller share
    shares.run(c, 8, 4, sent.to(c))  # type: ignore[arg-type]
    assert sent.sent[-1] == ("b", 4) and shares.taken() == 8, "c waits: a may use eight"
    a.applies(shares)
    assert sent.sent[-1] == ("c", 4) and shares.taken() == 8


def newcomer_beside_a_worker_on_two_cores() -> tuple[CoreShares, Sent, Worker]:
    """a answers alone on two cores; b comes and waits while a is told to use one."""
    shares, sent = CoreShares(2), Sent()
    a, b = Worker("a"), Worker("b")
    shares.run(a, 2, 1, sent.to(a))  # type: ignore[arg-type]
    shares.run(b, 2, 2, sent.to(b))  # type: ignore[arg-type]
    assert a.told == [1] and sent.sent == [("a", 2)]
    return shares, sent, a


def test_a_worker_counts_for_the_older_share_it_still_uses() -> None:
    """It took up its first share again (a second request carried it) before it heard of
    the shrink: it says so, and the newcomer waits until it says it uses one."""
    shares, sent, a = newcomer_beside_a_worker_on_two_cores()
    first = a.grants[0]
    shares.applied(a, 2, first)
    assert sent.sent == [("a", 2)], "b still waits"
    a.applies(shares)
    assert sent.sent == [("a", 2), ("b", 1)]


def test_a_worker_follows_the_newest_share_whatever_order_it_hears_them_in() -> None:
    """A request that carried an older, larger share can reach the worker after the
    control that shrank it (both are written once the shares are unlocked): the engine
    keeps the newer, smaller count."""
    control = JobControl()
    used: list[tuple[int, int]] = []

    def apply(threads: int, grant: int) -> bool:
        used.append((threads, grant))
        return True

    control.start(apply)
    control.want_threads(1, grant=7)  # the shrink
    control.want_threads(2, grant=6)  # the request sent with the share before it
    control.checkpoint()
    assert used == [(1, 7)]
    control.want_threads(3)  # a count without a number (a client of its own) still counts
    control.checkpoint()
    assert used == [(1, 7), (3, 7)]


def test_a_newcomer_cancelled_while_it_waited_gives_the_cores_back() -> None:
    shares, sent, a = newcomer_beside_a_worker_on_two_cores()
    assert shares.withdraw(2)
    assert a.told == [1, 2] and shares.waiting() == 0, "a grows back at once"
    assert sent.sent == [("a", 2)], "the cancelled newcomer is never sent"
