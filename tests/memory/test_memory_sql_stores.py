"""What SQLiteStore and PostgresStore share through SQLStore, run against every dialect.

Each test runs once per entry of STORE_FACTORIES (SQLite file, SQLite in
memory, PostgreSQL); before the shared layer these were checked for one
database only, or not at all.
"""

from __future__ import annotations

import os
import sqlite3

import pytest

from praisonlike.memory import StepRecord


def _database_errors() -> tuple[type[BaseException], ...]:
    errors: tuple[type[BaseException], ...] = (sqlite3.Error, OverflowError)
    try:
        import psycopg
    except ImportError:
        return errors
    return (*errors, psycopg.Error)


def test_load_turns_without_steps_in_every_store(store, make_turn) -> None:
    turn = make_turn("c", n_steps=3)
    store.save_turn(turn)
    (light,) = store.load_turns("c", include_steps=False)
    assert light == turn.model_copy(update={"steps": []})
    assert store.load_turns("c") == [turn]


def test_a_save_failing_midway_leaves_nothing_and_the_store_keeps_working(store, make_turn) -> None:
    earlier = make_turn("c")
    store.save_turn(earlier)
    steps = [StepRecord(position=p, event_type="tool_call") for p in range(2)]
    too_large = StepRecord(position=2, event_type="tool_result", prompt_tokens=2**70)
    doomed = make_turn("c", steps=[*steps, too_large])  # the database refuses the third step

    with pytest.raises(_database_errors()):
        store.save_turn(doomed)

    assert store.load_turns("c") == [earlier]
    assert store.get_steps(doomed.id) == []
    fixed = doomed.model_copy(update={"steps": steps})
    store.save_turn(fixed)
    assert store.load_turns("c") == [earlier, fixed]


def test_close_then_the_next_call_opens_again(store, make_turn) -> None:
    store.ensure_conversation("before")
    store.close()
    store.close()
    turn = make_turn("after")
    store.save_turn(turn)
    assert store.load_turns("after") == [turn]
    assert store.get_conversation("after") is not None


def test_text_that_looks_escaped_round_trips(store, make_turn) -> None:
    marker_like = '\x01praisonlike-json:"not escaped"'
    turn = make_turn("c", query=marker_like, answer="nul \x00 inside", model=marker_like)
    store.save_turn(turn)
    store.ensure_conversation("c", agent_name=marker_like, owner="o\x00wner")
    store.set_summary("c", marker_like)
    assert store.load_turns("c") == [turn]
    conversation = store.get_conversation("c")
    assert conversation is not None
    assert (conversation.agent_name, conversation.owner) == (marker_like, "o\x00wner")
    assert store.get_summary("c") == marker_like


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_a_forked_child_opens_its_own_connection_and_leaves_the_parents_alone(
    store, make_turn, request: pytest.FixtureRequest
) -> None:
    if request.node.callspec.params["store"] == "sqlite-memory":
        pytest.skip("a private in-memory database is not shared with a child process")
    before = make_turn("c")
    store.save_turn(before)  # the parent's connection is open when it forks
    from_child = make_turn("c")

    pid = os.fork()
    if pid == 0:  # the child: write through the inherited store object, then exit
        code = 1
        try:
            store.save_turn(from_child)
            store.close()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)

    assert os.waitstatus_to_exitcode(status) == 0
    assert store.load_turns("c") == [before, from_child]  # the parent's connection still works
