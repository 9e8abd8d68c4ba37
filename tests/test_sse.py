"""Server-sent events and <think> splitting, piece by piece."""

from backends.sse import SSEEvent, ThinkSplitter, sse_events


def test_comments_keepalives_multiline_data_errors_and_done() -> None:
    lines = [
        ": keep-alive",
        "",
        'data: {"a": 1}',
        "",
        "data: line one",
        "data: line two",
        "",
        "event: error",
        'data: {"error": "boom"}',
        "",
        "",
        "data: [DONE]",
        "",
        "data: after done",
    ]
    assert list(sse_events(lines)) == [
        SSEEvent('{"a": 1}'),
        SSEEvent("line one\nline two"),
        SSEEvent('{"error": "boom"}', "error"),
    ]


def test_a_stream_cut_before_its_blank_line_still_yields_the_last_event() -> None:
    assert list(sse_events(['data: {"x": 2}'])) == [SSEEvent('{"x": 2}')]


def test_think_tags_split_across_chunks() -> None:
    splitter = ThinkSplitter()
    pieces = []
    for chunk in ["<thi", "nk>Let me", " think.</th", "ink>The answer", " is 4."]:
        pieces += splitter.feed(chunk)
    pieces += splitter.finish()
    reasoning = "".join(t for k, t in pieces if k == "reasoning")
    answer = "".join(t for k, t in pieces if k == "answer")
    assert (reasoning, answer) == ("Let me think.", "The answer is 4.")


def test_an_implied_opening_tag() -> None:
    splitter = ThinkSplitter()
    pieces = splitter.feed("hmm, 2+2</think>4")
    assert pieces == [("reasoning", "hmm, 2+2"), ("answer", "4")]


def test_text_that_only_looks_like_a_tag_start_is_released() -> None:
    splitter = ThinkSplitter()
    pieces = splitter.feed("a <b> and <th") + splitter.feed("ings>") + splitter.finish()
    assert "".join(t for _k, t in pieces) == "a <b> and <things>"
