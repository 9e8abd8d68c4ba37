"""Streaming text assembly: multi-byte characters and stop strings split across tokens."""

import pytest

from backends.text_stream import TextAssembler

SAMPLE = "Colors: 红色, 蓝色 and 黄色 🎨🎉 done."


def stream(pieces: list[bytes], stops: tuple[str, ...] = ()) -> tuple[list[str], TextAssembler]:
    assembler = TextAssembler(stops)
    deltas = [assembler.feed(p) for p in pieces]
    deltas.append(assembler.finish())
    return deltas, assembler


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_characters_split_across_tokens_never_show_replacement_chars(size: int) -> None:
    data = SAMPLE.encode()
    pieces = [data[i : i + size] for i in range(0, len(data), size)]
    deltas, assembler = stream(pieces)
    assert all("\ufffd" not in d for d in deltas)
    assert "".join(deltas) == SAMPLE == assembler.text


def test_every_split_point_of_an_emoji() -> None:
    data = "a🎉b".encode()
    for cut in range(1, len(data)):
        deltas, _ = stream([data[:cut], data[cut:]])
        assert "".join(deltas) == "a🎉b"
        assert "\ufffd" not in "".join(deltas)


def test_stop_string_arriving_in_pieces_is_cut_and_never_shown() -> None:
    pieces = [b"Sure, here.", b"\nUs", b"er:", b" more"]
    deltas, assembler = stream(pieces, ("\nUser:",))
    assert "".join(deltas) == "Sure, here."
    assert assembler.stopped


def test_a_prefix_of_a_stop_string_that_does_not_complete_is_released() -> None:
    deltas, assembler = stream([b"a\nU", b"nits"], ("\nUser:",))
    assert "".join(deltas) == "a\nUnits"
    assert not assembler.stopped


def test_leading_spaces_of_a_reply_are_dropped() -> None:
    deltas, _ = stream([b" ", b" Hello", b" world"])
    assert "".join(deltas) == "Hello world"


def test_the_earliest_stop_string_ends_the_text_whichever_is_listed_first() -> None:
    deltas, assembler = stream([b"Hello", b".\n", b"More"], ("\n", "."))
    assert "".join(deltas) == "Hello"
    assert assembler.stopped
