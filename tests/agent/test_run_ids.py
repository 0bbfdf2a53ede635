"""Run ids: unique, UUID-shaped, made without giving the GIL up, fresh in a forked child."""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import pytest
from gil_watch import gil_watcher

from praisonlike import Agent
from praisonlike._runtime.run_ids import new_run_id
from praisonlike.testing import LocalLLMServer, Text


def test_run_ids_are_unique_version_4_uuids() -> None:
    ids = [new_run_id() for _ in range(20_000)]
    assert len(set(ids)) == len(ids)
    for value in ids[:200]:
        parsed = uuid.UUID(hex=value)
        assert parsed.hex == value and parsed.version == 4
        assert parsed.variant == uuid.RFC_4122


def test_each_turn_gets_its_own_run_id(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    agent = Agent(instructions="You chat.", llm=llm)
    server.extend([Text("One."), Text("Two.")])
    agent.chat("a")
    assert agent.last_result is not None
    first = agent.last_result.run_id
    agent.chat("b")
    second = agent.last_result.run_id
    assert first != second
    assert uuid.UUID(hex=first).version == 4


def test_making_run_ids_keeps_the_gil() -> None:
    new_run_id()
    with gil_watcher() as ran:
        for _ in range(5_000):  # uuid4() here lets the watcher in within a few hundred
            new_run_id()
        after_ours = list(ran)
        time.sleep(0.01)  # giving the GIL up lets the waiting thread in: it was waiting
        after_sleep = list(ran)
    assert after_ours == [], "making a run id let another thread run"
    assert after_sleep == ["ran"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_makes_different_ids() -> None:
    new_run_id()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.write(write_end, new_run_id().encode())
        os._exit(0)
    os.close(write_end)
    try:
        parent = new_run_id()
        with os.fdopen(read_end, "rb") as pipe:
            child = pipe.read().decode()
    finally:
        os.waitpid(pid, 0)
    assert len(child) == 32 and child != parent
