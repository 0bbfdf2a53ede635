"""The ReAct prompt steers a small model to answer tool-free questions in text (issue 27).

On the project's evaluation (benchmarks/tool_calls.py) Qwen2.5-Coder-0.5B
answered 3/8 tool-free questions in text with the old wording ("You may call
one of these functions to help with the user's request" ... "Call a function
only when it helps") and 7/8 with this one, without losing a call: the header
that makes calling conditional does most of it. These tests pin that wording.
"""

from __future__ import annotations

from typing import Any

from praisonlike.react.prompt import react_instructions

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


def lines_around_the_listing(text: str) -> tuple[list[str], list[str]]:
    lines = text.splitlines()
    opening, closing = lines.index("<tools>"), lines.index("</tools>")
    return lines[:opening], lines[closing + 1 :]


def test_the_listing_is_introduced_as_functions_to_call_only_when_needed() -> None:
    before, _ = lines_around_the_listing(react_instructions([WEATHER]))
    assert before[-1] == "Functions you can call, only if the request needs one:"
    assert not any("help with" in line for line in before)


def test_the_protocol_says_when_to_call_and_to_answer_anything_else_in_text() -> None:
    _, after = lines_around_the_listing(react_instructions([WEATHER]))
    rule = after[-1]
    assert "only when the request needs live data or an action it provides" in rule
    assert rule.endswith("answer anything else directly in plain text.")
    assert "when it helps" not in rule
