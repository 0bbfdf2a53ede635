from __future__ import annotations

import copy
from dataclasses import replace as dataclasses_replace
from typing import Any

import pytest
from context_factories import (
    SEARCH_TOOL,
    ExactCounter,
    simple_conversation,
    system,
    text,
    tool_round,
    user,
)

from praisonlike.context import (
    PLACEHOLDER,
    SUMMARY_PREFIX,
    ContextConfig,
    ContextManager,
    Prepared,
    Route,
    TokenCounter,
    check_invariants,
    choose_route,
)
from praisonlike.context import manager as manager_module
from praisonlike.errors import ConfigurationError

COUNTER = TokenCounter("gpt-4o-mini")


def _manager(window: int = 4000, **fields: Any) -> ContextManager:
    config = ContextConfig(max_context_tokens=window, reserve_output_tokens=0, **fields)
    return ContextManager("gpt-4o-mini", config, counter=COUNTER)


def _tokens(messages: list[dict], tools: list[dict] | None = None) -> int:
    return COUNTER.count_messages(messages) + COUNTER.count_tools(tools or [])


def test_choose_route_table() -> None:
    common = {"trigger_tokens": 90, "target_tokens": 70}
    assert choose_route(90, has_oversize_tools=False, **common) is Route.FITS
    assert choose_route(50, has_oversize_tools=True, **common) is Route.TRUNCATE_TOOLS
    assert choose_route(91, has_oversize_tools=False, **common) is Route.COMPACT
    assert choose_route(
        200, has_oversize_tools=True, tokens_after_tool_cut=70, **common
    ) is Route.TRUNCATE_TOOLS
    assert choose_route(
        200, has_oversize_tools=True, tokens_after_tool_cut=71, **common
    ) is Route.COMPACT_THEN_TRUNCATE
    with pytest.raises(ValueError):
        choose_route(200, has_oversize_tools=True, **common)


def test_fits_sends_the_messages_unchanged_without_a_report() -> None:
    manager = _manager()
    messages = simple_conversation(3)
    assert manager.route(messages, [SEARCH_TOOL]) is Route.FITS
    prepared = manager.prepare(messages, [SEARCH_TOOL])
    assert prepared.report is None and prepared.summary_request is None
    assert prepared.messages == messages and prepared.messages is not messages


def test_oversize_tool_output_under_the_trigger_is_only_truncated() -> None:
    manager = _manager(window=20_000, tool_output_limit=1000)
    messages = [system(), user("read it"), *tool_round(["c1"], [text(400)])]
    assert _tokens(messages) < manager.budgets.trigger
    assert manager.route(messages) is Route.TRUNCATE_TOOLS
    prepared = manager.prepare(messages)
    report = prepared.report
    assert report is not None and report.route is Route.TRUNCATE_TOOLS
    assert report.strategy is None and report.tool_outputs_truncated == 1
    assert report.messages_dropped == 0
    assert len(prepared.messages[-1]["content"]) <= 1000
    assert report.tokens_after == _tokens(prepared.messages) < report.tokens_before


def test_over_trigger_truncating_tools_alone_can_be_enough() -> None:
    manager = _manager(window=2000, tool_output_limit=500)
    messages = [system(), user("read it"), *tool_round(["c1"], [text(3000)])]
    assert _tokens(messages) > manager.budgets.trigger
    prepared = manager.prepare(messages)
    assert prepared.report is not None and prepared.report.route is Route.TRUNCATE_TOOLS
    assert prepared.report.tokens_after <= manager.budgets.target
    assert len(prepared.messages) == len(messages)


def test_compact_route_uses_the_configured_strategy() -> None:
    manager = _manager(window=3000, strategy="truncate")
    messages = simple_conversation(30)
    original = copy.deepcopy(messages)
    assert manager.route(messages) is Route.COMPACT
    prepared = manager.prepare(messages)
    report = prepared.report
    assert report is not None
    assert (report.route, report.strategy, report.failed) == (Route.COMPACT, "truncate", None)
    assert report.tokens_after <= manager.budgets.target < report.tokens_before
    assert report.messages_dropped == len(messages) - len(prepared.messages) > 0
    assert messages == original
    assert not check_invariants(messages, prepared.messages, counter=COUNTER,
                                budget=manager.budgets.target)


