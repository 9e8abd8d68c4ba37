"""How many prompt-lookup guesses are worth checking: as many as give the most tokens per
second, from what a batch costs on this machine and how often guesses have been right."""

from backends.llama_loop import DRAFT_MAX, EXPLORE_EVERY, DecodeCosts, NgramDrafter

REPEATED = list(range(100, 140))  # a prompt whose continuation is known once it repeats


def drafter(single_ms: float, per_guess_ms: float, right: float, wrong: float) -> NgramDrafter:
    costs = DecodeCosts()
    costs.observe(1, single_ms / 1000)
    costs.observe(2, (single_ms + per_guess_ms) / 1000)
    made = NgramDrafter(REPEATED, costs)
    made.right, made.wrong = right, wrong
    made.extend(REPEATED[:3])  # the reply starts repeating the prompt
    return made


def test_when_a_batch_costs_little_long_drafts_are_checked() -> None:
    """A GPU, or a large model on the CPU: a guess costs a fraction of a token."""
    assert len(drafter(10, 0.3, right=9, wrong=1).draft(REPEATED[3])) == DRAFT_MAX


def test_when_each_guess_costs_a_token_nothing_is_drafted_until_it_is_time_to_look_again() -> None:
    """A small model on a small CPU: unless guesses are nearly always right, one token at
    a time is faster, and only now and then one guess checks whether that changed."""
    slow = drafter(10, 9, right=3, wrong=1)
    drafts = [slow.draft(REPEATED[3]) for _ in range(EXPLORE_EVERY)]
    assert drafts[:-1] == [[]] * (EXPLORE_EVERY - 1)
    assert drafts[-1] == [REPEATED[4]]


def test_in_between_a_few_guesses_and_more_as_they_prove_right() -> None:
    """Each guess costs a third of a token: a few while right 3 times in 4, more once the
    reply is seen to copy its input."""
    planner = drafter(10, 3.5, right=3, wrong=1)
    first = len(planner.draft(REPEATED[3]))
    assert 1 <= first <= 4
    for _ in range(10):
        planner.learn(first, first)
    assert len(planner.draft(REPEATED[3])) > first


def test_one_token_is_timed_before_any_guess_and_a_batch_right_after() -> None:
    """A fresh model: the first decode is a single token, whose time is what guesses are
    weighed by; with a batch not yet timed, a guess is assumed cheap, so one is timed."""
    fresh = NgramDrafter(REPEATED)
    fresh.extend(REPEATED[:3])
    assert fresh.draft(REPEATED[3]) == []
    fresh.costs.observe(1, 0.010)
    assert len(fresh.draft(REPEATED[3])) > 1
    assert NgramDrafter(REPEATED, fresh.costs).draft(999) == [], "no match, no guess"
