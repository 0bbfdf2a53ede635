"""Async: ``achat`` and ``astream_events``, and many turns at once under asyncio.

``achat`` is the same tool loop as ``chat``. One agent keeps one conversation,
so concurrent work uses one agent per conversation; they may share a
UsageTracker to total the cost.
"""

from __future__ import annotations

import asyncio

from example_llm import example_llm

from praisonlike import Agent, UsageTracker
from praisonlike.events import RunFinished, TextDelta
from praisonlike.testing import RecordedRequest, Text

CAPITALS = {"France": "Paris", "Japan": "Tokyo", "Kenya": "Nairobi"}


def answer(request: RecordedRequest) -> Text:
    """The scripted model: answers each question from the table above."""
    question = str(request.messages[-1]["content"])
    country = next((c for c in CAPITALS if c in question), None)
    return Text(f"The capital of {country} is {CAPITALS[country]}." if country else "I don't know.")


async def main() -> None:
    with example_llm(default=answer) as llm:
        tracker = UsageTracker()
        agents = {
            country: Agent(instructions="Answer in one sentence.", llm=llm, usage_tracker=tracker)
            for country in CAPITALS
        }
        answers = await asyncio.gather(
            *(agent.achat(f"What is the capital of {c}?") for c, agent in agents.items())
        )
        for country, text in zip(agents, answers, strict=True):
            print(f"{country}: {text}")
        print(f"{tracker.total.requests} requests, {tracker.total.total_tokens} tokens in total")

        streamed: list[str] = []
        async for event in agents["France"].astream_events("And the capital of Japan?"):
            if isinstance(event, TextDelta):
                streamed.append(event.text)
            elif isinstance(event, RunFinished):
                print(f"streamed: {''.join(streamed)!r} ({event.termination_reason.value})")


if __name__ == "__main__":
    asyncio.run(main())