def test_compact_then_truncate_cuts_tools_first_and_then_compacts() -> None:
    manager = _manager(window=3000, tool_output_limit=800, keep_last_turns=1)
    messages = simple_conversation(12, words=30, tool_words=600)
    assert manager.route(messages) is Route.COMPACT_THEN_TRUNCATE
    prepared = manager.prepare(messages)
    report = prepared.report
    assert report is not None and report.route is Route.COMPACT_THEN_TRUNCATE
    assert report.strategy == "drop_oldest_tools"
    assert report.tool_outputs_truncated == 12
    assert report.tool_outputs_removed > 0
    assert all(len(m["content"]) <= 800 for m in prepared.messages if m["role"] == "tool")
    assert report.tokens_after <= manager.budgets.target
    assert not check_invariants(messages, prepared.messages, counter=COUNTER,
                                budget=manager.budgets.target, tool_output_limit=800)


def test_sliding_window_result_is_still_brought_down_to_target() -> None:
    manager = _manager(window=2000, strategy="sliding_window", keep_last_turns=20)
    messages = simple_conversation(30)
    prepared = manager.prepare(messages)
    assert prepared.report is not None and prepared.report.tokens_after <= manager.budgets.target


def test_hard_cap_insurance_cuts_an_oversized_current_turn() -> None:
    manager = _manager(window=2000, tool_output_limit=6000)
    messages = [system(), user("old"), user("now " + text(3000))]
    prepared = manager.prepare(messages)
    report = prepared.report
    assert report is not None and report.insurance_applied
    assert report.tokens_after <= manager.budgets.insurance
    assert prepared.messages[-1]["content"].startswith("now")
    budgets = manager.budgets
    assert not check_invariants(messages, prepared.messages, counter=COUNTER,
                                budget=budgets.target, hard_limit=budgets.hard_cap,
                                cut_budget=budgets.insurance)


def test_tools_count_against_the_budget() -> None:
    manager = _manager(window=3000, strategy="truncate")
    messages = simple_conversation(20)
    big_tools = [
        {**SEARCH_TOOL, "function": {**SEARCH_TOOL["function"], "name": f"tool_{i}",
                                     "description": text(60, i)}}
        for i in range(8)
    ]
    prepared = manager.prepare(messages, big_tools)
    assert prepared.report is not None
    assert prepared.report.tokens_after == _tokens(prepared.messages, big_tools)
    assert prepared.report.tokens_after <= manager.budgets.target
    plain = manager.prepare(messages)
    assert len(prepared.messages) < len(plain.messages)


def test_a_failing_strategy_falls_back_to_the_insurance_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object) -> list[dict]:
        raise RuntimeError("strategy exploded")

    monkeypatch.setitem(manager_module._STRATEGIES, "truncate", broken)
    manager = _manager(window=3000, strategy="truncate")
    messages = simple_conversation(30)
    prepared = manager.prepare(messages)
    report = prepared.report
    assert report is not None and report.insurance_applied
    assert report.failed is not None and "strategy exploded" in report.failed
    assert report.tokens_after <= manager.budgets.target
    assert not check_invariants(messages, prepared.messages)


def test_malformed_input_is_returned_unchanged_instead_of_raising() -> None:
    manager = _manager()
    messages: list[Any] = [user("hi"), "not a message"]
    prepared = manager.prepare(messages)
    assert prepared.messages == messages
    assert prepared.report is not None and "left unchanged" in (prepared.report.failed or "")


def _summarising_manager(window: int = 3000) -> ContextManager:
    return _manager(window=window, strategy="summarise")


def test_summarise_returns_a_request_and_finish_inserts_the_summary() -> None:
    manager = _summarising_manager()
    messages = simple_conversation(30)
    prepared = manager.prepare(messages)
    assert prepared.summary_request is not None
    assert prepared.report is not None and prepared.report.strategy == "summarise"
    assert prepared.messages[1]["role"] == "user"
    done = prepared.finish("They talked about filler text.")
    assert done.summary_request is None
    assert done.messages[1]["content"] == SUMMARY_PREFIX + "They talked about filler text."
    assert done.messages[2]["role"] == "assistant"
    report = done.report
    assert report is not None and report.failed is None and report.strategy == "summarise"
    assert report.messages_dropped == len(messages) - (len(done.messages) - 2)
    assert report.tokens_after <= manager.budgets.target
    assert not check_invariants(messages, done.messages, counter=COUNTER,
                                budget=manager.budgets.target)


