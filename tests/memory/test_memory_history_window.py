"""history_window: which turns make up a session's starting history."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from praisonlike.errors import ConfigurationError, ConfigurationTypeError
from praisonlike.memory import (
    MemoryConfig,
    MessageStatus,
    TurnRecord,
    estimate_tokens,
    history_window,
)


def turn(index: int, answer: str | None = None, status=MessageStatus.NORMAL) -> TurnRecord:
    return TurnRecord(
        id=f"t{index}",
        conversation_id="c",
        query=f"q{index}",
        answer=f"a{index}" if answer is None else answer,
        status=status,
        created_at=float(index),
    )


def pairs(*indexes: int) -> list[dict[str, str]]:
    return [
        message
        for i in indexes
        for message in (
            {"role": "user", "content": f"q{i}"},
            {"role": "assistant", "content": f"a{i}"},
        )
    ]


def test_turns_become_user_assistant_pairs_oldest_first() -> None:
    assert history_window([turn(1), turn(2)]) == pairs(1, 2)


def test_empty_answers_and_failed_turns_are_left_out() -> None:
    turns = [
        turn(1),
        turn(2, answer=""),
        turn(3, answer="   \n"),
        turn(4, status=MessageStatus.ERROR),
        turn(5, status=MessageStatus.CANCELLED),
        turn(6, status=MessageStatus.TIMEOUT),
        turn(7, status=MessageStatus.GUARDRAIL_BLOCKED),
        turn(8),
    ]
    assert history_window(turns) == pairs(1, 8)


def test_only_the_last_rounds_are_kept() -> None:
    turns = [turn(i) for i in range(15)]
    assert history_window(turns) == pairs(*range(5, 15))
    assert history_window(turns, rounds=3) == pairs(12, 13, 14)
    assert history_window(turns, rounds=0) == []


def test_rounds_count_usable_turns_only() -> None:
    turns = [turn(1), turn(2), turn(3, status=MessageStatus.ERROR), turn(4, answer="")]
    assert history_window(turns, rounds=2) == pairs(1, 2)


def test_token_budget_drops_the_oldest_pairs() -> None:
    turns = [turn(i) for i in range(5)]
    ten_each = lambda message: 10  # noqa: E731
    assert history_window(turns, max_tokens=45, count_tokens=ten_each) == pairs(3, 4)
    assert history_window(turns, max_tokens=40, count_tokens=ten_each) == pairs(3, 4)
    assert history_window(turns, max_tokens=1000, count_tokens=ten_each) == pairs(*range(5))


def test_nothing_fits_gives_an_empty_history() -> None:
    turns = [turn(1), turn(2, answer="a very long answer " * 100)]
    assert history_window(turns, max_tokens=10) == []
    assert history_window(turns, max_tokens=0) == []
    assert history_window([], max_tokens=100) == []


def test_a_large_newest_pair_is_not_skipped_to_fit_older_ones() -> None:
    turns = [turn(1), turn(2, answer="x" * 400)]
    assert history_window(turns, max_tokens=50) == []


def test_default_estimate_is_a_quarter_of_the_length() -> None:
    assert estimate_tokens({"role": "user", "content": "x" * 40}) == 10
    assert estimate_tokens({"role": "user", "content": "x" * 41}) == 11
    assert estimate_tokens({"role": "user", "content": ""}) == 0
    assert estimate_tokens({"role": "user", "content": None}) == 0
    long_answer = [turn(1, answer="y" * 400)]
    assert history_window(long_answer, max_tokens=100) == []
    assert len(history_window(long_answer, max_tokens=101)) == 2


def test_negative_limits_are_rejected() -> None:
    with pytest.raises(ConfigurationError):
        history_window([], rounds=-1)
    with pytest.raises(ConfigurationError):
        history_window([], max_tokens=-1)


turn_strategy = st.builds(
    lambda answer, status: (answer, status),
    st.sampled_from(["", " ", "ok", "a longer answer here"]),
    st.sampled_from(list(MessageStatus)),
)


@given(
    specs=st.lists(turn_strategy, max_size=30),
    rounds=st.integers(min_value=0, max_value=12),
    max_tokens=st.one_of(st.none(), st.integers(min_value=0, max_value=80)),
)
def test_window_invariants(specs, rounds, max_tokens) -> None:
    turns = [turn(i, answer, status) for i, (answer, status) in enumerate(specs)]
    window = history_window(turns, rounds=rounds, max_tokens=max_tokens)

    usable = [t for t in turns if t.status is MessageStatus.NORMAL and t.answer.strip()]
    assert len(window) % 2 == 0
    assert [m["role"] for m in window] == ["user", "assistant"] * (len(window) // 2)
    kept = len(window) // 2
    assert kept <= rounds
    assert window == [
        message
        for t in (usable[len(usable) - kept :] if kept else [])
        for message in (
            {"role": "user", "content": t.query},
            {"role": "assistant", "content": t.answer},
        )
    ]
    if max_tokens is not None:
        assert sum(estimate_tokens(m) for m in window) <= max_tokens
    if kept < min(rounds, len(usable)):
        assert max_tokens is not None
        older = usable[len(usable) - kept - 1]
        extra = estimate_tokens({"content": older.query}) + estimate_tokens(
            {"content": older.answer}
        )
        assert sum(estimate_tokens(m) for m in window) + extra > max_tokens


@pytest.mark.parametrize(
    ("settings", "names"),
    [
        ({"history_rounds": "3"}, "history_rounds"),
        ({"history_rounds": 1.5}, "history_rounds"),
        ({"history_tokens": "100"}, "history_tokens"),
        ({"long_term": "no"}, "long_term"),  # was taken as true: summary calls still ran
        ({"owner": 7}, "owner"),
    ],
)
def test_a_memory_setting_of_the_wrong_kind_is_refused_when_built(
    settings: dict[str, object], names: str
) -> None:
    with pytest.raises(ConfigurationTypeError, match=f"MemoryConfig.{names}"):
        MemoryConfig(**settings)  # type: ignore[arg-type]
