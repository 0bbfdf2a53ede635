from __future__ import annotations

import copy

from context_factories import ExactCounter, simple_conversation, text, user

from praisonlike.context import ContextConfig, ContextManager, Route, TokenCounter
from praisonlike.context.memo import HistoryMemo


class Recorder:
    def __init__(self) -> None:
        self.seen: list[dict] = []

    def __call__(self, message: dict) -> tuple[int, int]:
        self.seen.append(message)
        return len(str(message.get("content"))), 1


def test_only_appended_messages_are_measured() -> None:
    record = Recorder()
    memo = HistoryMemo(record, width=2)
    history = simple_conversation(50, tool_words=3)
    first = memo.totals(history)
    assert first[1] == len(history) and len(record.seen) == len(history)
    record.seen.clear()
    longer = [*history, user("next")]
    assert memo.totals(longer) == (first[0] + 4, first[1] + 1)
    assert record.seen == [longer[-1]]


def test_a_replaced_tail_is_remeasured_from_where_it_differs() -> None:
    record = Recorder()
    memo = HistoryMemo(record, width=2)
    history = simple_conversation(300)
    memo.totals([*history, user("first try")])
    record.seen.clear()
    assert memo.totals([*history, user("retry")])[1] == len(history) + 1
    assert [m["content"] for m in record.seen] == ["retry"]
    record.seen.clear()
    compacted = [history[0], *history[-5:]]
    assert memo.totals(compacted)[1] == 6
    assert record.seen == compacted[1:]
    assert memo.totals(compacted[:3])[1] == 3


def test_messages_changed_in_place_are_remeasured() -> None:
    record = Recorder()
    memo = HistoryMemo(record, width=2)
    history = copy.deepcopy(simple_conversation(20, tool_words=5))
    before = memo.totals(history)
    history[3]["content"] = text(100)
    history[2]["tool_calls"][0]["function"]["name"] = "renamed"
    record.seen.clear()
    after = memo.totals(history)
    assert record.seen[0] is history[2]
    assert len(record.seen) == len(history) - 2
    assert after[0] > before[0]


def test_the_manager_notices_a_history_that_grew_in_place() -> None:
    config = ContextConfig(max_context_tokens=4000, reserve_output_tokens=0)
    manager = ContextManager("gpt-4o-mini", config, counter=TokenCounter("gpt-4o-mini"))
    history = simple_conversation(4)
    assert manager.route(history) is Route.FITS
    history[1]["content"] = text(5000)
    assert manager.route(history) is Route.COMPACT


def test_reset_measures_the_next_list_in_full() -> None:
    record = Recorder()
    memo = HistoryMemo(record, width=2)
    history = simple_conversation(20)
    expected = memo.totals(history)
    memo.reset()
    record.seen.clear()
    assert memo.totals(history) == expected
    assert record.seen == history


def test_forget_history_keeps_the_routing_and_only_recent_counts() -> None:
    counter = ExactCounter("gpt-4o-mini")
    manager = ContextManager("gpt-4o-mini", ContextConfig(), counter=counter)
    history = simple_conversation(40)
    before = manager.route(history)
    assert counter.stats.entries == len(history)
    manager.forget_history(keep_counts=5)
    assert counter.stats.entries == 5
    assert manager.route(history) == before
    assert counter.stats.entries == len(history)


def test_a_trusting_memo_compares_only_objects_that_differ() -> None:
    record = Recorder()
    memo = HistoryMemo(record, width=2, trust_identity=True)
    history = copy.deepcopy(simple_conversation(40, tool_words=3))
    first = memo.totals(history)
    record.seen.clear()
    rebuilt_system = dict(history[0])
    again = [rebuilt_system, *history[1:], user("next")]
    assert memo.totals(again) == (first[0] + 4, first[1] + 1)
    assert record.seen == [again[-1]]
    record.seen.clear()
    changed = [*again[:10], user("a different message"), *again[11:]]
    assert memo.totals(changed)[1] == len(changed)
    assert record.seen[0] is changed[10] and len(record.seen) == len(changed) - 10


