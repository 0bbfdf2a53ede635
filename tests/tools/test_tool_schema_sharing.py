"""Tool schemas are built once per function and shared by every agent that offers it."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from praisonlike import Agent
from praisonlike.testing import LocalLLMServer, Text
from praisonlike.tools import FunctionTool


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first number.
        b: the second number.
    """
    return a + b


def test_wrapping_a_function_again_reuses_its_schema() -> None:
    first, second = FunctionTool(add), FunctionTool(add)
    assert first is not second
    assert first.parameters is second.parameters
    assert first.parameters["properties"]["a"]["description"] == "the first number."
    assert second.validate('{"a": 1, "b": 2}') == {"a": 1, "b": 2}


def test_a_renamed_tool_keeps_its_own_schema() -> None:
    plain, renamed = FunctionTool(add), FunctionTool(add, name="plus")
    assert renamed.parameters == plain.parameters
    assert renamed.openai_schema()["function"]["name"] == "plus"
    assert plain.openai_schema()["function"]["name"] == "add"


def test_agents_built_per_conversation_send_the_same_tool_schema(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend([Text("one"), Text("two")])
    for _ in range(2):
        Agent(instructions="x", llm=llm, tools=[add]).chat("hi")
    first, second = (request.tools for request in server.requests)
    assert first == second
    assert first[0]["function"]["parameters"]["required"] == ["a", "b"]


def test_a_function_whose_annotations_need_its_callers_locals_is_not_shared() -> None:
    def make(kind: type) -> FunctionTool:
        Local = kind  # noqa: N806 - the name the string annotation refers to

        def convert(value: Local) -> str:  # type: ignore[valid-type]
            return str(value)

        convert.__annotations__["value"] = "Local"
        return FunctionTool(convert)

    as_int, as_str = make(int), make(str)
    assert as_int.parameters["properties"]["value"]["type"] == "integer"
    assert as_str.parameters["properties"]["value"]["type"] == "string"


def test_the_shared_schema_does_not_keep_a_function_alive() -> None:
    def offer_a_new_function() -> weakref.ref[Any]:
        def scratch(x: int) -> int:
            return x

        assert FunctionTool(scratch).parameters["required"] == ["x"]
        return weakref.ref(scratch)

    alive = offer_a_new_function()
    gc.collect()
    assert alive() is None
