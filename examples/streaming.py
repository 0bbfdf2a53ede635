"""Streaming: the answer's text as it arrives, and every event of a turn.

``iter_stream`` yields text only; ``stream_events`` yields typed events (model
requests, text deltas, tool calls and results, retries, ...) and always ends with
``run_finished``, whose ``result`` is the turn's RunResult.
"""

from __future__ import annotations

from example_llm import example_llm

from praisonlike import Agent
from praisonlike.events import RunFinished, TextDelta, ToolCallEvent, ToolResultEvent
from praisonlike.testing import Call, Response, Text, ToolCalls


def get_weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: City name.
    """
    return f"{city}: sunny, 26c"


SCRIPT: list[Response] = [
    Text("Paris is the capital of France.", chunk_size=6),
    ToolCalls([Call("get_weather", {"city": "Paris"})]),
    Text("It is sunny in Paris, 26c."),
]


def main() -> None:
    with example_llm(SCRIPT) as llm:
        agent = Agent(instructions="You are brief.", llm=llm, tools=[get_weather])

        print("-- iter_stream: text pieces as they arrive")
        pieces = []
        for piece in agent.iter_stream("What is the capital of France? Answer in one sentence."):
            pieces.append(piece)
            print(piece, end="", flush=True)
        print(f"\n({len(pieces)} pieces)")

        print("-- stream_events: every step of a turn")
        for event in agent.stream_events("Is it sunny in Paris? Use the get_weather tool."):
            if isinstance(event, TextDelta):
                continue
            if isinstance(event, ToolCallEvent):
                print(f"[{event.type}] {event.name}({event.arguments})")
            elif isinstance(event, ToolResultEvent):
                print(f"[{event.type}] {event.name} -> {event.result}")
            elif isinstance(event, RunFinished):
                result = event.result
                assert result is not None
                print(f"[{event.type}] {event.termination_reason.value}: {result.text}")
            else:
                print(f"[{event.type}]")
        print(f"history now holds {len(agent.chat_history)} messages")


if __name__ == "__main__":
    main()
