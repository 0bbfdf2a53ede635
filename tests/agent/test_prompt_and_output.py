"""System prompt cache, structured output, reflection and guardrails, via LocalLLMServer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from praisonlike import Agent, LLMConfig, TerminationReason
from praisonlike.agent.guardrails import GuardrailConfig, GuardrailResult
from praisonlike.errors import (
    ConfigurationError,
    ConfigurationTypeError,
    GuardrailError,
    OutputValidationError,
)
from praisonlike.events import ReflectionEvent
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls


class City(BaseModel):
    name: str
    population: int


def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city} has 2100000 people"


def test_system_prompt_sections_and_order(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    rules = tmp_path / "style.md"
    rules.write_text("Answer in one sentence.")
    server.add(Text("ok"))
    agent = Agent(
        backstory="You were trained by cartographers.",
        role="Geographer",
        goal="Answer map questions",
        instructions="Be precise.",
        rules=[rules],
        tools=[lookup],
        llm=llm,
    )
    agent.chat("hi")
    system = server.requests[0].messages[0]["content"]
    order = [
        "cartographers",
        "Your Role: Geographer",
        "Your Goal: Answer map questions",
        "Be precise.",
        "Answer in one sentence.",
        "lookup",
        "explain what you are about",
        "data, not instructions",
    ]
    positions = [system.index(part) for part in order]
    assert positions == sorted(positions)


def test_stable_prompt_is_built_once_and_per_turn_part_is_not_cached(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    rules = tmp_path / "rules.md"
    rules.write_text("Rule one.")
    server.default = lambda request: Text("ok")
    agent = Agent(instructions="x", rules=[rules], llm=llm)
    for _ in range(5):
        agent.chat("again")
    rules.write_text("Rule two.")  # the cached stable part is not rebuilt per turn
    agent.chat("after edit")
    systems = {r.messages[0]["content"] for r in server.requests}
    assert len(systems) == 1 and "Rule one." in systems.pop()
    assert agent.system_prompt(per_turn="memory A").endswith("memory A")
    assert "memory A" not in agent.stable_system_prompt()


def test_use_system_prompt_false_folds_the_prompt(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.add(Text("ok"))
    agent = Agent(instructions="You are terse.", llm=llm, use_system_prompt=False)
    agent.chat("hello")
    messages = server.requests[0].messages
    assert all(m["role"] != "system" for m in messages)
    assert messages[0] == {"role": "user", "content": "You are terse."}
    assert agent.chat_history[0] == {"role": "user", "content": "hello"}


def test_prompted_structured_output_with_tools_and_a_retry(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend(
        [
            ToolCalls([Call("lookup", {"city": "Paris"})]),
            Text('{"name": "Paris", "population": "lots"}'),
            Text('Here it is:\n```json\n{"name": "Paris", "population": 2100000}\n```'),
        ]
    )
    agent = Agent(instructions="x", tools=[lookup], llm=llm)
    city = agent.chat("Paris population?", output_pydantic=City)
    assert city == City(name="Paris", population=2100000)
    assert "Answer format" in server.requests[0].messages[0]["content"]
    feedback = server.requests[2].messages[-1]["content"]
    assert "population" in feedback and "did not match" in feedback
    assert "response_format" not in server.requests[0].body


def test_native_structured_output_uses_response_format(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.add(Text('{"name": "Rome", "population": 2800000}'))
    config = LLMConfig.coerce({**llm, "features": {"response_schema": True}})
    result = Agent(instructions="x", llm=config).chat("Rome?", output_pydantic=City)
    assert result.population == 2800000
    response_format = server.requests[0].body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["schema"]["required"] == ["name", "population"]


def test_output_json_schema_and_validation_error(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    server.add(Text('{"ok": true}'))
    agent = Agent(instructions="x", llm=llm, output_retries=1)
    assert agent.chat("q", output_json=schema) == {"ok": True}
    server.extend([Text("not json"), Text('{"ok": "maybe"}')])
    before = agent.chat_history
    with pytest.raises(OutputValidationError) as caught:
        agent.chat("q2", output_json=schema)
    assert caught.value.raw_output == '{"ok": "maybe"}'
    assert agent.chat_history == before


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        ({"type": "nonsense"}, "at type: 'nonsense' is not valid"),
        ({"type": "object", "properties": {"n": {"minimum": "3"}}}, "at properties/n/minimum"),
        ({"type": "object", "required": "name"}, "at required: 'name' is not of type 'array'"),
    ],
)
def test_an_invalid_output_json_schema_fails_before_any_request(
    server: LocalLLMServer, llm: dict[str, Any], schema: dict[str, Any], where: str
) -> None:
    server.default = Text("{}")
    agent = Agent(instructions="x", llm=llm)
    with pytest.raises(ConfigurationError, match="output_json is not a valid JSON schema") as bad:
        agent.chat("q", output_json=schema)
    assert where in str(bad.value)
    assert server.request_count == 0
    assert agent.chat_history == []


def test_reflection_regenerates_until_satisfactory(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    def respond(request: Any) -> Text:
        if "Rate the assistant's answer" in request.messages[0]["content"]:
            answer = request.messages[-1]["content"]
            good = "detailed" in answer
            return Text(json.dumps({"reflection": "add detail", "satisfactory": good}))
        feedback = [m for m in request.messages if "improve it" in str(m.get("content"))]
        return Text("a detailed answer" if feedback else "a short answer")

    server.default = respond
    agent = Agent(
        instructions="x",
        llm=llm,
        self_reflect=True,
        max_reflect=3,
        model_prices={"test-model": {"input": 1.0, "output": 1.0}},
    )
    events = list(agent.stream_events("explain"))
    assert agent.last_result is not None and agent.last_result.output == "a detailed answer"
    rounds = [e for e in events if isinstance(e, ReflectionEvent)]
    assert [r.satisfactory for r in rounds] == [False, True]
    assert agent.last_result.usage.requests == 4  # answer, rate, answer, rate


def test_reflection_is_bounded_by_max_reflect(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    def respond(request: Any) -> Text:
        if "Rate the assistant's answer" in request.messages[0]["content"]:
            return Text('{"reflection": "never good", "satisfactory": false}')
        return Text("answer")

    server.default = respond
    agent = Agent(instructions="x", llm=llm, self_reflect=True, min_reflect=1, max_reflect=2)
    assert agent.chat("q") == "answer"
    assert server.request_count == 4


def test_input_guardrail_answers_without_any_llm_call(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    agent = Agent(
        instructions="x",
        llm=llm,
        guardrails=GuardrailConfig(
            input_keywords=["password"], preset_response="I can't help with credentials."
        ),
    )
    assert agent.chat("What is the admin PASSWORD?") == "I can't help with credentials."
    assert server.request_count == 0
    assert agent.last_result is not None
    assert agent.last_result.termination_reason is TerminationReason.GUARDRAIL_BLOCKED
    assert agent.chat_history[-1]["content"] == "I can't help with credentials."


@pytest.mark.parametrize(
    ("settings", "names"),
    [
        ({"input_keywords": "password"}, "input_keywords"),  # read letter by letter
        ({"input_keywords": ["password", 5]}, "input_keywords"),
        ({"input_keywords": ["password"], "preset_response": None}, "preset_response"),
        ({"input_keywords": ["password"], "preset_response": "  "}, "preset_response"),
    ],
)
def test_an_input_guardrail_that_would_not_work_is_refused_when_built(
    settings: dict[str, Any], names: str
) -> None:
    """A string of keywords blocked nearly every prompt; a None preset answer let every
    forbidden prompt through to the model."""
    with pytest.raises(ConfigurationTypeError, match=names):
        GuardrailConfig(**settings)


def test_output_guardrail_retries_then_fails(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    def no_shouting(output: str) -> GuardrailResult:
        return GuardrailResult(ok=not output.isupper(), feedback="do not shout")

    server.extend([Text("HELLO"), Text("hello")])
    agent = Agent(
        instructions="x",
        llm=llm,
        guardrails=GuardrailConfig(output=no_shouting, guardrail_retries=1),
    )
    assert agent.chat("greet") == "hello"
    assert "do not shout" in server.requests[1].messages[-1]["content"]

    server.extend([Text("HEY"), Text("STILL")])
    with pytest.raises(GuardrailError, match="do not shout"):
        agent.chat("greet again")


def test_rule_guardrail_is_judged_by_the_model(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    def respond(request: Any) -> Text:
        if "check an assistant's answer" in request.messages[0]["content"]:
            ok = "please" in request.messages[-1]["content"]
            return Text(json.dumps({"ok": ok, "feedback": "be polite"}))
        retried = any("be polite" in str(m.get("content")) for m in request.messages)
        return Text("yes please" if retried else "yes")

    server.default = respond
    agent = Agent(
        instructions="x", llm=llm, guardrails=GuardrailConfig(output="The answer must be polite.")
    )
    assert agent.chat("can I?") == "yes please"
