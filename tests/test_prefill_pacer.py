"""How much of a prompt is read between two checks of Stop: 128 tokens, or as many as take
half a second on this machine, so that a GPU reads long prompts in full batches."""

from backends.llama_loop import PREFILL_FIRST, PREFILL_SECONDS, PrefillPacer

BATCH = 512  # llama.cpp's batch, the most one decode takes


def test_the_first_slice_is_the_usual_size_and_never_more_than_a_batch() -> None:
    assert PrefillPacer(BATCH).size() == PREFILL_FIRST
    assert PrefillPacer(64).size() == 64


def test_a_fast_engine_reads_whole_batches() -> None:
    """A GPU: 128 tokens in 20 ms.  Slices of 128 would be mostly launch overhead."""
    pacer = PrefillPacer(BATCH)
    pacer.observe(PREFILL_FIRST, 0.020)
    assert pacer.size() == BATCH


def test_a_slow_engine_keeps_the_usual_slices() -> None:
    """A large model on a small CPU: 128 tokens in 6 s.  Smaller batches would cost more per
    token there, and read the prompt slower and slower."""
    pacer = PrefillPacer(BATCH)
    for _ in range(5):
        size = pacer.size()
        pacer.observe(size, size * 0.05)
    assert pacer.size() == PREFILL_FIRST


def test_in_between_a_slice_takes_about_the_target_time() -> None:
    pacer = PrefillPacer(BATCH)
    for _ in range(10):
        size = pacer.size()
        pacer.observe(size, size / 400)  # 400 tokens/s
    assert abs(pacer.size() / 400 - PREFILL_SECONDS) < 0.05


def test_a_short_tail_does_not_count() -> None:
    """The few tokens left at the end of a prompt cost mostly the decode's fixed work."""
    pacer = PrefillPacer(BATCH)
    pacer.observe(PREFILL_FIRST, 0.020)
    pacer.observe(PREFILL_FIRST - 1, 5.0)
    assert pacer.size() == BATCH