@pytest.mark.parametrize("how", ["fallback", "empty"])
def test_summary_failures_fall_back_to_drop_oldest_tools(how: str) -> None:
    manager = _summarising_manager()
    messages = simple_conversation(20, tool_words=80)
    prepared = manager.prepare(messages)
    done = prepared.fallback("model down") if how == "fallback" else prepared.finish("  ")
    report = done.report
    assert report is not None and report.strategy == "drop_oldest_tools"
    assert report.failed is not None and report.failed.startswith("summarise failed")
    assert ("model down" in report.failed) == (how == "fallback")
    assert not any(SUMMARY_PREFIX in str(m.get("content")) for m in done.messages)
    assert report.tokens_after <= manager.budgets.target


def test_finish_without_a_pending_summary_is_an_error() -> None:
    with pytest.raises(ConfigurationError):
        Prepared(messages=[], report=None).finish("x")


def test_emergency_compacts_even_when_the_estimate_fits() -> None:
    manager = _manager(window=10_000)
    messages = simple_conversation(20, tool_words=100)
    assert manager.route(messages) is Route.FITS
    prepared = manager.emergency(messages, ratio=0.3)
    report = prepared.report
    assert report is not None and report.route is Route.COMPACT
    assert report.tokens_after <= int(0.3 * manager.window)
    assert any(m.get("content") == PLACEHOLDER for m in prepared.messages)
    with pytest.raises(ValueError):
        manager.emergency(messages, ratio=0)


def test_emergency_cuts_the_current_turn_when_it_alone_is_too_big() -> None:
    manager = _manager(window=4000, tool_output_limit=50_000)
    messages = [system(), user("q"), *tool_round(["c"], [text(4000)])]
    assert manager.route(messages) is Route.COMPACT
    prepared = manager.emergency(messages)
    assert prepared.report is not None and prepared.report.insurance_applied
    assert prepared.report.tokens_after <= int(0.7 * manager.window)


def test_steady_state_turn_encodes_only_the_new_message() -> None:
    class CountingCounter(ExactCounter):
        encoded = 0

        def count_text(self, value: str) -> int:
            CountingCounter.encoded += 1
            return super().count_text(value)

    counter = CountingCounter("gpt-4o-mini")
    manager = ContextManager("gpt-4o-mini", ContextConfig(max_context_tokens=10**7),
                             counter=counter)
    history = simple_conversation(500, tool_words=10)
    manager.prepare(history, [SEARCH_TOOL])
    before = CountingCounter.encoded
    prepared = manager.prepare([*history, user("and now?")], [SEARCH_TOOL])
    assert prepared.report is None
    assert CountingCounter.encoded - before == 1  # its content; role counts are remembered


def test_a_request_whose_bound_fits_is_sent_without_counting_a_token() -> None:
    counter = TokenCounter("gpt-4o-mini")
    manager = ContextManager("gpt-4o-mini", ContextConfig(max_context_tokens=128_000),
                             counter=counter)
    history = simple_conversation(3, tool_words=5)
    assert manager.route(history, [SEARCH_TOOL]) is Route.FITS
    prepared = manager.prepare(history, [SEARCH_TOOL])
    assert prepared.report is None and prepared.messages == history
    assert counter.stats.misses == 0


def test_a_request_the_bound_cannot_prove_is_counted_and_routed_exactly() -> None:
    history = simple_conversation(6, tool_words=30)
    counter = TokenCounter("gpt-4o-mini")
    exact = counter.count_messages(history) + counter.count_tools([SEARCH_TOOL])
    bound = 3 + sum(map(counter.bound_message, history)) + counter.bound_tools([SEARCH_TOOL])
    assert bound > 2 * exact
    config = ContextConfig(max_context_tokens=exact * 2, reserve_output_tokens=0, trigger=0.75)
    fresh = TokenCounter("gpt-4o-mini")
    manager = ContextManager("gpt-4o-mini", config, counter=fresh)
    assert manager.route(history, [SEARCH_TOOL]) is Route.FITS  # exact <= trigger < bound
    assert fresh.stats.misses == len(history)
    over = ContextManager("gpt-4o-mini", dataclasses_replace(config, max_context_tokens=exact))
    prepared = over.prepare(history, [SEARCH_TOOL])
    assert prepared.report is not None and prepared.report.route is Route.COMPACT
    assert prepared.report.tokens_after <= over.budgets.target


def test_forget_history_lets_the_bound_decide_again() -> None:
    counter = TokenCounter("gpt-4o-mini")
    config = ContextConfig(max_context_tokens=4000, reserve_output_tokens=0)
    manager = ContextManager("gpt-4o-mini", config, counter=counter)
    long = simple_conversation(40, tool_words=30)
    manager.prepare(long)
    counted = counter.stats.misses
    assert counted > 0
    manager.forget_history()
    manager.prepare([system(), user("hello")])
    assert counter.stats.misses == counted
