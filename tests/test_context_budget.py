"""The documented policy when a conversation outgrows the context window."""

from typing import Any

import pytest

from backends.context_budget import ContextOverflow, fit_messages, reply_reserve


def count_words(messages: list[dict]) -> int:
    return sum(len(m["content"].split()) + 1 for m in messages)


def conversation(turns: int) -> list[dict]:
    messages = [{"role": "system", "content": "be brief"}]
    for i in range(turns):
        messages.append({"role": "user", "content": f"question {i} " + "word " * 8})
        messages.append({"role": "assistant", "content": f"answer {i} " + "word " * 8})
    messages.append({"role": "user", "content": "final question"})
    return messages


def test_a_conversation_that_fits_is_sent_whole() -> None:
    messages = conversation(2)
    fitted = fit_messages(messages, count_words, budget=1000)
    assert fitted.messages == messages and fitted.dropped == 0


def test_oldest_turns_are_dropped_but_system_prompt_and_newest_message_kept() -> None:
    messages = conversation(20)
    fitted = fit_messages(messages, count_words, budget=60)
    assert fitted.prompt_tokens <= 60
    assert fitted.messages[0] == messages[0]
    assert fitted.messages[-1] == messages[-1]
    assert fitted.dropped > 0
    assert fitted.messages[1]["role"] == "user"  # never starts with an orphaned answer
    # The kept history is the newest part, in order.
    assert fitted.messages[1:] == messages[len(messages) - len(fitted.messages) + 1 :]


def test_a_kept_history_never_starts_with_a_tool_result_whose_call_was_dropped() -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "be brief"}]
    for i in range(6):
        messages.append({"role": "user", "content": f"question {i} " + "word " * 8})
        messages.append({"role": "assistant", "content": "", "tool_calls": [{"id": "a"}]})
        messages.append({"role": "tool", "content": f"result {i} " + "word " * 8})
        messages.append({"role": "assistant", "content": f"answer {i}"})
    messages.append({"role": "user", "content": "final question"})
    for budget in range(20, 120, 7):
        fitted = fit_messages(messages, count_words, budget=budget)
        assert fitted.messages[1]["role"] == "user", (budget, fitted.messages[1])


def test_a_message_too_long_on_its_own_is_refused_with_numbers() -> None:
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "w " * 500}]
    with pytest.raises(ContextOverflow) as caught:
        fit_messages(messages, count_words, budget=100)
    assert caught.value.needed > 100 and "100" in str(caught.value)


def test_reply_reserve_is_capped_at_half_the_window() -> None:
    assert reply_reserve(4096, None) == 1024
    assert reply_reserve(4096, 100) == 100
    assert reply_reserve(4096, 100_000) == 2048


def test_templates_that_open_thinking_and_requests_to_continue_are_recognised() -> None:
    from backends.context_budget import continues_reply, opens_thinking

    assert opens_thinking("<｜User｜>Hi<｜Assistant｜><think>\n")
    assert not opens_thinking("<|im_start|>assistant\n")
    reply = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hel"}]
    assert continues_reply({"continue": True}, reply)
    assert not continues_reply({"continue": True}, reply[:1])  # nothing to go on with
    assert not continues_reply({}, reply)
