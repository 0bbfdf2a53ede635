"""A sync tool that returns a lazy iterator (a generator object, ``map``, ...): the
model sees its items as JSON, read in the tool's own thread and time limit."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

import pytest

from praisonlike import Agent, ExecutionConfig
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls
from praisonlike.tools.python_tool import MAX_ITEMS_READ


def squares(n: int) -> Iterator[int]:
    """The first n squares."""
    return (i * i for i in range(n))


def doubled(n: int) -> Iterator[int]:
    """The first n even numbers."""
    return map(lambda i: 2 * i, range(n))


def counting(n: int) -> Iterator[int]:
    """Counts without end."""
    return itertools.count(n)


def broken(n: int) -> Iterator[int]:
    """Fails while its items are read."""
    return (1 // (i - 2) for i in range(n))


def _tool_result(server: LocalLLMServer) -> str:
    tool_messages = [m for m in server.requests[1].messages if m.get("role") == "tool"]
    return str(tool_messages[0]["content"])


@pytest.mark.parametrize("entry", ["chat", "achat"])
@pytest.mark.parametrize(
    ("function", "expected"), [(squares, [0, 1, 4, 9]), (doubled, [0, 2, 4, 6])]
)
def test_the_model_sees_the_items_of_a_returned_iterator(
    server: LocalLLMServer, entry: str, function: object, expected: list[int]
) -> None:
    server.add(ToolCalls([Call(function.__name__, {"n": 4})]), Text("done"))  # type: ignore[attr-defined]
    agent = Agent(instructions="Use the tool.", llm=server.llm_config(), tools=[function])

    if entry == "chat":
        assert agent.chat("go") == "done"
    else:
        import asyncio

        assert asyncio.run(agent.achat("go")) == "done"

    assert json.loads(_tool_result(server)) == expected
    assert agent.last_result is not None
    assert json.loads(agent.last_result.tool_calls[0].result) == expected


def test_an_endless_iterator_is_read_to_a_bound_and_says_so(server: LocalLLMServer) -> None:
    server.add(ToolCalls([Call("counting", {"n": 0})]), Text("done"))
    agent = Agent(instructions="Use the tool.", llm=server.llm_config(), tools=[counting])

    assert agent.chat("go") == "done"

    record = agent.last_result.tool_calls[0]  # type: ignore[union-attr]
    assert not record.is_error
    assert f"stopped reading the tool's items after {MAX_ITEMS_READ}" in _tool_result(server)
    assert _tool_result(server).startswith("[0, 1, 2, ")


def test_an_error_while_the_items_are_read_is_the_tools_error(server: LocalLLMServer) -> None:
    server.add(ToolCalls([Call("broken", {"n": 4})]), Text("done"))
    agent = Agent(
        instructions="Use the tool.",
        llm=server.llm_config(),
        tools=[broken],
        execution=ExecutionConfig(tool_timeout=30),
    )

    assert agent.chat("go") == "done"

    record = agent.last_result.tool_calls[0]  # type: ignore[union-attr]
    assert record.is_error
    assert "ZeroDivisionError" in record.result
