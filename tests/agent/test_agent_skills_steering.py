"""Skills, steering and images through the Agent, against LocalLLMServer."""

from __future__ import annotations

import asyncio
import base64
import gc
import threading
import weakref
from pathlib import Path
from typing import Any

import pytest

from praisonlike import Agent, LLMConfig
from praisonlike.errors import InvalidInputError, SkillError, UnsupportedInputError
from praisonlike.events import SkillInvoked, SteeringEvent
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def write_skill(root: Path, name: str, body: str, **front: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    header = "\n".join(
        [
            f"name: {name}",
            f"description: The {name} skill",
            *(f"{k}: {v}" for k, v in front.items()),
        ]
    )
    (folder / "SKILL.md").write_text(f"---\n{header}\n---\n{body}\n")
    return folder


def git_log(n: int) -> str:
    """Recent commits."""
    return f"{n} commits"


def read_file(path: str) -> str:
    """Read a file."""
    return path


def test_slash_invocation_renders_the_skill(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    write_skill(tmp_path, "release-notes", "Write notes for version $0 for $ARGUMENTS[1].")
    server.add(Text("notes"))
    agent = Agent(instructions="x", llm=llm, skills=[tmp_path])
    events = list(agent.stream_events('/release-notes 1.2 "power users"'))
    sent = server.requests[0].messages[-1]["content"]
    assert sent == "Write notes for version 1.2 for power users."
    assert any(isinstance(e, SkillInvoked) and e.skill == "release-notes" for e in events)
    assert agent.last_result is not None and agent.last_result.skill == "release-notes"


def test_path_like_prompt_passes_through(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    write_skill(tmp_path, "deploy", "Deploy it.")
    server.add(Text("that is a path"))
    agent = Agent(instructions="x", llm=llm, skills=[tmp_path])
    agent.chat("/etc/hosts looks odd")
    assert server.requests[0].messages[-1]["content"] == "/etc/hosts looks odd"
    assert agent.last_result is not None and agent.last_result.skill is None


def test_allowed_tools_restrict_the_offered_tools(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    write_skill(tmp_path, "history", "Summarise history.", **{"allowed-tools": "[git_log]"})
    server.extend([Text("a"), Text("b")])
    agent = Agent(instructions="x", llm=llm, tools=[git_log, read_file], skills=[tmp_path])
    agent.chat("/history")
    agent.chat("plain turn")
    names = [[t["function"]["name"] for t in r.tools] for r in server.requests]
    assert names[0] == ["git_log"]
    assert names[1] == ["git_log", "load_skill", "read_file"]


def test_model_loads_a_skill_with_the_builtin_tool(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    write_skill(tmp_path, "haiku", "Always answer in 5-7-5 syllables.")
    write_skill(tmp_path, "hidden", "Secret.", **{"disable-model-invocation": "true"})
    server.extend([ToolCalls([Call("load_skill", {"name": "haiku"})]), Text("an old pond")])
    agent = Agent(instructions="x", llm=llm, skills=[tmp_path])
    agent.chat("write a poem")
    system = server.requests[0].messages[0]["content"]
    assert "haiku" in system and "The haiku skill" in system
    assert "Always answer" not in system and "hidden" not in system
    tool_message = [m for m in server.requests[1].messages if m["role"] == "tool"][0]
    assert tool_message["content"] == "Always answer in 5-7-5 syllables."


def test_a_turn_opened_with_a_skill_offers_no_load_skill_nor_the_catalogue(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    """The skill's instructions are the prompt: the local model, offered
    ``load_skill``, loaded the skill it had been given (its placeholders unfilled)."""
    write_skill(tmp_path, "notes", "Write notes for version $0.")
    write_skill(tmp_path, "haiku", "Always answer in 5-7-5 syllables.")
    write_skill(tmp_path, "chain", "Load haiku, then answer.", **{"allowed-tools": "[load_skill]"})
    server.extend([Text("Notes for 2.0."), Text("plain"), Text("chained")])
    agent = Agent(instructions="x", llm=llm, tools=[git_log], skills=[tmp_path])

    assert agent.chat("/notes 2.0") == "Notes for 2.0."
    agent.chat("plain turn")
    agent.chat("/chain")

    offered = [[t["function"]["name"] for t in r.tools] for r in server.requests]
    assert offered == [["git_log"], ["git_log", "load_skill"], ["load_skill"]]
    systems = [str(r.messages[0]["content"]) for r in server.requests]
    assert ["## Skills" in system for system in systems] == [False, True, True]
    assert server.requests[0].messages[-1]["content"] == "Write notes for version 2.0."


def test_per_call_tools_are_not_kept_alive_by_the_skill_tool(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    write_skill(tmp_path, "haiku", "Always answer in 5-7-5 syllables.")
    server.default = Text("ok")
    agent = Agent(instructions="x", llm=llm, tools=[git_log], skills=[tmp_path])
    passed: list[weakref.ref[Any]] = []
    for n in range(5):

        def lookup(key: str) -> str:
            """Look a key up."""
            return key

        lookup.__name__ = f"lookup_{n}"
        passed.append(weakref.ref(lookup))
        agent.chat("q", tools=[lookup])
        del lookup
    agent.chat("q")
    gc.collect()
    assert [ref() for ref in passed] == [None] * 5
    offered = [sorted(t["function"]["name"] for t in r.tools) for r in server.requests]
    assert offered[0] == ["load_skill", "lookup_0"]
    assert offered[-1] == ["git_log", "load_skill"]


def test_malformed_skill_raises_naming_the_file(llm: dict[str, Any], tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: broken\n---\nno description\n")
    agent = Agent(instructions="x", llm=llm, skills=[tmp_path])
    with pytest.raises(SkillError, match="SKILL.md"):
        agent.chat("hi")


def test_steering_from_another_thread_reaches_the_next_round(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    in_tool = threading.Event()
    proceed = threading.Event()

    def wait_tool() -> str:
        """Wait for the test."""
        in_tool.set()
        proceed.wait(10)
        return "waited"

    server.extend([ToolCalls([Call("wait_tool", {})]), Text("redirected")])
    agent = Agent(instructions="x", llm=llm, tools=[wait_tool])

    def steer_when_ready() -> None:
        in_tool.wait(10)
        agent.steer("Actually, focus on Rome.")
        proceed.set()

    helper = threading.Thread(target=steer_when_ready)
    helper.start()
    events = list(agent.stream_events("Tell me about Paris"))
    helper.join()
    second = server.requests[1].messages
    assert second[-1] == {"role": "user", "content": "Actually, focus on Rome."}
    assert any(isinstance(e, SteeringEvent) for e in events)
    assert agent.chat_history[3] == {"role": "user", "content": "Actually, focus on Rome."}
    assert agent.pending_steering() == []


def test_steering_between_turns_and_pending(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.add(Text("ok"))
    agent = Agent(instructions="x", llm=llm)
    agent.steer("be brief")
    agent.steer("use metric units")
    assert agent.pending_steering() == ["be brief", "use metric units"]

    async def main() -> str:
        return str(await agent.achat("weather?"))

    asyncio.run(main())
    contents = [m["content"] for m in server.requests[0].messages[1:]]
    assert contents == ["weather?", "be brief", "use metric units"]
    with pytest.raises(InvalidInputError):
        agent.steer("   ")


def test_steering_survives_a_failed_turn(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    from praisonlike.testing import Fault

    server.add(Fault.authentication())
    agent = Agent(instructions="x", llm=llm)
    agent.steer("remember me")
    with pytest.raises(Exception, match="(?i)auth|key"):
        agent.chat("hi")
    assert agent.pending_steering() == ["remember me"]


def test_images_become_content_parts_for_a_vision_model(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    image = tmp_path / "dot.png"
    image.write_bytes(PNG)
    server.add(Text("a dot"))
    config = LLMConfig.coerce({**llm, "features": {"vision": True}})
    agent = Agent(instructions="x", llm=config)
    agent.chat("what is this?", images=[image, "https://example.com/cat.jpg"])
    content = server.requests[0].messages[-1]["content"]
    assert content[0] == {"type": "text", "text": "what is this?"}
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert content[2]["image_url"]["url"] == "https://example.com/cat.jpg"
    assert agent.chat_history[0]["content"] == content


def test_an_image_without_text_is_sent_alone_and_an_empty_prompt_without_one_is_refused(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.add(Text("a dot"))
    agent = Agent(instructions="x", llm=LLMConfig.coerce({**llm, "features": {"vision": True}}))
    with pytest.raises(InvalidInputError, match="prompt is empty"):
        agent.chat("  ")
    assert server.request_count == 0 and agent.chat_history == []

    assert agent.chat("", images=[PNG]) == "a dot"
    content = server.requests[0].messages[-1]["content"]
    assert [part["type"] for part in content] == ["image_url"]


def test_images_for_a_text_model_fail_before_sending(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    agent = Agent(instructions="x", llm=llm)
    with pytest.raises(UnsupportedInputError, match="images"):
        agent.chat("look", images=[PNG])
    assert server.request_count == 0
    assert agent.chat_history == []
