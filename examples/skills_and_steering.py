"""Skills, steering and images.

A skill is a ``<folder>/<name>/SKILL.md`` recipe: ``/name args`` runs it, and the
model can read one with the built-in ``load_skill`` tool. ``agent.steer(text)``
redirects a turn that is already running (from any thread). ``images=`` sends
pictures to a vision model. Skills need PyYAML (``praisonlike[yaml]``).
"""

from __future__ import annotations

import base64
import tempfile
import threading
from pathlib import Path

from example_llm import example_llm

from praisonlike import Agent
from praisonlike.errors import UnsupportedInputError
from praisonlike.events import SkillInvoked, SteeringEvent
from praisonlike.testing import Call, Response, Text, ToolCalls

RELEASE_NOTES = """---
name: release-notes
description: Draft release notes from the git history
argument-hint: "<version>"
allowed-tools: [git_log]
---
Write short release notes for version $0. Read the changes with the git_log tool first.
"""

HAIKU = """---
name: haiku
description: Write a poem as a haiku
---
Answer with a haiku: three lines of 5, 7 and 5 syllables.
"""

DOT_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

started_search = threading.Event()
steered = threading.Event()


def git_log(count: int = 5) -> str:
    """The most recent commit messages.

    Args:
        count: How many commits.
    """
    return "fix: retry on 429\nfeat: streaming events\ndocs: quickstart"[: count * 40]


def search_flights(city: str) -> str:
    """Search flights to a city.

    Args:
        city: Destination.
    """
    started_search.set()
    steered.wait(10)
    return f"3 flights to {city} tomorrow"


SCRIPT: list[Response] = [
    ToolCalls([Call("git_log", {"count": 3})]),
    Text("Version 2.0: retries on rate limits, streaming events, a quickstart."),
    ToolCalls([Call("load_skill", {"name": "haiku"})]),
    Text("Waves fold into foam\nsalt wind carries gull voices\nthe tide keeps its time"),
    ToolCalls([Call("search_flights", {"city": "Paris"})]),
    ToolCalls([Call("search_flights", {"city": "Rome"})]),
    Text("There are 3 flights to Rome tomorrow."),
    Text("A single dark pixel."),
]


def write_skills(folder: Path) -> None:
    for name, text in (("release-notes", RELEASE_NOTES), ("haiku", HAIKU)):
        (folder / name).mkdir()
        (folder / name / "SKILL.md").write_text(text, encoding="utf-8")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, example_llm(SCRIPT) as llm:
        write_skills(Path(folder))
        agent = Agent(
            instructions="You are a helpful assistant.",
            llm=llm,
            tools=[git_log, search_flights],
            skills=[folder],
        )
        print(f"skills: {', '.join(agent.skills.names)}")
        for event in agent.stream_events("/release-notes 2.0"):
            if isinstance(event, SkillInvoked):
                print(f"skill invoked: {event.skill} {event.arguments}")
        print(agent.last_result.text if agent.last_result else "")
        print(agent.chat("Write a poem about the sea."))

        def steer_when_searching() -> None:
            started_search.wait(10)
            agent.steer("Actually, I want to go to Rome instead.")
            steered.set()

        helper = threading.Thread(target=steer_when_searching)
        helper.start()
        for event in agent.stream_events("Find me a flight to Paris."):
            if isinstance(event, SteeringEvent):
                print(f"steered mid-turn: {event.text}")
        helper.join()
        print(agent.last_result.text if agent.last_result else "")

        try:
            print(agent.chat("What is in this picture?", images=[DOT_PNG]))
        except UnsupportedInputError as exc:
            print(f"this model cannot take images: {exc}")


if __name__ == "__main__":
    main()
