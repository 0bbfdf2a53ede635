"""How one turn is timed: (wall, CPU) after the process has gone quiet.

Standard library only (and :mod:`served`), so that the PraisonAI worker
(``praisonai_worker.py``, run by another virtual environment's interpreter)
times its turns exactly as the praisonlike side does.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from served import ANSWER

Sample = tuple[float, float]
"""(wall seconds, CPU seconds of this process) of one turn."""

SETTLE_QUANTUM = 0.002
SETTLE_LIMIT = 0.5


def check_answer(answer: str) -> None:
    if answer != ANSWER:
        raise RuntimeError(f"unexpected answer {answer!r}")


def settle() -> None:
    """Wait until this process stops using CPU (at most ``SETTLE_LIMIT`` seconds).

    LiteLLM finishes each call's logging on a background thread after the call
    returns (about 1 ms of CPU per call here, 4 ms with an 800-message
    history). Without this wait that work would be charged to whatever is
    measured next.
    """
    deadline = time.perf_counter() + SETTLE_LIMIT
    while time.perf_counter() < deadline:
        before = time.process_time()
        time.sleep(SETTLE_QUANTUM)
        if _quiet_since(before):
            return


async def asettle() -> None:
    """:func:`settle` with the event loop running, so the tasks a turn left behind finish.

    LiteLLM's async calls leave their logging to tasks on the caller's loop
    (and keep one worker task alive for good, so waiting for every task would
    never end); those tasks only run while the loop does. Without this they
    would run, and be timed, inside whichever async turn comes next.
    """
    deadline = time.perf_counter() + SETTLE_LIMIT
    while time.perf_counter() < deadline:
        before = time.process_time()
        await asyncio.sleep(SETTLE_QUANTUM)
        if _quiet_since(before):
            return


def _quiet_since(before: float) -> bool:
    """Whether the process used almost no CPU since ``before`` (a ``process_time()``)."""
    return time.process_time() - before < SETTLE_QUANTUM / 20


def timed(turn: Callable[[], str]) -> Sample:
    """(wall, CPU) of ``turn()``; the CPU figure includes the background work it left."""
    settle()
    wall, cpu = time.perf_counter(), time.process_time()
    answer = turn()
    elapsed = time.perf_counter() - wall
    settle()
    sample = elapsed, time.process_time() - cpu
    check_answer(answer)
    return sample


def timed_async(loop: asyncio.AbstractEventLoop, turn: Callable[[], Awaitable[str]]) -> Sample:
    """:func:`timed` for a coroutine, run on ``loop`` (settled with the loop running)."""

    async def measure() -> tuple[float, float, str]:
        wall, cpu = time.perf_counter(), time.process_time()
        answer = await turn()
        return time.perf_counter() - wall, cpu, answer

    loop.run_until_complete(asettle())
    elapsed, cpu, answer = loop.run_until_complete(measure())
    loop.run_until_complete(asettle())
    check_answer(answer)
    return elapsed, time.process_time() - cpu