def test_a_trusting_memo_does_not_see_edits_in_place() -> None:
    record = Recorder()
    memo = HistoryMemo(record, width=2, trust_identity=True)
    history = copy.deepcopy(simple_conversation(10))
    before = memo.totals(history)
    history[3]["content"] = text(100)
    record.seen.clear()
    assert memo.totals(history) == before
    assert record.seen == []
    fresh = HistoryMemo(Recorder(), width=2)
    assert fresh.totals(history) != before


def test_a_trusting_memo_agrees_with_a_full_count_over_a_growing_history() -> None:
    counter = TokenCounter("gpt-4o-mini")
    trusting = ContextManager(
        "gpt-4o-mini",
        ContextConfig(max_context_tokens=3000, reserve_output_tokens=0),
        counter=counter,
        trust_identity=True,
    )
    history = copy.deepcopy(simple_conversation(2))
    for turn in range(30):
        history = [{"role": "system", "content": "You chat."}, *history[1:], user(text(turn * 7))]
        expected = ContextManager(
            "gpt-4o-mini", trusting.config, counter=TokenCounter("gpt-4o-mini")
        ).route(history)
        assert trusting.route(history) is expected
    assert trusting.route(history) is not Route.FITS


class CountingMessage(dict):
    comparisons = 0

    def __eq__(self, other: object) -> bool:
        CountingMessage.comparisons += 1
        return dict.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]


def test_a_trusting_memo_learns_the_new_objects_of_an_equal_history() -> None:
    memo = HistoryMemo(Recorder(), width=2, trust_identity=True)
    history = [CountingMessage(m) for m in simple_conversation(30)]
    memo.totals(history)
    restored = [CountingMessage(m) for m in history]
    CountingMessage.comparisons = 0
    first = memo.totals(restored)
    assert CountingMessage.comparisons >= len(history)
    CountingMessage.comparisons = 0
    assert memo.totals([*restored, user("next")]) == (first[0] + 4, first[1] + 1)
    assert CountingMessage.comparisons == 0


class CountingCounter(TokenCounter):
    """Counts the serialisations of tool schemas, for a count or for a bound."""

    def __init__(self, model: str) -> None:
        super().__init__(model)
        self.tool_counts = 0

    def count_tools(self, tools):  # type: ignore[no-untyped-def]
        self.tool_counts += 1
        return super().count_tools(tools)

    def bound_tools(self, tools):  # type: ignore[no-untyped-def]
        self.tool_counts += 1
        return super().bound_tools(tools)


def _schema(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}


def test_a_trusting_manager_serialises_the_same_tool_schemas_once() -> None:
    config = ContextConfig(max_context_tokens=3000, reserve_output_tokens=0)
    counter = CountingCounter("gpt-4o-mini")
    manager = ContextManager("gpt-4o-mini", config, counter=counter, trust_identity=True)
    history = copy.deepcopy(simple_conversation(3))
    schemas = [_schema("add")]
    manager.prepare(history, schemas)
    manager.prepare(history, list(schemas))
    assert counter.tool_counts == 1
    manager.prepare(history, [_schema("add")])
    bigger = [_schema("add"), _schema("a_tool_with_a_much_longer_name")]
    assert manager.route(history, bigger) is Route.FITS
    assert counter.tool_counts == 3
    checking = CountingCounter("gpt-4o-mini")
    plain = ContextManager("gpt-4o-mini", config, counter=checking)
    plain.prepare(history, schemas)
    plain.prepare(history, schemas)
    assert checking.tool_counts == 2


def test_budgets_follow_a_replaced_config() -> None:
    manager = ContextManager(
        "gpt-4o-mini", ContextConfig(max_context_tokens=3000, reserve_output_tokens=0)
    )
    assert manager.budgets is manager.budgets
    before = manager.budgets.trigger
    manager.config = ContextConfig(
        max_context_tokens=3000, reserve_output_tokens=0, target=0.5, trigger=0.8
    )
    assert (manager.budgets.trigger, manager.budgets.target) == (2400, 1500)
    assert before != 2400
