"""A tool's ``*args`` and ``**kwargs``, offered to and called by a model over HTTP.

``*numbers: float`` is a ``numbers`` array the model fills, spread into the
call; ``**labels: str`` takes the model's other keys, checked against ``str``.
Run under ``chat`` and ``achat`` against the scripted server.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls


def total(unit: str, *numbers: float, **labels: str) -> str:
    """Add numbers up.

    Args:
        unit: The unit of the numbers.
        numbers: The numbers to add.
    """
    named = ",".join(f"{key}={value}" for key, value in sorted(labels.items()))
    return f"{sum(numbers)} {unit} [{named}]"


def run(entry: str, agent: Agent, prompt: str) -> str:
    if entry == "achat":
        return str(asyncio.run(agent.achat(prompt)))
    return str(agent.chat(prompt))


def tool_results(server: LocalLLMServer) -> list[str]:
    return [m["content"] for m in server.requests[-1].messages if m["role"] == "tool"]


@pytest.mark.parametrize("entry", ["chat", "achat"])
def test_the_model_sees_and_fills_var_args_and_var_kwargs(
    entry: str, server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend(
        [
            ToolCalls([Call("total", {"unit": "kg", "numbers": [1.5, 2], "shop": "north"})]),
            Text("3.5 kg"),
        ]
    )
    agent = Agent(instructions="Add things.", llm=llm, tools=[total])

    assert run(entry, agent, "add 1.5 and 2 kg from the north shop") == "3.5 kg"

    offered = server.requests[0].tools[0]["function"]["parameters"]
    assert offered["properties"]["numbers"] == {
        "items": {"type": "number"},
        "type": "array",
        "description": "The numbers to add.",
    }
    assert offered["required"] == ["unit"]
    assert offered["additionalProperties"] == {"type": "string"}
    assert tool_results(server) == ["3.5 kg [shop=north]"]


def test_a_wrongly_typed_extra_key_goes_back_to_the_model_to_fix(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend(
        [
            ToolCalls([Call("total", {"unit": "kg", "numbers": [1], "shop": 7})]),
            ToolCalls([Call("total", {"unit": "kg", "numbers": [1], "shop": "7"})]),
            Text("1 kg"),
        ]
    )
    agent = Agent(instructions="Add things.", llm=llm, tools=[total])

    assert agent.chat("add 1 kg") == "1 kg"

    first, second = tool_results(server)
    assert "shop: Input should be a valid string (got 7)" in first
    assert second == "1.0 kg [shop=7]"
