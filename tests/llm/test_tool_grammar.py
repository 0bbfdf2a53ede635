"""Constrained ReAct replies: the grammar built from the offered tools, and when it is sent.

The grammar's effect on a real model is checked in tests/local_model; here the
scripted server records what each request carried.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from praisonlike import Agent
from praisonlike.models.capabilities import model_features
from praisonlike.models.config import LLMConfig
from praisonlike.react.answer_bounds import bounded_answer_schema
from praisonlike.react.grammar import ANSWER_LAYOUT, answer_grammar, text_grammar, tool_call_grammar
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

pytestmark = pytest.mark.filterwarnings(
    "ignore::praisonlike.context.window.ContextWindowUnknownWarning"
)


def get_weather(city: str, unit: str = "c") -> str:
    """Current weather for a city.

    Args:
        city: City name.
        unit: Temperature unit.
    """
    return f"{city}: sunny, 26{unit}"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Point(BaseModel):
    x: float
    y: float


def move(to: Point) -> str:
    """Move to a point."""
    return f"at {to.x},{to.y}"


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def embedded_schema(grammar: str) -> dict[str, Any]:
    line = next(line for line in grammar.splitlines() if line.startswith("call: %json "))
    schema: dict[str, Any] = json.loads(line.removeprefix("call: %json "))
    return schema


def test_one_tool_gives_text_or_exactly_its_call() -> None:
    grammar = tool_call_grammar([WEATHER_TOOL])
    assert grammar is not None
    lines = grammar.splitlines()
    assert lines[0] == "%llguidance {}"
    assert "start: call | fenced | text" in lines
    schema = embedded_schema(grammar)
    assert schema["properties"]["name"] == {"const": "get_weather"}
    assert list(schema["properties"]) == ["name", "arguments"], "the model writes keys in order"
    assert schema["properties"]["arguments"]["required"] == ["city"]
    assert schema["required"] == ["name", "arguments"]
    assert schema["additionalProperties"] is False


def test_several_tools_are_alternatives_and_defs_move_to_the_root() -> None:
    tools = [
        WEATHER_TOOL,
        {
            "type": "function",
            "function": {
                "name": "move",
                "parameters": {
                    "type": "object",
                    "properties": {"to": {"$ref": "#/$defs/Point"}},
                    "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}},
                },
            },
        },
    ]
    grammar = tool_call_grammar(tools)
    assert grammar is not None
    schema = embedded_schema(grammar)
    assert [c["properties"]["name"]["const"] for c in schema["anyOf"]] == ["get_weather", "move"]
    assert "Point" in schema["$defs"]
    assert "$defs" not in schema["anyOf"][1]["properties"]["arguments"]
    assert tool_call_grammar(tools) == grammar


def test_no_tools_or_clashing_defs_give_no_grammar() -> None:
    def tool(name: str, width: str) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": name,
                "parameters": {"type": "object", "properties": {}, "$defs": {"P": {"type": width}}},
            },
        }

    assert tool_call_grammar([]) is None
    assert tool_call_grammar([tool("a", "integer"), tool("b", "string")]) is None


def test_the_bundled_local_models_take_a_grammar() -> None:
    assert model_features("local").tool_grammar
    assert model_features("openai/qwen2.5-coder-0.5b").tool_grammar
    assert not model_features("gpt-4o-mini").tool_grammar
    assert not model_features("local", {"tool_grammar": False}).tool_grammar


def grammar_of(request: Any) -> str | None:
    value = request.body.get("grammar")
    return value if isinstance(value, str) else None


def test_react_rounds_offering_tools_send_the_grammar(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    config = LLMConfig.coerce(
        {**llm, "features": {"native_tool_calls": False, "tool_grammar": True}}
    )
    call = json.dumps({"name": "add", "arguments": {"a": 2, "b": 3}})
    server.extend([Text(call), Text(call), Text("5")])
    agent = Agent(
        instructions="Be brief.", llm=config, tools=[get_weather, add, move], max_iterations=2
    )
    assert agent.chat("2+3?") == "5"
    first, second, final = (grammar_of(r) for r in server.requests)
    assert first is not None and second == first
    names = [c["properties"]["name"]["const"] for c in embedded_schema(first)["anyOf"]]
    assert sorted(names) == ["add", "get_weather", "move"]
    assert final == text_grammar()  # the last round, tools withheld: an answer in text only
    assert final.splitlines()[1:] == ["start: text", first.splitlines()[-1]]


def test_no_grammar_without_the_feature_or_with_structured_output(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    plain = LLMConfig.coerce({**llm, "features": {"native_tool_calls": False}})
    server.add(Text("Sunny."))
    assert (
        Agent(instructions="Be brief.", llm=plain, tools=[get_weather]).chat("Weather?") == "Sunny."
    )
    assert grammar_of(server.requests[-1]) is None

    grammar = LLMConfig.coerce(
        {
            **llm,
            "features": {"native_tool_calls": False, "tool_grammar": True, "response_schema": True},
        }
    )
    server.add(Text('{"x": 1.0, "y": 2.0}'))
    agent = Agent(instructions="Be brief.", llm=grammar, tools=[get_weather])
    assert agent.chat("Where?", output_pydantic=Point) == Point(x=1.0, y=2.0)
    assert grammar_of(server.requests[-1]) is None


def test_extra_body_of_the_model_is_kept(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    config = LLMConfig.coerce(
        {
            **llm,
            "features": {"native_tool_calls": False, "tool_grammar": True},
            "extra_body": {"top_k": 7},
        }
    )
    server.add(Text("Sunny."))
    Agent(instructions="Be brief.", llm=config, tools=[get_weather]).chat("Weather?")
    body = server.requests[0].body
    assert body["top_k"] == 7 and grammar_of(server.requests[0]) is not None


def answer_schema_of(grammar: str) -> dict[str, Any]:
    line = next(line for line in grammar.splitlines() if line.startswith("answer: %json "))
    schema: dict[str, Any] = json.loads(line.removeprefix("answer: %json "))
    return schema


def test_a_structured_answer_takes_the_place_of_free_text() -> None:
    schema = Point.model_json_schema()
    grammar = tool_call_grammar([WEATHER_TOOL], schema)
    assert grammar is not None
    assert "start: call | fenced | answer" in grammar
    assert "text:" not in grammar
    assert answer_schema_of(grammar) == {
        **bounded_answer_schema(schema),
        "x-guidance": dict(ANSWER_LAYOUT),
    }
    assert embedded_schema(grammar) == embedded_schema(tool_call_grammar([WEATHER_TOOL]) or "")
    only = answer_grammar(schema)
    assert only.splitlines()[1] == "start: answer"
    assert answer_schema_of(only) == answer_schema_of(grammar)
    assert "x-guidance" not in schema  # the caller's schema is not changed


def react_grammar_llm(llm: dict[str, Any], **features: bool) -> LLMConfig:
    return LLMConfig.coerce(
        {**llm, "features": {"native_tool_calls": False, "tool_grammar": True, **features}}
    )


def test_a_structured_react_turn_constrains_every_round_to_a_call_or_the_answer(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    call = json.dumps({"name": "add", "arguments": {"a": 2, "b": 3}})
    server.extend([Text(call), Text('{"x": 5.0, "y": 0.0}')])
    agent = Agent(instructions="Be brief.", llm=react_grammar_llm(llm), tools=[add])

    assert agent.chat("Where is 2 plus 3?", output_pydantic=Point) == Point(x=5.0, y=0.0)

    first, second = (grammar_of(r) for r in server.requests)
    assert first is not None and second == first
    assert "start: call | fenced | answer" in first
    assert answer_schema_of(first)["properties"] == Point.model_json_schema()["properties"]


def test_a_structured_answer_without_a_call_is_held_to_its_schema(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    call = json.dumps({"name": "add", "arguments": {"a": 2, "b": 3}})
    server.extend([Text(call), Text('{"x": 1.0, "y": 2.0}'), Text('{"x": 3.0, "y": 4.0}')])
    last_round = Agent(
        instructions="Be brief.", llm=react_grammar_llm(llm), tools=[add], max_iterations=1
    )
    assert last_round.chat("Where is 2 plus 3?", output_pydantic=Point) == Point(x=1.0, y=2.0)
    no_tools = Agent(instructions="Be brief.", llm=react_grammar_llm(llm))
    assert no_tools.chat("Where?", output_json=Point.model_json_schema()) == {"x": 3.0, "y": 4.0}

    offering, final, toolless = (grammar_of(r) for r in server.requests)
    assert offering is not None and "start: call | fenced | answer" in offering
    assert final is not None and toolless is not None
    assert final.splitlines()[1] == toolless.splitlines()[1] == "start: answer"


def test_a_native_tool_round_gets_no_grammar_but_its_last_round_does(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    native = react_grammar_llm(llm, native_tool_calls=True)
    server.extend([ToolCalls([Call("add", {"a": 2, "b": 3})]), Text('{"x": 5.0, "y": 0.0}')])
    agent = Agent(instructions="Be brief.", llm=native, tools=[add], max_iterations=1)

    assert agent.chat("Where?", output_pydantic=Point) == Point(x=5.0, y=0.0)

    offering, final = (grammar_of(r) for r in server.requests)
    assert offering is None
    assert final is not None and final.splitlines()[1] == "start: answer"
