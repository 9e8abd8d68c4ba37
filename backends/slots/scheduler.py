"""Continuous batching: every active reply's next token in one ``llama_decode``.

Requests are run by the engine's threads (one per request, in the worker) and wait in
``Scheduler.run``; one scheduling thread does all llama.cpp work.  Each step:

* replies that were stopped leave their slot; waiting requests take free slots in the
  order they came to the worker (``reserve``: a short prompt prepared sooner does not
  overtake a long one sent before it), each the slot that holds its conversation
  (``SlotContext.free_slot``);
* the batch gets each generating reply's last sampled token (with prompt-lookup guesses
  when it is the only reply: the guesses' cost model is one reply's), then slices of the
  prompts being read, in the order they came, at most one pacer's slice in all
  (``PrefillPacer``): a long prompt is read between steps and the others keep streaming;
* one decode, then each reply samples from its own rows with its own chain and hands the
  token on; a reply that ends frees its slot at once.

A request takes the slot that holds its conversation (``SlotContext.free_slot``); what a
slot held for another conversation goes to the prompt cache first, and a conversation
found there comes back into the slot (``backends.slots.prompt_cache``).

A prompt's last token is decoded in a step after the rest of that prompt, as before
batching: the first token of a reply is drawn from it, and a cached prefix must not
change it.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from backends.llama_loop import (
    CONTINUE,
    GRAMMAR_STEP_S,
    DecodeCosts,
    GrammarTooSlow,
    PrefillPacer,
)
from backends.slots.context import DecodeFailed, Rows, Slot, SlotContext
from backends.slots.prompt_cache import PromptCache
from backends.slots.task import Picture, Task
from wire import protocol

log = logging.getLogger(__name__)

IDLE_LOOK_S = 0.1  # how often an idle scheduler looks at the requests waiting


class SchedulerClosed(RuntimeError):
    """The model was unloaded while the request waited."""


class Scheduler:
    def __init__(
        self,
        lib: Any,
        context: SlotContext,
        pacer: PrefillPacer,
        costs: DecodeCosts,
        cache: PromptCache | None = None,
    ) -> None:
        self._lib = lib
        self.context = context
        self._pacer = pacer
        self._costs = costs
        self._cache = cache
        self._cond = threading.Condition()
        self._waiting: deque[Task] = deque()  # by ticket
        self._tickets = itertools.count(1)
        self._expected: set[int] = set()  # reserved, not yet run nor withdrawn
        self._active: list[Task] = []
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="slots", daemon=True)
        self._thread.start()

    # -- the requests' threads -----------------------------------------------------------
    def reserve(self) -> int:
        """A place in the queue for a request as it arrives, before its prompt is ready
        (``run`` with it as ``Task.ticket``, or ``withdraw`` it): requests take free slots
        in the order they came, however long each took to prepare."""
        with self._cond:
            ticket = next(self._tickets)
            self._expected.add(ticket)
            return ticket

    def withdraw(self, ticket: int) -> None:
        """A reserved request will not run (it failed before its turn); nothing when it
        ran already."""
        with self._cond:
            if ticket in self._expected:
                self._expected.discard(ticket)
                self._cond.notify_all()

    def run(self, task: Task) -> str:
        """Run ``task`` to its end; its finish reason."""
        with self._cond:
            if self._closed:
                raise SchedulerClosed("the model was unloaded")
            if task.ticket in self._expected:
                self._expected.discard(task.ticket)
            else:
                task.ticket = next(self._tickets)
            at = len(self._waiting)
            while at > 0 and self._waiting[at - 1].ticket > task.ticket:
                at -= 1
            self._waiting.insert(at, task)
            self._cond.notify_all()
        task.done.wait()
        if task.error is not None:
            raise task.error
        return task.finish or protocol.FINISH_CANCELLED

    @property
    def in_use(self) -> int:
        return len(self._active)

    @property
    def queued(self) -> int:
        return len(self._waiting)

    def close(self) -> None:
        """End the scheduling thread (the requests still there end as cancelled); what
        the slots hold goes to the prompt cache's shelf, if it has one."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join()
        if self._cache is not None:
            try:
                self._cache.shelve(self.context.slots)
            except Exception:  # a cache is never worth failing an unload for
                log.warning("could not keep the prompt cache", exc_info=True)

    # -- the scheduling thread -----------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed:
                    self._admit()
                    if self._active:
                        break
                    # Nothing to decode: woken by a request, or a Stop of one still waiting
                    # (seen at the next look).
                    self._cond.wait(IDLE_LOOK_S)
                if self._closed:
                    break
            try:
                self._step()
            except Exception as exc:  # the batch failed: every reply in it hears of it
                log.exception("a batch step failed")
                self.context.drop_batch()
                for task in list(self._active):
                    self._fail(task, exc)
        for task in [*self._active, *self._waiting]:
            self._end(task, protocol.FINISH_CANCELLED)
        self._waiting.clear()

    def _admit(self) -> None:
        """Waiting requests take free slots, in the order they came (under the lock); those
        stopped while they waited leave the queue."""
        for task in [t for t in self._waiting if t.control.cancelled()]:
            self._waiting.remove(task)
            self._end(task, protocol.FINISH_CANCELLED)
        while self._waiting:
            task = self._waiting[0]
            if any(ticket < task.ticket for ticket in self._expected):
                break  # one that came first is still preparing its prompt
            slot = self.context.free_slot(task.prompt)
            if slot is None:
                break
            self._waiting.popleft()
            slot.busy = True
            task.slot = slot
            try:
                self._recall(slot, task.prompt)
                task.read = task.cached = slot.reuse_prefix(task.prompt)
            except Exception as exc:  # noqa: BLE001 - raised in its request's thread
                self._fail(task, exc)
                continue
            task.long_prompt = len(task.prompt) - 1 - task.cached > self._pacer.size()
            self._active.append(task)
        for index, task in enumerate(self._waiting, start=1):
            # Those that came first and still prepare their prompts are ahead of it too: a
            # place told never goes back when they join the queue.
            place = index + sum(1 for ticket in self._expected if ticket < task.ticket)
            if task.place != place and task.on_wait is not None:
                try:
                    task.on_wait(place)
                except Exception:  # its place goes untold; the scheduler goes on
                    log.exception("could not tell a request its place")
            task.place = place

    def _recall(self, slot: Slot, prompt: Sequence[int]) -> None:
        """Before ``slot`` takes ``prompt``: keep another conversation it holds in the
        prompt cache, and bring back the cached one that holds more of ``prompt``."""
        cache = self._cache
        if cache is None:
            return
        kept = slot.common_prefix(prompt)
        if not slot.holds_conversation(prompt, kept):  # another conversation's
            cache.keep(slot)
        tokens, more = cache.best(prompt)
        if tokens is not None and more > kept:
            cache.restore(slot, tokens)

    def _end(self, task: Task, finish: str) -> None:
        """The reply ends: its slot is free (taken at the next step) and its thread goes on.
        The slot keeps its tokens, for a request that starts the same."""
        if task in self._active:
            self._active.remove(task)
        if task.slot is not None:
            self.context.release(task.slot)
        task.drafter = None
        task.finish = task.finish or finish
        task.done.set()

    def _fail(self, task: Task, error: BaseException) -> None:
        """End ``task`` with ``error`` (raised in its thread).  Its slot is emptied: a
        failure between a decode and its bookkeeping (guesses not cut back) leaves the
        slot's tokens unsure, and a later prompt must never reuse them."""
        if task.done.is_set():
            return
        task.error = error
        if task.slot is not None:
            task.slot.clear()
        self._end(task, protocol.FINISH_CANCELLED)

    def _step(self) -> None:
        for task in list(self._active):
            if task.control.cancelled():
                self._end(task, protocol.FINISH_CANCELLED)
        active = list(self._active)
        if not active:
            return
        active[0].control.checkpoint()  # the threads: one wish for every reply
        context = self.context
        alone = len(active) == 1
        drafts: list[tuple[Task, Rows, list[int], int]] = []
        for task in active:
            if task.pending is None:
                continue
            slot = task.slot
            assert slot is not None
            base = len(slot.tokens)
            guesses = task.drafter.draft(task.pending) if task.drafter is not None and alone else []
            room = min(context.room, context.n_ctx - base) - 1
            guesses = guesses[: max(0, room)]
            rows = context.add(slot, [task.pending, *guesses], all_logits=bool(guesses))
            drafts.append((task, rows, guesses, base))
        finishing, read = self._add_prompts([t for t in active if t.reading])
        prompt_tokens = context.count - sum(1 + len(g) for _, _, g, _ in drafts)
        clock = time.perf_counter
        started = clock()
        try:
            context.decode()
        except DecodeFailed as exc:
            # Out of room or a backend failure: every reply in this batch keeps what it has.
            for task in [d[0] for d in drafts] + [t for t, _ in finishing]:
                task.failure = str(exc)
                self._end(task, protocol.FINISH_LENGTH)
            return
        if alone or prompt_tokens:
            context.synchronize()
            took = clock() - started
            if prompt_tokens and not drafts:
                self._pacer.observe(prompt_tokens, took)
            elif alone and drafts:
                self._costs.observe(1 + len(drafts[0][2]), took)
        for task in read:
            if task.on_prompt_read is not None:
                task.on_prompt_read(task.read)
        for task, rows, guesses, base in drafts:
            task.stats.decodes += 1
            try:
                self._sampled(task, rows.first, guesses, base)
            except Exception as exc:  # noqa: BLE001 - raised in its request's thread
                self._fail(task, exc)
        for task, rows in finishing:
            task.stats.decodes += 1
            try:
                self._first_token(task, rows.first)
            except Exception as exc:  # noqa: BLE001 - raised in its request's thread
                self._fail(task, exc)

    def _add_prompts(self, reading: list[Task]) -> tuple[list[tuple[Task, Rows]], list[Task]]:
        """Add prompt slices, one pacer's slice in all.  Returns the prompts whose last
        token is in the batch, with its row, and the long prompts read further."""
        context = self.context
        budget = min(self._pacer.size(), context.room)
        finishing: list[tuple[Task, Rows]] = []
        read: list[Task] = []
        for task in reading:
            slot = task.slot
            assert slot is not None
            end = len(task.prompt) - 1
            held = len(slot.tokens)
            picture = task.pictures.get(held) if held < end else None
            pictured = False
            if picture is not None:
                if budget <= 0:
                    continue
                try:
                    held = self._read_picture(task, slot, picture, held)
                except Exception as exc:  # noqa: BLE001 - raised in its request's thread
                    self._fail(task, exc)
                    continue
                budget -= picture.length
                task.read = held
                pictured = True
            if held < end:
                count = min(budget, task.text_until(held, end) - held)
                if count > 0:
                    budget -= count
                    context.add(slot, task.prompt[held : held + count])
                    task.read = held + count
                if task.long_prompt and (count > 0 or pictured):
                    read.append(task)
            elif context.room > 0:
                finishing.append((task, context.add(slot, task.prompt[end:])))
                task.read = len(task.prompt)
        return finishing, read

    def _read_picture(self, task: Task, slot: Slot, picture: Picture, held: int) -> int:
        """Read the picture that starts at ``held`` into the slot's sequence (a decode of
        its own, apart from the step's batch, which holds nothing of this slot yet)."""
        started = time.perf_counter()
        at = slot.position(held)
        positions = picture.positions or picture.length
        after = picture.read(slot.seq_id, at)
        task.picture_s += time.perf_counter() - started
        if after != at + positions:
            self.context.cut(slot, held)
            raise DecodeFailed(f"a picture took {after - at} positions, not {positions}")
        end = held + picture.length
        slot.tokens.extend(task.prompt[held:end])
        if positions != picture.length:
            slot.gaps.append((end, picture.length - positions))
        return end

    def _first_token(self, task: Task, row: int) -> None:
        self._hand_on(task, self._draw(task, row), row)

    def _draw(self, task: Task, row: int) -> int:
        """The token drawn from ``row`` by the task's chain.  A draw under a grammar that
        takes past ``GRAMMAR_STEP_S`` ends the task (GrammarTooSlow): busy is not
        progress, and every other reply of the batch waits for it."""
        started = time.perf_counter()
        token = int(self._lib.llama_sampler_sample(task.sampler.chain, self.context.ctx, row))
        if task.sampler.grammar:
            took = time.perf_counter() - started
            if took > GRAMMAR_STEP_S:
                raise GrammarTooSlow(took)
        return token

    def _hand_on(self, task: Task, token: int, row: int) -> bool:
        """Give ``token`` to the reply; False when that ended it."""
        finish = task.on_token(token, row)
        if finish is not CONTINUE:
            self._end(task, finish)
            return False
        task.pending = token
        return True

    def _sampled(self, task: Task, row: int, guesses: list[int], base: int) -> None:
        """After a decode of the pending token (and guesses): each following token is drawn
        from its own position's logits; a guess is kept while the drawn token equals it,
        and the stream is cut back after the first wrong guess."""
        drafter, slot = task.drafter, task.slot
        assert slot is not None
        if drafter is not None:
            drafter.extend((task.pending,))  # type: ignore[arg-type]
        token = self._draw(task, row)
        if not guesses:
            self._hand_on(task, token, row)
            return
        assert drafter is not None
        task.stats.drafted += len(guesses)
        accepted = 0
        while accepted < len(guesses) and token == guesses[accepted]:
            if not self._hand_on(task, token, row + accepted):
                slot.truncate(base + 1 + accepted)
                task.stats.accepted += accepted
                return
            drafter.extend((token,))
            accepted += 1
            token = self._draw(task, row + accepted)
        slot.truncate(base + 1 + accepted)
        task.stats.accepted += accepted
        drafter.learn(len(guesses), accepted)
        self._hand_on(task, token, row + accepted)
