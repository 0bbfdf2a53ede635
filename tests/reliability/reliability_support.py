"""Shared by the reliability suite: run sizes, turns under a deadline, a session store.

``PRAISONLIKE_SLOW_TESTS=1`` selects the full sizes (the numbers in
docs/reliability.md); without it every test runs its reduced CI size.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.events import RunFinished
from praisonlike.memory import MessageStatus, SQLiteStore, TurnRecord
from praisonlike.testing import Delay, DropConnection, Fault, MalformedBody, Text
from praisonlike.testing.script import Response

SLOW = os.environ.get("PRAISONLIKE_SLOW_TESTS") == "1"
WAYS = ("chat", "achat", "iter_stream", "stream_events")
CALL_DEADLINE = 60.0
"""Seconds a single turn may take before the test calls it a hang (generous on purpose)."""

SESSION = "reliability-session"
FIRST_QUESTION = "first question"
FIRST_ANSWER = "first answer"
PRICES = {"test-model": {"input": 1.0, "output": 2.0}, "other-model": {"input": 3.0, "output": 5.0}}

FAULTS: dict[str, Response] = {
    "rate_limit": Fault.rate_limit(),
    "rate_limit_retry_after": Fault.rate_limit(retry_after=0.05),
    "server_error": Fault.server_error(),
    "unavailable": Fault.unavailable(),
    "authentication": Fault.authentication(),
    "model_not_found": Fault.model_not_found(),
    "context_length_exceeded": Fault.context_length_exceeded(),
    "bad_request": Fault.bad_request("unsupported parameter: frobnicate"),
    "delay_past_timeout": Delay(30, Text("too late")),
    "drop_connection": DropConnection(),
    "malformed_body": MalformedBody(),
}
"""Every fault LocalLLMServer can inject, by name."""
SLOW_CALL_TIMEOUT = 0.5
"""The client timeout that ``delay_past_timeout`` (a 30 s delay) runs into."""


def call_timeout(fault_id: str) -> float | None:
    """The ``ExecutionConfig.timeout`` a fault needs (only the delay needs one)."""
    return SLOW_CALL_TIMEOUT if isinstance(FAULTS.get(fault_id), Delay) else None


def sized(ci: int, slow: int) -> int:
    """``slow`` under PRAISONLIKE_SLOW_TESTS=1, else ``ci``."""
    return slow if SLOW else ci


@dataclass
class TurnRun:
    """What one turn through one entry point gave: an answer or a raised error, and events."""

    answer: Any = None
    error: BaseException | None = None
    events: list[Any] = field(default_factory=list)
    seconds: float = 0.0


def _drive(
    agent: Agent, way: str, prompt: str, run: TurnRun, deadline: float, options: dict[str, Any]
) -> None:
    if way == "chat":
        run.answer = agent.chat(prompt, **options)
    elif way == "achat":
        run.answer = asyncio.run(asyncio.wait_for(agent.achat(prompt, **options), deadline))
    elif way == "iter_stream":
        run.answer = "".join(agent.iter_stream(prompt, **options))
    elif way == "stream_events":
        for event in agent.stream_events(prompt, **options):
            run.events.append(event)
        finished = run.events[-1]
        assert isinstance(finished, RunFinished) and finished.result is not None
        run.answer = finished.result.output
    else:
        raise AssertionError(f"unknown entry point {way!r}")


def run_turn(
    agent: Agent, way: str, prompt: str, *, deadline: float = CALL_DEADLINE, **options: Any
) -> TurnRun:
    """Run one turn on a worker thread; fail the test if it is still running at ``deadline``.

    ``options`` (``tools=``, ...) go to the entry point. Any exception the turn
    raises is returned in ``error``, not raised.
    """
    run = TurnRun()

    def target() -> None:
        started = time.monotonic()
        try:
            _drive(agent, way, prompt, run, deadline, options)
        except BaseException as exc:
            run.error = exc
        finally:
            run.seconds = time.monotonic() - started

    worker = threading.Thread(target=target, name=f"turn-{way}", daemon=True)
    worker.start()
    worker.join(deadline)
    if worker.is_alive():
        agent.cancel("the test's deadline passed")
        pytest.fail(f"{way} did not return within {deadline}s")
    return run


def seed_session(path: Path, session_id: str = SESSION) -> list[dict[str, Any]]:
    """Store one answered turn; return the history an agent of the session starts from."""
    with SQLiteStore(path) as store:
        store.save_turn(
            TurnRecord(
                id="seed-turn",
                conversation_id=session_id,
                query=FIRST_QUESTION,
                answer=FIRST_ANSWER,
                status=MessageStatus.NORMAL,
                created_at=time.time() - 60,
            )
        )
    return [
        {"role": "user", "content": FIRST_QUESTION},
        {"role": "assistant", "content": FIRST_ANSWER},
    ]


def stored_turns(path: Path, session_id: str = SESSION) -> list[TurnRecord]:
    with SQLiteStore(path) as store:
        return store.load_turns(session_id)


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


class CallLog:
    """A list of ``(tool, arguments)`` the recording tools append to, thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: list[tuple[str, dict[str, Any]]] = []

    def record(self, name: str, **arguments: Any) -> None:
        with self._lock:
            self._calls.append((name, arguments))

    @property
    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        with self._lock:
            return list(self._calls)

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


def recording_tools(log: CallLog) -> list[Callable[..., Any]]:
    """``echo(text)`` and ``add(a, b)`` that record every call they receive in ``log``."""

    def echo(text: str) -> str:
        """Repeat the text.

        Args:
            text: What to repeat.
        """
        log.record("echo", text=text)
        return text

    def add(a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: The first number.
            b: The second number.
        """
        log.record("add", a=a, b=b)
        return a + b

    return [echo, add]
