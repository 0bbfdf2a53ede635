"""The behaviour every SessionStore must have; runs once per backend in STORE_FACTORIES."""

from __future__ import annotations

import threading

import pytest

from praisonlike.memory import MessageStatus, SessionStore, StepRecord

STATUSES = list(MessageStatus)


def test_store_satisfies_the_protocol(store: SessionStore) -> None:
    assert isinstance(store, SessionStore)


def test_turn_round_trips_with_steps_in_order_and_figures(store, make_turn) -> None:
    turn = make_turn("c1", n_steps=3, model="claude-3", cost=0.125, latency=2.5)
    store.save_turn(turn)

    (loaded,) = store.load_turns("c1")
    assert loaded == turn
    assert [step.position for step in loaded.steps] == [0, 1, 2]
    assert loaded.steps[1].tool_input is not None
    assert loaded.steps[1].tool_input["page"] == 1
    assert loaded.steps[1].tool_input["tags"] == ["a", "b"]
    assert loaded.steps[2].messages is not None
    assert loaded.steps[2].messages[0]["role"] == "user"
    assert [(s.prompt_tokens, s.cost, s.latency) for s in loaded.steps] == [
        (10, 0.001, 0.25),
        (11, 0.002, 0.5),
        (12, 0.003, 0.75),
    ]
    assert (loaded.prompt_tokens, loaded.completion_tokens) == (
        turn.prompt_tokens,
        turn.completion_tokens,
    )
    assert (loaded.cost, loaded.latency, loaded.model) == (0.125, 2.5, "claude-3")
    assert loaded.created_at == turn.created_at
    assert store.get_steps(turn.id) == turn.steps


def test_optional_fields_round_trip_as_none(store, make_turn) -> None:
    bare = StepRecord(position=0, event_type="llm_response")
    turn = make_turn("c1", n_steps=0, cost=None, latency=None, model=None, steps=[bare])
    store.save_turn(turn)
    (loaded,) = store.load_turns("c1")
    assert loaded.cost is None and loaded.latency is None and loaded.model is None
    assert loaded.steps == [bare]
    assert loaded.steps[0].tool_input is None and loaded.steps[0].messages is None


def test_unicode_and_large_text_round_trip(store, make_turn) -> None:
    text = "héllo 世界 🚀 \x00 end " * 5000
    step = StepRecord(
        position=0,
        event_type="tool_result",
        observation=text,
        tool_input={"ключ": text},
        messages=[{"role": "tool", "content": text, "tool_call_id": "x"}],
    )
    turn = make_turn("c1", query=text, answer=text, steps=[step])
    store.save_turn(turn)
    assert store.load_turns("c1") == [turn]


def test_steps_come_back_sorted_by_position(store, make_turn) -> None:
    steps = [StepRecord(position=p, event_type="retry", thought=str(p)) for p in (5, 0, 3)]
    turn = make_turn("c1", steps=steps)
    store.save_turn(turn)
    assert [step.position for step in store.get_steps(turn.id)] == [0, 3, 5]
    assert [step.thought for step in store.get_steps(turn.id)] == ["0", "3", "5"]


def test_turns_load_oldest_first_by_created_at(store, make_turn) -> None:
    turns = [make_turn("c1", created_at=float(t)) for t in (30, 10, 20)]
    for turn in turns:
        store.save_turn(turn)
    assert [t.created_at for t in store.load_turns("c1")] == [10.0, 20.0, 30.0]


def test_turns_with_equal_timestamps_keep_save_order(store, make_turn) -> None:
    turns = [make_turn("c1", created_at=5.0) for _ in range(4)]
    for turn in turns:
        store.save_turn(turn)
    assert [t.id for t in store.load_turns("c1")] == [t.id for t in turns]
    assert [t.id for t in store.load_turns("c1", limit=2)] == [t.id for t in turns[2:]]


def test_conversations_are_isolated(store, make_turn) -> None:
    a, b = make_turn("a"), make_turn("b")
    store.save_turn(a)
    store.save_turn(b)
    assert store.load_turns("a") == [a]
    assert store.load_turns("b") == [b]
    assert store.load_turns("missing") == []


def test_every_status_round_trips(store, make_turn) -> None:
    for status in STATUSES:
        store.save_turn(make_turn("c1", status=status))
    assert [t.status for t in store.load_turns("c1")] == STATUSES


def test_load_turns_filters_by_status_then_keeps_the_last_n(store, make_turn) -> None:
    pattern = [
        MessageStatus.NORMAL,
        MessageStatus.ERROR,
        MessageStatus.NORMAL,
        MessageStatus.CANCELLED,
        MessageStatus.NORMAL,
        MessageStatus.TIMEOUT,
        MessageStatus.GUARDRAIL_BLOCKED,
    ]
    turns = [make_turn("c1", status=status) for status in pattern]
    for turn in turns:
        store.save_turn(turn)
    normal = [t for t in turns if t.status is MessageStatus.NORMAL]

    assert store.load_turns("c1", limit=3) == turns[-3:]
    assert store.load_turns("c1", statuses={MessageStatus.NORMAL}) == normal
    assert store.load_turns("c1", statuses=[MessageStatus.NORMAL], limit=2) == normal[-2:]
    failed = {MessageStatus.ERROR, MessageStatus.TIMEOUT}
    assert store.load_turns("c1", statuses=failed) == [turns[1], turns[5]]
    assert store.load_turns("c1", limit=0) == []
    assert store.load_turns("c1", statuses=()) == []
    assert store.load_turns("c1", limit=100) == turns


