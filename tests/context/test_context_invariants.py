"""The checker itself must catch each kind of broken promise."""

from __future__ import annotations

from context_factories import assistant, simple_conversation, system, text, tool_round, user

from praisonlike.context import PLACEHOLDER, TokenCounter, check_invariants, truncate_tool_output

COUNTER = TokenCounter("gpt-4o-mini")


def _conversation() -> list[dict]:
    return simple_conversation(4, tool_words=20)


def test_an_unchanged_conversation_passes() -> None:
    messages = _conversation()
    assert check_invariants(messages, list(messages)) == []


def test_missing_or_changed_system_message_is_reported() -> None:
    messages = _conversation()
    assert any("system" in p for p in check_invariants(messages, messages[1:]))
    changed = [system("another prompt"), *messages[1:]]
    assert any("system" in p for p in check_invariants(messages, changed))


def test_missing_current_user_message_is_reported() -> None:
    messages = [*_conversation(), user("the new question")]
    problems = check_invariants(messages, messages[:-1])
    assert any("current (last) user message" in p for p in problems)


def test_first_message_after_system_must_be_a_user_message() -> None:
    messages = _conversation()
    problems = check_invariants(messages, [messages[0], *messages[3:]])
    assert any("first message after the system" in p for p in problems)


def test_a_kept_preamble_is_allowed() -> None:
    messages = [system(), assistant("Hi! Ask me anything."), user("q"), assistant("a")]
    assert check_invariants(messages, list(messages)) == []


def test_orphan_tool_results_and_calls_without_results_are_reported() -> None:
    messages = _conversation()
    without_call = [m for m in messages if not m.get("tool_calls") or m is not messages[2]]
    assert any("lost its call" in p for p in check_invariants(messages, without_call))
    without_result = [m for m in messages if m is not messages[3]]
    assert any("lost its result" in p for p in check_invariants(messages, without_result))


def test_reordered_or_invented_messages_are_reported() -> None:
    messages = _conversation()
    swapped = [messages[0], messages[5], messages[1], *messages[6:]]
    assert any("not from the input" in p for p in check_invariants(messages, swapped))
    invented = [*messages[:-1], assistant("made up"), messages[-1]]
    assert any("not from the input" in p for p in check_invariants(messages, invented))


def test_cut_and_placeholder_contents_count_as_coming_from_the_input() -> None:
    call, result = tool_round(["c1"], [text(2000)])
    messages = [system(), user("q"), call, result]
    cut = [*messages[:3], {**result, "content": truncate_tool_output(result["content"], 300)}]
    assert check_invariants(messages, cut) == []
    assert check_invariants(messages, [*messages[:3], {**result, "content": PLACEHOLDER}]) == []
    forged = [*messages[:3], {**result, "content": "a different output"}]
    assert check_invariants(messages, forged)


def test_over_budget_results_are_reported_when_the_budget_was_reachable() -> None:
    messages = simple_conversation(10)
    budget = COUNTER.count_messages(messages) // 2
    problems = check_invariants(messages, messages, counter=COUNTER, budget=budget)
    assert any("exceed the budget" in p for p in problems)


def test_unreachable_budget_requires_keeping_only_system_and_current_turn() -> None:
    messages = [system(), user("old"), assistant("old answer"), user(text(500))]
    current_only = [messages[0], messages[-1]]
    budget = COUNTER.count_messages(current_only) - 10
    assert check_invariants(messages, current_only, counter=COUNTER, budget=budget) == []
    problems = check_invariants(messages, messages, counter=COUNTER, budget=budget)
    assert any("more than system + current turn" in p for p in problems)


def test_past_the_hard_limit_the_cut_budget_must_be_met_when_possible() -> None:
    messages = [system(), user(text(2000))]
    tokens = COUNTER.count_messages(messages)
    problems = check_invariants(
        messages, messages, counter=COUNTER, budget=100, hard_limit=200, cut_budget=150
    )
    assert tokens > 200 and any("hard cut" in p for p in problems)
