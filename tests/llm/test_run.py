"""One Run between the entry points and the loop: few frames, every event observed once."""

from __future__ import annotations

import asyncio
import inspect
import sys
from types import FrameType
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.testing import Call, FunctionModel, ModelInfo, Text, ToolCalls

GENERATORS = inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR | inspect.CO_COROUTINE


def add(a: int, b: int) -> int:
    """Add."""
    return a + b


def answer(messages: list[dict[str, Any]], info: ModelInfo) -> Any:
    if not any(m.get("role") == "tool" for m in messages):
        return ToolCalls([Call("add", {"a": 1, "b": 2})])
    return Text("3")


def run_turn(agent: Agent, entry: str) -> Any:
    return agent.chat("go") if entry == "chat" else asyncio.run(agent.achat("go"))


def frames_to_entry(frame: FrameType | None, entry: str) -> list[str]:
    """The generator frames between ``frame`` and the entry point's own frame."""
    names: list[str] = []
    while frame is not None and frame.f_code.co_name != entry:
        if frame.f_code.co_flags & GENERATORS:
            names.append(frame.f_code.co_name)
        frame = frame.f_back
    assert frame is not None, f"{entry}() is not on the stack"
    return names


@pytest.mark.parametrize("entry", ["chat", "achat"])
def test_an_event_climbs_few_generator_frames_from_the_loop_to_the_entry_point(
    entry: str,
) -> None:
    """Was 7 frames under chat (loop 3, driver, iterate_sync, dispatcher, turn), 6 under achat."""
    chains: list[list[str]] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_code.co_name != "__init__" or chains:
            return
        if type(frame.f_locals.get("self")).__name__ == "ToolResultEvent":
            chains.append(frames_to_entry(frame.f_back, entry))

    seen: list[Any] = []  # an observer: chat and achat build events only for one
    agent = Agent(instructions="x", llm=FunctionModel(answer), tools=[add], on_event=seen.append)
    sys.setprofile(profile)
    try:
        output = run_turn(agent, entry)
    finally:
        sys.setprofile(None)

    assert output == "3"
    assert "tool_result" in [event.type for event in seen]
    assert len(chains) == 1
    chain = chains[0]
    assert chain[:2] == ["_tool_round", "steps"]  # the loop's own frames
    assert len(chain) <= 4, chain


@pytest.mark.parametrize("entry", ["chat", "achat"])
def test_a_turn_nobody_watches_builds_no_events_and_ends_the_same(entry: str) -> None:
    """chat and achat without an observer build no event at all (they would be thrown
    away); the answer, the history and the result are those of a watched turn."""
    built: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name == "__init__":
            made = frame.f_locals.get("self")
            if type(made).__module__ == "praisonlike.events":
                built.append(type(made).__name__)

    unwatched = Agent(instructions="x", llm=FunctionModel(answer), tools=[add])
    seen: list[Any] = []
    watched = Agent(instructions="x", llm=FunctionModel(answer), tools=[add], on_event=seen.append)
    sys.setprofile(profile)
    try:
        quiet_output = run_turn(unwatched, entry)
    finally:
        sys.setprofile(None)
    output = run_turn(watched, entry)

    assert built == []
    assert [e.type for e in seen] == [
        "run_started",
        "llm_request",
        "llm_response",
        "tool_call",
        "tool_result",
        "llm_request",
        "llm_response",
        "run_finished",
    ]
    assert quiet_output == output == "3"
    assert unwatched.chat_history == watched.chat_history
    quiet, loud = unwatched.last_result, watched.last_result
    assert quiet is not None and loud is not None
    assert quiet.usage == loud.usage
    assert [c.result for c in quiet.tool_calls] == [c.result for c in loud.tool_calls] == ["3"]
    assert quiet.iterations == loud.iterations
    assert quiet.termination_reason == loud.termination_reason
