from __future__ import annotations

import copy

import pytest
from context_factories import assistant, simple_conversation, system, text, tool_round, user

from praisonlike.context import (
    PLACEHOLDER,
    TokenCounter,
    check_invariants,
    drop_oldest_tools,
    insurance_cut,
    sliding_window,
    split_turns,
    truncate,
)
from praisonlike.context.strategies import MIN_CUT_CHARS

COUNTER = TokenCounter("gpt-4o-mini")


def _count(messages: list[dict]) -> int:
    return COUNTER.count_messages(messages)


def test_split_turns_starts_a_turn_at_each_user_message() -> None:
    messages = simple_conversation(3, tool_words=5)
    conversation = split_turns(messages)
    assert conversation.head == [messages[0]]
    assert [len(turn) for turn in conversation.turns] == [4, 4, 4]
    assert all(turn[0]["role"] == "user" for turn in conversation.turns)
    assert conversation.current == messages[-4:]


def test_split_turns_keeps_a_preamble_and_waits_for_pending_tool_results() -> None:
    call, result = tool_round(["c1"], ["out"])
    messages = [
        assistant("hello, how can I help?"),
        user("q1"),
        call,
        user("interjection"),
        result,
        user("q2"),
    ]
    turns = split_turns(messages).turns
    assert turns[0] == [messages[0]]
    assert turns[1] == messages[1:5]
    assert turns[2] == [messages[5]]


def test_truncate_drops_oldest_whole_turns_only_as_far_as_needed() -> None:
    messages = simple_conversation(10)
    original = copy.deepcopy(messages)
    budget = _count(messages) // 2
    result = truncate(messages, budget, COUNTER)
    assert messages == original
    assert _count(result) <= budget
    assert result[0] == messages[0]
    assert result[1]["role"] == "user"
    assert result == [messages[0], *messages[len(messages) - len(result) + 1 :]]
    one_more_turn = [messages[0], *messages[len(messages) - len(result) - 1 :]]
    assert _count(one_more_turn) > budget
    assert not check_invariants(messages, result, counter=COUNTER, budget=budget)


def test_truncate_returns_everything_when_it_fits() -> None:
    messages = simple_conversation(3)
    result = truncate(messages, 10**6, COUNTER)
    assert result == messages and result is not messages


def test_truncate_keeps_the_current_turn_even_when_over_budget() -> None:
    messages = simple_conversation(4)
    result = truncate(messages, 10, COUNTER)
    assert result == [messages[0], *messages[-2:]]


def test_sliding_window_keeps_system_and_last_n_turns() -> None:
    messages = simple_conversation(6, tool_words=3)
    result = sliding_window(messages, 2)
    assert result == [messages[0], *messages[-8:]]
    assert sliding_window(messages, 100) == messages
    assert not check_invariants(messages, result)


def test_drop_oldest_tools_replaces_old_results_oldest_first_before_dropping_turns() -> None:
    messages = simple_conversation(6, words=10, tool_words=400)
    total = _count(messages)
    one_output = COUNTER.count_message(messages[3]) - COUNTER.count_message(
        {**messages[3], "content": PLACEHOLDER}
    )
    budget = total - one_output - one_output // 2
    result = drop_oldest_tools(messages, budget, COUNTER)
    assert len(result) == len(messages)
    placeholders = [i for i, m in enumerate(result) if m.get("content") == PLACEHOLDER]
    assert placeholders == [3, 7]
    assert result[3]["tool_call_id"] == messages[3]["tool_call_id"]
    assert _count(result) <= budget
    assert not check_invariants(messages, result, counter=COUNTER, budget=budget)


def test_drop_oldest_tools_replaces_every_earlier_result_before_dropping_a_turn() -> None:
    messages = simple_conversation(6, words=10, tool_words=400)
    all_replaced = [
        {**m, "content": PLACEHOLDER} if m["role"] == "tool" and i < len(messages) - 4 else m
        for i, m in enumerate(messages)
    ]
    budget = _count(all_replaced)
    result = drop_oldest_tools(messages, budget, COUNTER)
    assert result == all_replaced
    assert result[-4:] == messages[-4:]

    result = drop_oldest_tools(messages, budget - 1, COUNTER)
    assert result == [all_replaced[0], *all_replaced[5:]]
    assert _count(result) <= budget - 1
    assert not check_invariants(messages, result, counter=COUNTER, budget=budget - 1)


def test_drop_oldest_tools_never_changes_the_current_turn() -> None:
    messages = simple_conversation(6, words=10, tool_words=400)
    result = drop_oldest_tools(messages, 900, COUNTER)
    assert result[-4:] == messages[-4:]
    assert [m["content"] for m in result[:-4] if m["role"] == "tool"] == [PLACEHOLDER] * (
        len([m for m in result[:-4] if m["role"] == "tool"])
    )
    assert _count(result) <= 900
    assert result[1]["role"] == "user"
    assert not check_invariants(messages, result, counter=COUNTER, budget=900)


def test_drop_oldest_tools_leaves_a_fitting_conversation_alone() -> None:
    messages = simple_conversation(4, tool_words=50)
    assert drop_oldest_tools(messages, 10**6, COUNTER) == messages


def test_insurance_cut_cuts_the_largest_texts_of_the_current_turn() -> None:
    call, result = tool_round(["c1"], ["START " + text(4000) + " END"])
    messages = [
        system(),
        user("old question"),
        assistant("old answer"),
        user("summarise the file " + text(200)),
        call,
        result,
    ]
    budget = 600
    cut = insurance_cut(messages, budget, COUNTER)
    assert _count(cut) <= budget
    assert cut[0] is messages[0]
    assert cut[1]["content"].startswith("summarise the file")
    assert cut[-1]["content"].startswith("START") and cut[-1]["content"].endswith("END")
    assert cut[-2] is call
    assert not check_invariants(messages, cut, counter=COUNTER, budget=budget)


@pytest.mark.parametrize("times_over", [2, 10, 40, 80])
def test_insurance_cut_keeps_most_of_the_budget_however_far_over_it_is(times_over: int) -> None:
    budget = 2_000
    huge = user("START " + "word " * (budget * times_over) + " END")
    messages = [system(), huge]
    cut = insurance_cut(messages, budget, COUNTER)
    assert budget * 0.8 <= _count(cut) <= budget
    assert cut[-1]["content"].startswith("START") and cut[-1]["content"].endswith("END")


def test_insurance_cut_stops_at_the_minimum_when_the_budget_is_impossible() -> None:
    messages = [system(text(300)), user(text(500)), *tool_round(["a"], [text(900)])]
    cut = insurance_cut(messages, 50, COUNTER)
    assert cut[0] is messages[0]
    assert len(cut[1]["content"]) <= MIN_CUT_CHARS
    assert len(cut[-1]["content"]) <= MIN_CUT_CHARS
    assert len(cut) == len(messages)