def test_saving_a_turn_again_replaces_it_and_its_steps(store, make_turn) -> None:
    first = make_turn("c1", n_steps=5)
    store.save_turn(first)
    replacement = first.model_copy(
        update={
            "answer": "better",
            "status": MessageStatus.ERROR,
            "steps": [StepRecord(position=0, event_type="fallback")],
        }
    )
    store.save_turn(replacement)
    assert store.load_turns("c1") == [replacement]
    assert store.get_steps(first.id) == replacement.steps


def test_get_steps_of_unknown_turn_is_empty(store) -> None:
    assert store.get_steps("no-such-turn") == []


def test_ensure_conversation_creates_then_keeps_existing_fields(store) -> None:
    created = store.ensure_conversation("c1", agent_name="helper", owner="alice")
    assert (created.id, created.agent_name, created.owner, created.summary) == (
        "c1",
        "helper",
        "alice",
        None,
    )
    assert created.created_at <= created.updated_at

    again = store.ensure_conversation("c1", agent_name="other", owner="bob")
    assert again == created
    assert store.get_conversation("c1") == created


def test_ensure_conversation_fills_missing_fields(store, make_turn) -> None:
    store.save_turn(make_turn("c1"))
    assert store.get_conversation("c1").agent_name is None
    filled = store.ensure_conversation("c1", agent_name="helper", owner="alice")
    assert (filled.agent_name, filled.owner) == ("helper", "alice")


def test_save_turn_creates_the_conversation(store, make_turn) -> None:
    assert store.get_conversation("c1") is None
    store.save_turn(make_turn("c1"))
    conversation = store.get_conversation("c1")
    assert conversation is not None
    assert conversation.id == "c1"


def test_summary_get_and_set(store, make_turn) -> None:
    store.save_turn(make_turn("c1"))
    assert store.get_summary("c1") is None
    store.set_summary("c1", "first summary")
    assert store.get_summary("c1") == "first summary"
    store.set_summary("c1", "second summary")
    assert store.get_summary("c1") == "second summary"
    assert store.get_conversation("c1").summary == "second summary"
    assert len(store.load_turns("c1")) == 1


def test_summary_of_unknown_conversation_is_none_and_set_creates_it(store) -> None:
    assert store.get_summary("nobody") is None
    store.set_summary("new", "s")
    assert store.get_summary("new") == "s"
    assert store.get_conversation("new") is not None


def test_list_conversations_newest_updated_first(store, make_turn) -> None:
    for name in ("a", "b", "c"):
        store.ensure_conversation(name)
    store.save_turn(make_turn("a"))
    assert [c.id for c in store.list_conversations()] == ["a", "c", "b"]
    store.set_summary("b", "summary")
    assert [c.id for c in store.list_conversations()] == ["b", "a", "c"]
    assert [c.id for c in store.list_conversations(limit=2)] == ["b", "a"]
    assert store.list_conversations(limit=0) == []


def test_updated_at_advances_with_writes(store, make_turn) -> None:
    created = store.ensure_conversation("c1")
    store.save_turn(make_turn("c1"))
    after = store.get_conversation("c1")
    assert after is not None
    assert after.created_at == created.created_at
    assert after.updated_at >= created.updated_at


def test_get_conversation_missing_is_none(store) -> None:
    assert store.get_conversation("missing") is None


def test_delete_conversation_removes_turns_and_steps(store, make_turn) -> None:
    doomed, kept = make_turn("doomed", n_steps=3), make_turn("kept", n_steps=2)
    store.save_turn(doomed)
    store.save_turn(kept)
    store.set_summary("doomed", "bye")

    store.delete_conversation("doomed")

    assert store.get_conversation("doomed") is None
    assert store.load_turns("doomed") == []
    assert store.get_steps(doomed.id) == []
    assert store.get_summary("doomed") is None
    assert [c.id for c in store.list_conversations()] == ["kept"]
    assert store.load_turns("kept") == [kept]
    store.delete_conversation("doomed")
    store.delete_conversation("never-existed")


def test_deleted_conversation_can_be_reused(store, make_turn) -> None:
    store.save_turn(make_turn("c1"))
    store.delete_conversation("c1")
    fresh = make_turn("c1")
    store.save_turn(fresh)
    assert store.load_turns("c1") == [fresh]


def test_negative_limit_is_rejected(store) -> None:
    with pytest.raises(ValueError):
        store.load_turns("c1", limit=-1)
    with pytest.raises(ValueError):
        store.list_conversations(limit=-1)


def test_concurrent_threads_lose_nothing(store, make_turn) -> None:
    threads_n, per_thread = 8, 50
    conversations = ("conv-0", "conv-1", "conv-2")
    batches = [
        [
            make_turn(conversations[worker % 3], n_steps=(worker + i) % 5 + 1)
            for i in range(per_thread)
        ]
        for worker in range(threads_n)
    ]
    expected = {turn.id: turn for batch in batches for turn in batch}
    errors: list[BaseException] = []
    mismatched: list[str] = []
    done = threading.Event()

    def write(batch: list) -> None:
        try:
            for turn in batch:
                store.save_turn(turn)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    def read() -> None:
        try:
            while not done.is_set():
                for conversation in conversations:
                    mismatched.extend(
                        t.id for t in store.load_turns(conversation) if t != expected[t.id]
                    )
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    writers = [threading.Thread(target=write, args=(batch,)) for batch in batches]
    reader = threading.Thread(target=read)
    reader.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(timeout=120)
    done.set()
    reader.join(timeout=120)

    assert not any(thread.is_alive() for thread in [*writers, reader])
    assert errors == []
    assert mismatched == []
    loaded = [turn for c in conversations for turn in store.load_turns(c)]
    assert len(loaded) == threads_n * per_thread
    assert {turn.id: turn for turn in loaded} == expected
