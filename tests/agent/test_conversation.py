"""Conversation alone (no Agent): history, steering, summary and last result under one lock,
and the one-turn-at-a-time rule."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from praisonlike._runtime.cancellation import CancelToken
from praisonlike.agent.conversation import Conversation
from praisonlike.errors import ConcurrentTurnError
from praisonlike.result import RunResult
from praisonlike.run_enums import TerminationReason


def result(run_id: str = "r1") -> RunResult:
    return RunResult(output="ok", run_id=run_id, termination_reason=TerminationReason.COMPLETED)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def test_a_succeeded_turn_commits_its_messages_and_result() -> None:
    conversation = Conversation()
    cancel = CancelToken()
    conversation.start_turn(cancel)
    assert conversation.running() == [cancel]
    done = result()
    conversation.close_turn(cancel, done, [user("hi"), {"role": "assistant", "content": "ok"}])
    assert [m["content"] for m in conversation.history()] == ["hi", "ok"]
    assert conversation.last_result is done
    assert conversation.running() == []


def test_a_failed_turn_keeps_history_and_requeues_its_steering_first() -> None:
    conversation = Conversation()
    conversation.start_from([user("before")])
    conversation.steer("a")
    conversation.steer("b")
    cancel = CancelToken()
    conversation.start_turn(cancel)
    taken = conversation.drain_steering()
    assert taken == ["a", "b"] and conversation.pending_steering() == []
    conversation.steer("c")
    failed = result("r2")
    conversation.close_turn(cancel, failed, None, taken)
    assert conversation.pending_steering() == ["a", "b", "c"]
    assert [m["content"] for m in conversation.history()] == ["before"]
    assert conversation.last_result is failed


def test_an_abandoned_turn_changes_nothing_but_the_running_set() -> None:
    conversation = Conversation()
    cancel = CancelToken()
    conversation.start_turn(cancel)
    conversation.abandon_turn(cancel)
    assert conversation.running() == [] and conversation.history() == []
    assert conversation.last_result is None


def test_history_copies_do_not_reach_the_stored_messages() -> None:
    conversation = Conversation()
    conversation.start_from([user("x")])
    copy = conversation.history()
    copy[0]["content"] = "changed"
    copy.append(user("more"))
    for_turn = conversation.history_for_turn()
    for_turn.append(user("more"))
    assert [m["content"] for m in conversation.history()] == ["x"]


def test_start_from_only_fills_an_empty_history_and_clear_empties_it() -> None:
    conversation = Conversation()
    assert conversation.start_from([user("a")])
    assert not conversation.start_from([user("b")])
    conversation.clear()
    assert conversation.history() == []


def test_save_and_load_round_trip_at_one_instant() -> None:
    conversation = Conversation()
    conversation.load([user("a")], "the summary", ["s1"])
    saved = conversation.save()
    assert saved == {
        "history": [user("a")],
        "summary": "the summary",
        "pending_steering": ["s1"],
    }
    saved["history"][0]["content"] = "changed"
    other = Conversation()
    other.load(**conversation.save())
    assert other.summary == "the summary" and other.pending_steering() == ["s1"]
    assert other.history() == [user("a")]
    other.set_summary(None)
    assert other.summary is None


def test_turns_wait_for_each_other_in_order() -> None:
    conversation = Conversation()
    order: list[str] = []
    entered = threading.Event()
    release = threading.Event()

    def first() -> None:
        with conversation.turn():
            order.append("first in")
            entered.set()
            release.wait(10)
            order.append("first out")

    def second() -> None:
        entered.wait(10)
        with conversation.turn():
            order.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    entered.wait(10)
    release.set()
    for thread in threads:
        thread.join(10)
    assert order == ["first in", "first out", "second in"]


def test_a_turn_from_inside_the_running_turn_is_refused() -> None:
    conversation = Conversation()
    with conversation.turn(), pytest.raises(ConcurrentTurnError), conversation.turn():
        pass
    with conversation.turn():  # released after the refusal
        pass


def test_a_task_waits_without_blocking_its_loop() -> None:
    conversation = Conversation()

    async def main() -> list[str]:
        order: list[str] = []

        async def turn(label: str) -> None:
            async with conversation.aturn():
                order.append(f"{label} in")
                await asyncio.sleep(0)
                order.append(f"{label} out")

        await asyncio.gather(turn("a"), turn("b"))
        return order

    assert asyncio.run(main()) == ["a in", "a out", "b in", "b out"]
