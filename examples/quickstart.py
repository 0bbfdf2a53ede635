"""Quickstart: an agent with one tool.

Runs on a real provider when a key is set (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...
or PRAISONLIKE_MODEL), otherwise on the bundled local model (praisonlike[local],
offline), otherwise against the scripted LocalLLMServer -- and says which on its
first line.
"""

from __future__ import annotations

from typing import Literal

from praisonlike import Agent
from praisonlike.agent.default_model import default_model
from praisonlike.errors import ConfigurationError


def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Current weather for a city.

    Args:
        city: City name.
        unit: Temperature unit.
    """
    return f"{city}: sunny, 26{unit}"


def main() -> None:
    try:
        model = default_model()
    except ConfigurationError:
        model = None
    if model is None:
        from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

        print(
            "No model key and no local model installed: running against the scripted "
            "LocalLLMServer (canned answers, not a real model)."
        )
        with LocalLLMServer(
            [
                ToolCalls([Call("get_weather", {"city": "Paris"})]),
                Text("It is sunny in Paris, 26c."),
            ]
        ) as server:
            agent = Agent(
                instructions="You are a weather assistant",
                tools=[get_weather],
                llm=server.llm_config(),
            )
            print(agent.chat("Is it sunny in Paris?"))
        return
    where = "the local model (offline, llama.cpp)" if model == "local" else model
    print(f"Running on {where}.")
    agent = Agent(
        instructions="You are a weather assistant. Use the tools.", tools=[get_weather], llm=model
    )
    print(agent.chat("Is it sunny in Paris? Use the get_weather tool."))
    result = agent.last_result
    if result is not None:
        calls = ", ".join(f"{c.name}({c.arguments})" for c in result.tool_calls) or "none"
        print(f"[tool calls: {calls}; tokens: {result.usage.total_tokens}; {result.latency:.1f}s]")


if __name__ == "__main__":
    main()
