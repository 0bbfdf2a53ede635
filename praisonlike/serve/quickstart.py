"""The agent ``praisonlike serve --model MODEL`` serves: the quickstart's weather agent."""

from __future__ import annotations

from typing import Any, Literal

from praisonlike.agent.agent import Agent


def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Current weather for a city.

    Args:
        city: City name.
        unit: Temperature unit.
    """
    return f"{city}: sunny, 26{unit}"


def quickstart_agent(llm: Any) -> Agent:
    """The weather assistant of examples/quickstart.py on ``llm`` (a model string or dict)."""
    return Agent(
        name="quickstart",
        instructions="You are a weather assistant. Use the tools.",
        tools=[get_weather],
        llm=llm,
    )
