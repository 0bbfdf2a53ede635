"""Quickstart: an agent with one tool.

Runs on a real provider when a key is set (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...
or PRAISONLIKE_MODEL), otherwise on the bundled local model (praisonlike[local],
offline), otherwise against the scripted LocalLLMServer -- and says which on its
first line. PRAISONLIKE_EXAMPLES_LOCAL=1 forces the local model, =0 the scripted
server (as for the other examples).
"""

from __future__ import annotations

import os
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


def choose_model() -> str | None:
    """The model to run on; None for the scripted server."""
    forced = os.environ.get("PRAISONLIKE_EXAMPLES_LOCAL", "").strip()
    if forced in ("0", "1"):
        return "local" if forced == "1" else None
    try:
        return default_model()
    except ConfigurationError:
        return None


def main() -> None:
    model = choose_model()
    if model is None:
        from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

        forced = os.environ.get("PRAISONLIKE_EXAMPLES_LOCAL", "").strip() == "0"
        why = "PRAISONLIKE_EXAMPLES_LOCAL=0" if forced else "no model key, no local model"
        print(f"Running against the scripted LocalLLMServer ({why}): canned answers, not a model.")
        with LocalLLMServer(
            [
                ToolCalls([Call("get_weather", {"city": "Paris"})]),
                Text("It is sunny in Paris, 26c."),
            ]
        ) as server:
            agent = Agent(
                instructions="You are a weather assistant",
                tools=[get_weather],
                llm=server.llm_config("gpt-4o-mini"),
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
