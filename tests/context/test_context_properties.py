"""Property tests: every route and strategy keeps the invariants."""

from __future__ import annotations

import copy
from typing import Any

from context_factories import SEARCH_TOOL, configs, conversations, text
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from praisonlike.context import (
    PLACEHOLDER,
    ContextConfig,
    ContextManager,
    Route,
    TokenCounter,
    check_invariants,
    drop_oldest_tools,
    insurance_cut,
    sliding_window,
    truncate,
)
from praisonlike.context.messages import text_length

COUNTER = TokenCounter("gpt-4o-mini")
SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _check(original: list[dict], result: list[dict], **limits: Any) -> None:
    problems = check_invariants(original, result, counter=COUNTER, **limits)
    assert not problems, problems


@SETTINGS
@given(conversations(), configs(), st.booleans(), st.data())
def test_prepare_keeps_the_invariants(
    messages: list[dict], config: ContextConfig, with_tools: bool, data: st.DataObject
) -> None:
    tools = [SEARCH_TOOL] if with_tools else []
    manager = ContextManager("gpt-4o-mini", config, counter=COUNTER)
    snapshot = copy.deepcopy(messages)
    prepared = manager.prepare(messages, tools)
    if prepared.summary_request is not None:
        assert prepared.report is not None and prepared.report.strategy == "summarise"
        words = data.draw(st.sampled_from([0, 5, 60, 3000]), label="summary words")
        if data.draw(st.booleans(), label="summary fails"):
            prepared = prepared.fallback("summary model unavailable")
            assert prepared.report is not None and prepared.report.failed
        else:
            prepared = prepared.finish(text(words))
    assert messages == snapshot, "the input was mutated"

    budgets = manager.budgets
    report = prepared.report
    result = prepared.messages
    if report is None:
        event("route=fits")
        assert result == messages
        assert COUNTER.count_messages(messages) + COUNTER.count_tools(tools) <= budgets.trigger
        return
    assert report.tokens_after == COUNTER.count_messages(result) + COUNTER.count_tools(tools)
    assert all(
        text_length(m) <= config.tool_output_limit for m in result if m["role"] == "tool"
    )
    if report.route is Route.FITS:
        raise AssertionError("a FITS route must not produce a report")
    if report.strategy != "summarise" or report.failed:
        assert report.messages_dropped == len(messages) - len(result)
    event(f"route={report.route.value} insurance={report.insurance_applied}")
    budget = budgets.trigger if report.tokens_before <= budgets.trigger else budgets.target
    _check(
        messages,
        result,
        budget=budget,
        tools=tools,
        hard_limit=budgets.hard_cap,
        cut_budget=budgets.insurance,
        tool_output_limit=config.tool_output_limit,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations(), configs(), st.floats(0.2, 1.0))
def test_emergency_keeps_the_invariants(
    messages: list[dict], config: ContextConfig, ratio: float
) -> None:
    manager = ContextManager("gpt-4o-mini", config, counter=COUNTER)
    snapshot = copy.deepcopy(messages)
    prepared = manager.emergency(messages, ratio=ratio)
    if prepared.summary_request is not None:
        prepared = prepared.finish("a short summary of what happened")
    assert messages == snapshot
    budget = int(ratio * manager.window)
    _check(messages, prepared.messages, budget=budget, hard_limit=budget, cut_budget=budget,
           tool_output_limit=config.tool_output_limit)


@SETTINGS
@given(conversations(), st.integers(50, 6000), st.integers(1, 4))
def test_each_strategy_alone_keeps_the_invariants(
    messages: list[dict], budget: int, keep: int
) -> None:
    snapshot = copy.deepcopy(messages)
    for result in (
        truncate(messages, budget, COUNTER),
        drop_oldest_tools(messages, budget, COUNTER),
    ):
        _check(messages, result, budget=budget)
    _check(messages, sliding_window(messages, keep))
    _check(messages, insurance_cut(messages, budget, COUNTER), budget=budget, hard_limit=budget,
           cut_budget=budget)
    assert messages == snapshot


@SETTINGS
@given(conversations(), st.integers(50, 3000))
def test_drop_oldest_tools_replaces_results_oldest_first_before_dropping_turns(
    messages: list[dict], budget: int
) -> None:
    result = drop_oldest_tools(messages, budget, COUNTER)
    current_from = [i for i, m in enumerate(messages) if m["role"] == "user"][-1]
    current = messages[current_from:]
    assert result[len(result) - len(current) :] == current
    original = {m["tool_call_id"]: m for m in messages if m["role"] == "tool"}
    earlier = [m for m in result[: len(result) - len(current)] if m["role"] == "tool"]
    replaced = [m.get("content") == PLACEHOLDER for m in earlier]
    if any(replaced):
        assert COUNTER.count_messages(messages) > budget
    replaceable = [
        flag
        for flag, m in zip(replaced, earlier, strict=True)
        if text_length(original[m["tool_call_id"]]) > len(PLACEHOLDER)
    ]
    assert replaceable == sorted(replaceable, reverse=True), "replaced oldest first"
    if len(result) < len(messages):
        assert all(replaceable), "a turn was dropped while a tool result was left"


