"""How much of a prompt is read between two checks of Stop: 128 tokens, or as many as take
half a second on this machine, so that a GPU reads long prompts in full batches."""

from backends.llama_loop import PREFILL_FIRST, PREFILL_SECONDS, PrefillPacer

BATCH = 512  # llama.cpp's batch, the most one decode takes


def test_the_first_slice_is_the_usual_size_and_never_more_than_a_batch() -> None:
    assert PrefillPacer(BATCH).size() == PREFILL_FIRST
    assert PrefillPacer(64).size() == 64


def warmed(most: int = BATCH) -> PrefillPacer:
    """A pacer past the first slice after a load, which pays for warming up."""
    pacer = PrefillPacer(most)
    pacer.observe(PREFILL_FIRST, 10.0)
    assert pacer.size() == min(PREFILL_FIRST, most), "the warm-up slice is not counted"
    return pacer


def test_a_fast_engine_reads_whole_batches() -> None:
    """A GPU: 128 tokens in 20 ms.  Slices of 128 would be mostly launch overhead."""
    pacer = warmed()
    pacer.observe(PREFILL_FIRST, 0.020)
    assert pacer.size() == BATCH


def test_a_slow_engine_keeps_the_usual_slices() -> None:
    """A large model on a small CPU: 128 tokens in 6 s.  Smaller batches would cost more per
    token there, and read the prompt slower and slower."""
    pacer = warmed()
    for _ in range(5):
        size = pacer.size()
        pacer.observe(size, size * 0.05)
    assert pacer.size() == PREFILL_FIRST


def test_in_between_a_slice_takes_about_the_target_time_and_follows_changes() -> None:
    """800 tokens/s, then the machine gets busy (400 tokens/s): the slices follow, without
    jumping at one slow slice."""
    pacer = warmed()
    for _ in range(15):
        size = pacer.size()
        pacer.observe(size, size / 800)
    assert abs(pacer.size() / 800 - PREFILL_SECONDS) < 0.05
    before = pacer.size()
    pacer.observe(before, before / 400)
    assert before / 2 < pacer.size() < before, "one slow slice moves it part of the way"
    for _ in range(15):
        size = pacer.size()
        pacer.observe(size, size / 400)
    assert abs(pacer.size() / 400 - PREFILL_SECONDS) < 0.05


def test_a_short_tail_does_not_count() -> None:
    """The few tokens left at the end of a prompt cost mostly the decode's fixed work."""
    pacer = warmed()
    pacer.observe(PREFILL_FIRST, 0.020)
    pacer.observe(PREFILL_FIRST - 1, 5.0)
    assert pacer.size() == BATCH
