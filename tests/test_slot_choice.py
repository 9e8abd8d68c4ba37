"""Which free slot a request takes: its own conversation's first, then one that keeps the
busy slots together (each run of consecutive busy slots is a pass over the model's weights
every step, so a gap makes every reply in flight slower); and, when none is free, the
place in the queue each request is told."""

from __future__ import annotations

import threading
from typing import Any, cast

from backends.slots.context import Slot, free_slot
from tests.conftest import until

CONVERSATION = [1, 2, 3, 4, 5, 6]


def slots(*held: list[int], busy: tuple[int, ...] = ()) -> list[Slot]:
    made = []
    for seq_id, tokens in enumerate(held):
        slot = Slot(cast(Any, None), seq_id)  # choosing never touches the context
        slot.tokens = list(tokens)
        slot.busy = seq_id in busy
        made.append(slot)
    return made


def test_a_conversation_finds_its_own_slot_even_past_a_gap() -> None:
    four = slots([], [], [9, 9], CONVERSATION[:4], busy=(0,))
    chosen = free_slot(four, CONVERSATION)
    assert chosen is not None and chosen.seq_id == 3


def test_a_new_conversation_takes_the_empty_slot_next_to_the_busy_ones() -> None:
    four = slots([], [], [], [7], busy=(3,))
    chosen = free_slot(four, CONVERSATION)
    assert chosen is not None and chosen.seq_id == 2, "not slot 0, the first empty one"
    four = slots([7], [7], [], [], busy=(0, 1))
    chosen = free_slot(four, CONVERSATION)
    assert chosen is not None and chosen.seq_id == 2, "not slot 3: a gap would cost a pass"


def test_between_used_slots_the_one_that_fills_a_gap_goes_before_the_least_recent() -> None:
    four = slots([7], [8], [7], [9], busy=(0, 2))
    four[3].last_used, four[1].last_used = 1.0, 2.0  # slot 3 is the least recently used
    chosen = free_slot(four, CONVERSATION)
    assert chosen is not None and chosen.seq_id == 1
    for slot in four:  # nothing busy, no gap to make: the least recently used one
        slot.busy = False
    four[0].last_used = four[2].last_used = 3.0
    chosen = free_slot(four, CONVERSATION)
    assert chosen is not None and chosen.seq_id == 3


def test_an_empty_slot_goes_before_one_that_holds_another_conversation() -> None:
    four = slots([7], [8], [], [], busy=(0,))
    chosen = free_slot(four, CONVERSATION)
    assert chosen is not None and chosen.seq_id == 2


def test_no_free_slot_is_none() -> None:
    assert free_slot(slots([], [], busy=(0, 1)), CONVERSATION) is None


class EverySlotBusy:
    """A model whose every slot writes a reply: requests queue."""

    def __init__(self) -> None:
        self.slots: list[Slot] = []

    def free_slot(self, prompt: Any) -> None:
        return None


def test_a_place_told_in_the_queue_never_goes_back_when_an_earlier_request_joins() -> None:
    """Every slot busy; the first of two requests still prepares its prompt (a long
    template, pictures) when the second joins the queue: the second is told it is second,
    not first and then second (a client's "queued: 1… 2…" going backwards)."""
    from backends.job_control import JobControl
    from backends.slots.scheduler import Scheduler
    from backends.slots.task import Task

    scheduler = Scheduler(None, cast(Any, EverySlotBusy()), cast(Any, None), cast(Any, None))
    first, second = scheduler.reserve(), scheduler.reserve()
    places: dict[int, list[int]] = {first: [], second: []}

    def task(ticket: int) -> Task:
        return Task(
            [1, 2, 3],
            cast(Any, None),
            cast(Any, None),
            JobControl(),
            on_wait=places[ticket].append,
            ticket=ticket,
        )

    runs = [
        threading.Thread(target=scheduler.run, args=(task(t),), daemon=True)
        for t in (second, first)
    ]
    try:
        runs[0].start()
        until(lambda: bool(places[second]), 60, "the second is told its place")
        runs[1].start()
        until(lambda: bool(places[first]), 60, "the first joins ahead of it")
    finally:
        scheduler.close()  # the waiting requests end as stopped
    for run in runs:
        run.join(60)
    assert places == {first: [1], second: [2]}, "no place told went back"
