from __future__ import annotations

import copy

from context_factories import simple_conversation, text

from praisonlike.context import (
    SUMMARY_ACK,
    SUMMARY_PREFIX,
    TokenCounter,
    apply_summary,
    build_summary_request,
    check_invariants,
    plan_summary,
    summarise,
)

COUNTER = TokenCounter("gpt-4o-mini")


def test_plan_keeps_room_for_the_summary() -> None:
    messages = simple_conversation(12, tool_words=30)
    budget = COUNTER.count_messages(messages) // 2
    plan = plan_summary(messages, budget, COUNTER)
    assert plan.dropped and plan.kept[0] == messages[0]
    assert plan.kept[1]["role"] == "user"
    assert messages == [messages[0], *plan.dropped, *plan.kept[1:]]
    assert plan.summary_tokens == budget // 5
    assert COUNTER.count_messages(plan.kept) + plan.summary_tokens <= budget


def test_summary_request_renders_the_dropped_part_as_a_transcript() -> None:
    messages = simple_conversation(3, tool_words=5)
    request = build_summary_request(messages[1:5], COUNTER, summary_tokens=400, max_tokens=10_000)
    assert [m["role"] for m in request] == ["system", "user"]
    assert "300 words" in request[0]["content"]
    transcript = request[1]["content"]
    assert "User: question 0" in transcript
    assert 'Assistant called tool search with {"query": "call_0"}' in transcript
    assert "Tool result (search):" in transcript
    assert "Assistant: answer 0" in transcript
    assert "question 1" not in transcript


def test_summary_request_leaves_out_the_oldest_entries_past_its_cap() -> None:
    messages = simple_conversation(40)
    request = build_summary_request(messages[1:], COUNTER, summary_tokens=100, max_tokens=300)
    transcript = request[1]["content"]
    assert "[earlier messages omitted]" in transcript
    assert "answer 39" in transcript and "question 0:" not in transcript
    assert COUNTER.count_text(transcript) < 400


def test_apply_summary_inserts_the_pair_after_the_system_message() -> None:
    messages = simple_conversation(8)
    budget = COUNTER.count_messages(messages) // 2
    plan = plan_summary(messages, budget, COUNTER)
    result = apply_summary(plan.kept, "The user asked eight questions.", budget, COUNTER)
    assert result[0] == messages[0]
    summary = SUMMARY_PREFIX + "The user asked eight questions."
    assert result[1] == {"role": "user", "content": summary}
    assert result[2] == {"role": "assistant", "content": SUMMARY_ACK}
    assert result[3:] == plan.kept[1:]
    assert COUNTER.count_messages(result) <= budget
    assert not check_invariants(messages, result, counter=COUNTER, budget=budget)


def test_apply_summary_cuts_a_long_summary_to_the_budget() -> None:
    messages = simple_conversation(8, words=300)
    budget = COUNTER.count_messages(messages) // 2
    plan = plan_summary(messages, budget, COUNTER)
    result = apply_summary(plan.kept, "BEGIN " + text(5000) + " FINISH", budget, COUNTER)
    assert COUNTER.count_messages(result) <= budget
    assert result[1]["content"].startswith(SUMMARY_PREFIX + "BEGIN")
    assert result[1]["content"].endswith("FINISH")


def test_apply_summary_without_room_keeps_the_conversation_as_is() -> None:
    messages = simple_conversation(2)
    assert apply_summary(messages, "summary", 10, COUNTER) == messages
    assert apply_summary(messages, "   ", 10**6, COUNTER) == messages


def test_summarise_calls_the_summariser_once_with_the_request() -> None:
    messages = simple_conversation(10, tool_words=20)
    original = copy.deepcopy(messages)
    requests: list[list[dict]] = []

    def fake_model(request: list[dict]) -> str:
        requests.append(request)
        return "Ten questions about filler text."

    budget = COUNTER.count_messages(messages) // 3
    result = summarise(messages, budget, COUNTER, fake_model)
    assert len(requests) == 1
    assert messages == original
    assert result[1]["content"] == SUMMARY_PREFIX + "Ten questions about filler text."
    assert COUNTER.count_messages(result) <= budget
    assert not check_invariants(messages, result, counter=COUNTER, budget=budget)


def test_summarise_without_anything_to_drop_makes_no_call() -> None:
    messages = simple_conversation(1)

    def fail(request: list[dict]) -> str:
        raise AssertionError("no summary needed")

    assert summarise(messages, 10, COUNTER, fail) == messages
