"""A ``/name`` skill that cannot work fails its turn before any request, through the Agent."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.errors import SkillError
from praisonlike.testing import LocalLLMServer, Text


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def lookup(key: str) -> str:
    """Look a key up."""
    return key


def write_skill(root: Path, name: str, body: str, front: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: The {name} skill\n{front}---\n{body}")
    return path.resolve()


def offered(server: LocalLLMServer) -> list[list[str]]:
    return [[t["function"]["name"] for t in request.tools] for request in server.requests]


@pytest.mark.parametrize("body", ["", "   \n\t\n\n"])
def test_empty_body_fails_before_any_request(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path, body: str
) -> None:
    path = write_skill(tmp_path, "empty", body)
    agent = Agent(instructions="x", llm=llm, skills=[tmp_path])

    with pytest.raises(SkillError) as caught:
        agent.chat("/empty some args")

    assert str(path) in str(caught.value)
    assert "body is empty" in str(caught.value)
    assert "instructions" in str(caught.value)
    assert server.requests == []
    assert agent.chat_history == []


def test_empty_body_fails_streamed_turns_too(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    path = write_skill(tmp_path, "empty", "\n")
    agent = Agent(instructions="x", llm=llm, skills=[tmp_path])

    with pytest.raises(SkillError, match="body is empty") as caught:
        list(agent.stream_events("/empty"))

    assert str(path) in str(caught.value)
    assert server.requests == []


def test_unknown_allowed_tool_names_it_suggests_a_close_match_and_keeps_history(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    path = write_skill(tmp_path, "sum", "Add $0 and $1.\n", "allowed-tools: ad\n")
    server.add(Text("hello"))
    agent = Agent(instructions="x", llm=llm, tools=[add], skills=[tmp_path])
    agent.chat("hi")
    history = agent.chat_history

    with pytest.raises(SkillError) as caught:
        agent.chat("/sum 1 2")

    message = str(caught.value)
    assert str(path) in message
    assert "'ad' (did you mean 'add'?)" in message
    assert "This turn's tools: add, load_skill." in message
    assert len(server.requests) == 1
    assert agent.chat_history == history


def test_every_unknown_allowed_tool_is_named(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    write_skill(
        tmp_path,
        "calc",
        "Compute.\n",
        "allowed-tools: [add, multiply, zzz]\ndisable-model-invocation: true\n",
    )
    agent = Agent(instructions="x", llm=llm, tools=[add], skills=[tmp_path])

    with pytest.raises(SkillError) as caught:
        asyncio.run(agent.achat("/calc"))

    message = str(caught.value)
    assert "tools this turn does not have: 'multiply', 'zzz'." in message
    assert "This turn's tools: add." in message
    assert server.requests == []


def test_an_agent_without_tools_says_it_has_none(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    write_skill(
        tmp_path, "calc", "Compute.\n", "allowed-tools: [add]\ndisable-model-invocation: true\n"
    )
    agent = Agent(instructions="x", llm=llm, skills=[tmp_path])

    with pytest.raises(SkillError, match="This turn's tools: none."):
        agent.chat("/calc")

    assert server.requests == []


def test_tools_passed_on_the_call_are_the_ones_checked(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    write_skill(tmp_path, "find", "Find $0.\n", "allowed-tools: [lookup]\n")
    server.default = Text("ok")
    agent = Agent(instructions="x", llm=llm, tools=[add], skills=[tmp_path])

    assert agent.chat("/find a", tools=[lookup]) == "ok"
    with pytest.raises(SkillError) as caught:
        agent.chat("/find b")

    assert "'lookup'" in str(caught.value)
    assert "This turn's tools: add, load_skill." in str(caught.value)
    assert offered(server) == [["lookup"]]


def test_load_skill_counts_as_a_tool_the_turn_has(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    write_skill(tmp_path, "meta", "Pick a skill.\n", "allowed-tools: [add, load_skill]\n")
    server.default = Text("ok")
    agent = Agent(instructions="x", llm=llm, tools=[add], skills=[tmp_path])

    assert agent.chat("/meta") == "ok"

    assert offered(server) == [["add", "load_skill"]]


def test_a_failed_skill_turn_does_not_restrict_the_next_turn(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    write_skill(tmp_path, "sum", "Add.\n", "allowed-tools: ad\n")
    server.default = Text("ok")
    agent = Agent(instructions="x", llm=llm, tools=[add], skills=[tmp_path])

    with pytest.raises(SkillError):
        agent.chat("/sum")
    assert agent.chat("plain turn") == "ok"

    assert offered(server) == [["add", "load_skill"]]


@pytest.mark.parametrize("arguments", ["", "   "], ids=["none", "blank"])
def test_a_skill_whose_hint_requires_an_argument_fails_without_one(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path, arguments: str
) -> None:
    write_skill(
        tmp_path,
        "notes",
        "Write notes for $0 aimed at $1.",
        'argument-hint: "<version> [audience]"\n',
    )
    agent = Agent(instructions="x", llm=llm, skills=[tmp_path])

    with pytest.raises(SkillError) as caught:
        agent.chat(f"/notes{arguments}")

    assert "skill /notes needs its arguments: /notes <version> [audience]" in str(caught.value)
    assert server.requests == []
    assert agent.chat_history == []


@pytest.mark.parametrize("hint", ['argument-hint: "[audience]"\n', ""], ids=["optional", "none"])
def test_a_skill_without_a_required_argument_runs_without_one(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path, hint: str
) -> None:
    write_skill(tmp_path, "notes", "Write release notes for $ARGUMENTS.", hint)
    server.add(Text("Notes."))
    agent = Agent(instructions="x", llm=llm, skills=[tmp_path])

    assert agent.chat("/notes") == "Notes."
    assert server.requests[0].messages[-1]["content"] == "Write release notes for ."
