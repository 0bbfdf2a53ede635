"""Crash safety: agent processes SIGKILLed at random points of a turn, one after another,
on one SQLite session.

Each kill lands on a randomly chosen event of one of the child's first turns
(the turn's start, a model request or response, a tool call or result, the end
of the run, just after the turn was saved), after a random few milliseconds.
After every kill the store must pass ``PRAGMA integrity_check`` and hold only
whole turns, numbered without gaps; the next process resumes the session. At
the end every turn's first request carried the previous turn from the store,
and a new Agent on the session answers with the stored history.

15 kills in CI (``PRAISONLIKE_CRASH_KILLS`` overrides), 50 under
PRAISONLIKE_SLOW_TESTS=1.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from reliability_support import sized

from praisonlike import Agent, MemoryConfig
from praisonlike.memory import SQLiteStore
from praisonlike.testing import Call, LocalLLMServer, RecordedRequest, Text, ToolCalls
from praisonlike.testing.script import Response

WORKER = Path(__file__).with_name("crash_worker.py")
KILLS = int(os.environ.get("PRAISONLIKE_CRASH_KILLS") or sized(15, 50))
SESSION = "crash-session"
KILL_POINTS = (
    "turn",
    "run_started",
    "llm_request",
    "tool_call",
    "tool_result",
    "llm_response",
    "text_delta",
    "run_finished",
    "saved",
)
WHOLE_TURN_STEPS = [
    (0, "llm_response"),
    (1, "tool_call"),
    (2, "tool_result"),
    (3, "llm_response"),
]
WAIT = 60.0


def question_of(request: RecordedRequest) -> str:
    return next(m["content"] for m in reversed(request.messages) if m["role"] == "user")


def answer(request: RecordedRequest) -> Response:
    """A tool round for a question, then the answer naming it, streamed slowly."""
    if request.messages[-1]["role"] == "user":
        return ToolCalls([Call("add", {"a": 2, "b": 3})])
    return Text(f"answer to {question_of(request)}", chunk_size=3, chunk_delay=0.003)


class Forker:
    """The crash_worker.py process that forks the agent processes to kill."""

    def __init__(self, log: IO[str]) -> None:
        self._process = subprocess.Popen(
            [sys.executable, str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )

    def _ask(self, command: dict[str, Any]) -> str:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(command) + "\n")
        self._process.stdin.flush()
        reply = self._process.stdout.readline().strip()
        assert reply, "crash_worker.py ended; see its log"
        return reply

    def fork(self, **arguments: str) -> int:
        return int(self._ask({"fork": arguments}))

    def reap(self, pid: int) -> None:
        assert self._ask({"reap": pid}) == "reaped"

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


@pytest.fixture
def forker(tmp_path: Path) -> Iterator[Forker]:
    with open(tmp_path / "worker.log", "w") as log:
        running = Forker(log)
        yield running
        running.close()


def wait_for_marker(markers: Path, point: str, turn: int, pid: int) -> None:
    """Block until the child has written ``point`` during its ``turn``-th turn (0-based)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        lines = markers.read_text().splitlines() if markers.exists() else []
        starts = [n for n, line in enumerate(lines) if line.startswith("turn ")]
        if len(starts) > turn:
            end = starts[turn + 1] if len(starts) > turn + 1 else len(lines)
            if any(line.split(" ")[0] == point for line in lines[starts[turn] : end]):
                return
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            pytest.fail(f"the agent process died on its own; markers: {lines[-5:]}")
        time.sleep(0.001)
    pytest.fail(f"no {point!r} marker in turn {turn} within {WAIT}s")


def check_store(path: Path) -> list[tuple[str, str]]:
    """The stored (query, answer) pairs, after checking the file holds only whole turns."""
    connection = sqlite3.connect(path)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
        turns = connection.execute(
            "SELECT id, query, answer, status FROM messages WHERE conversation_id = ? "
            "ORDER BY created_at, rowid",
            (SESSION,),
        ).fetchall()
        orphans = connection.execute(
            "SELECT COUNT(*) FROM message_steps WHERE message_id NOT IN (SELECT id FROM messages)"
        ).fetchone()
        assert orphans == (0,)
        for number, (turn_id, query, text, status) in enumerate(turns):
            assert (query, text, status) == (
                f"question {number}",
                f"answer to question {number}",
                "normal",
            )
            steps = connection.execute(
                "SELECT position, event_type FROM message_steps WHERE message_id = ? "
                "ORDER BY position",
                (turn_id,),
            ).fetchall()
            assert steps == WHOLE_TURN_STEPS, (number, steps)
    finally:
        connection.close()
    return [(query, text) for _, query, text, _ in turns]


def test_sigkill_at_random_points_leaves_whole_turns(
    server: LocalLLMServer, forker: Forker, tmp_path: Path
) -> None:
    server.default = answer
    store = tmp_path / "sessions.db"
    rng = random.Random(20240501)
    stored: list[tuple[str, str]] = []
    lost = 0
    for kill in range(KILLS):
        markers = tmp_path / f"markers-{kill}.log"
        pid = forker.fork(
            api_base=server.url, store=str(store), session=SESSION, markers=str(markers)
        )
        point, turn = rng.choice(KILL_POINTS), rng.randint(0, 2)
        if point == "text_delta" and (len(stored) + turn) % 2 == 0:
            turn += 1  # only odd-numbered turns stream
        wait_for_marker(markers, point, turn, pid)
        time.sleep(rng.uniform(0, 0.02))
        os.kill(pid, signal.SIGKILL)
        forker.reap(pid)

        now = check_store(store)
        assert now[: len(stored)] == stored
        lines = markers.read_text().splitlines()
        started = sum(line.startswith("turn ") for line in lines)
        saved = lines.count("saved")
        assert saved <= len(now) - len(stored) <= started
        lost += started - (len(now) - len(stored))
        stored = now
    assert len(stored) >= KILLS
    print(f"{KILLS} kills, {len(stored)} turns stored, {lost} interrupted turns left no trace")

    for request in server.requests:
        number = int(question_of(request).removeprefix("question "))
        if number and request.messages[-1]["role"] == "user":
            assert {"role": "user", "content": f"question {number - 1}"} in request.messages
            previous = {"role": "assistant", "content": f"answer to question {number - 1}"}
            assert previous in request.messages

    resumed = Agent(
        instructions="You add numbers.",
        llm=server.llm_config(),
        session_id=SESSION,
        memory=MemoryConfig(store=str(store), long_term=False, history_rounds=3),
    )
    server.default = Text("resumed")
    assert resumed.chat("where were we?") == "resumed"
    resumed.close()
    sent = server.requests[-1].messages
    for query, text in stored[-3:]:
        assert {"role": "user", "content": query} in sent
        assert {"role": "assistant", "content": text} in sent
    with SQLiteStore(store) as reopened:
        last = reopened.load_turns(SESSION)[-1]
    assert (last.query, last.answer) == ("where were we?", "resumed")
