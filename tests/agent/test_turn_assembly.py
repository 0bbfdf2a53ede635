"""Turn assembly without an Agent: (spec, conversation, options, parts) -> the loop's input."""

from __future__ import annotations

from typing import Any

import pytest

from praisonlike._runtime.cancellation import CancelToken
from praisonlike.agent.assembly import RunOptions, assemble_turn, close_turn
from praisonlike.agent.conversation import Conversation
from praisonlike.agent.guardrails import GuardrailConfig
from praisonlike.agent.parts import AgentParts
from praisonlike.agent.spec import AgentSpec
from praisonlike.errors import InvalidInputError
from praisonlike.models.usage import UsageTracker
from praisonlike.run_enums import TerminationReason
from praisonlike.testing import FunctionModel
from praisonlike.tools.python_tool import function_tool


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def echo(messages: list[dict[str, Any]], info: Any) -> str:
    return f"echo {messages[-1]['content']}"


def fail(messages: list[dict[str, Any]], info: Any) -> str:
    raise RuntimeError("the model broke")


def parts_of(**arguments: Any) -> tuple[AgentSpec, Conversation, AgentParts]:
    spec = AgentSpec.build(**{"instructions": "Be brief.", "llm": FunctionModel(echo), **arguments})
    return spec, Conversation(), AgentParts.build(spec)


def test_the_loop_input_is_made_from_spec_history_and_options() -> None:
    spec, conversation, parts = parts_of(tools=[function_tool(add)], max_iterations=3)
    conversation.start_from(
        [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    )
    cancel = CancelToken()
    turn = assemble_turn(
        "hi", RunOptions(cancel_token=cancel), spec, conversation, parts, UsageTracker()
    )
    loop_input = turn.run.spec
    system, *history = loop_input.prefix
    assert system["role"] == "system" and system["content"].startswith("Be brief.")
    assert [m["content"] for m in history] == ["a", "b"]
    assert loop_input.new_messages == [{"role": "user", "content": "hi"}]
    assert [t["function"]["name"] for t in loop_input.tools] == ["add"]
    assert loop_input.max_iterations == 3 and loop_input.stream is False
    assert loop_input.cancel is cancel and conversation.running() == [cancel]
    started = turn.run.opening[0]
    assert started.type == "run_started" and started.run_id == loop_input.run_id
    assert turn.run.owner is None
    assert len(conversation.history()) == 2


def test_call_options_replace_tools_and_ask_for_a_structured_answer() -> None:
    spec, conversation, parts = parts_of(tools=[function_tool(add)])
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "title": "N"}
    options = RunOptions(tools=[], output_json=schema, stream=True)
    loop_input = assemble_turn("hi", options, spec, conversation, parts, UsageTracker()).run.spec
    assert loop_input.tools == [] and loop_input.stream is True
    assert "## Answer format" in loop_input.prefix[0]["content"]
    assert loop_input.answer_check is not None


def test_without_a_system_role_the_prompt_is_a_first_user_message() -> None:
    spec, conversation, parts = parts_of(use_system_prompt=False)
    loop_input = assemble_turn(
        "hi", RunOptions(), spec, conversation, parts, UsageTracker()
    ).run.spec
    assert [m["role"] for m in loop_input.prefix] == ["user", "assistant"]
    assert loop_input.prefix[1]["content"] == "Understood."


def test_input_review_presets_the_answer() -> None:
    spec, conversation, parts = parts_of(
        guardrails=GuardrailConfig(input_keywords=["password"], preset_response="no")
    )
    loop_input = assemble_turn(
        "my PASSWORD", RunOptions(), spec, conversation, parts, UsageTracker()
    ).run.spec
    assert loop_input.preset_answer == "no"


def test_an_invalid_prompt_opens_nothing() -> None:
    spec, conversation, parts = parts_of()
    with pytest.raises(InvalidInputError):
        assemble_turn(b"bytes", RunOptions(), spec, conversation, parts, UsageTracker())
    assert conversation.running() == []


def test_a_turn_run_and_closed_commits_to_the_conversation() -> None:
    spec, conversation, parts = parts_of()
    tracker = UsageTracker()
    conversation.steer("also this")
    turn = assemble_turn("hi", RunOptions(), spec, conversation, parts, tracker)
    events = [event.type for event in turn.run.events()]
    assert events[0] == "run_started" and events[-1] == "run_finished"
    result = close_turn(turn, spec, conversation, parts, tracker)
    assert result.termination_reason is TerminationReason.COMPLETED
    assert result.text == "echo also this"
    assert [m["content"] for m in conversation.history()] == ["hi", "also this", "echo also this"]
    assert conversation.last_result is result and conversation.running() == []


def test_a_failed_turn_leaves_history_and_gives_its_steering_back() -> None:
    spec, conversation, parts = parts_of(llm=FunctionModel(fail))
    conversation.steer("steer")
    turn = assemble_turn("hi", RunOptions(), spec, conversation, parts, UsageTracker())
    for _ in turn.run.events():
        pass
    with pytest.raises(Exception, match="the model broke"):
        close_turn(turn, spec, conversation, parts, UsageTracker())
    assert conversation.history() == []
    assert conversation.pending_steering() == ["steer"]
    assert conversation.last_result is not None and conversation.running() == []
