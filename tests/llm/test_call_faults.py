"""Replies that try to call an offered tool but fail: naming the fault and the correction."""

from __future__ import annotations

import json

import pytest

from praisonlike.react.call_faults import CallFault, correction_message, find_call_fault

OFFERED = {"get_weather", "add"}
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = [
    {
        "type": "function",
        "function": {"name": "get_weather", "description": "Weather.", "parameters": SCHEMA},
    }
]
ECHO = {"name": "get_weather", "description": "Current weather.", "parameters": SCHEMA}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (json.dumps(ECHO), "schema_echo"),
        (f"```json\n{json.dumps(ECHO)}\n```", "schema_echo"),
        (json.dumps({"type": "function", "function": ECHO}), "schema_echo"),
        (json.dumps({"name": "get_weather", "parameters": SCHEMA}), "schema_echo"),
        (f"I will use this tool:\n{json.dumps(ECHO)}", "schema_echo"),
        ('{"name": "get_weather", "arguments": "Paris"}', "bad_arguments"),
        ('{"name": "get_weather", "arguments": ["Paris"]}', "bad_arguments"),
        ('{"name": "get_weather", "city": "Paris"}', "bad_arguments"),
        ('{"name": "get_weather", "arguments": {"city": "Paris"', "invalid_json"),
        ('```json\n{"name": "get_weather", "arguments": {"city": }}\n```', "invalid_json"),
    ],
)
def test_failed_attempts_are_named(text: str, kind: str) -> None:
    assert find_call_fault(text, OFFERED) == CallFault(kind, "get_weather")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "The weather in Paris is sunny.",
        '{"name": "get_weather", "arguments": {"city": "Paris"}}',
        'I could call {"name": "get_weather", "arguments": {"city": "Paris"}} but: sunny.',
        '{"name": "Paris", "country": "France"}',
        json.dumps({**ECHO, "name": "book_flight"}),
        '{"name": "book_flight", "arguments": {"to": "Rome"',
        "Use {x} or {'a': 1}.",
        "{" * 5000,
    ],
)
def test_answers_and_valid_calls_are_not_faults(text: str) -> None:
    assert find_call_fault(text, OFFERED) is None


def test_nothing_offered_means_no_fault() -> None:
    assert find_call_fault(json.dumps(ECHO), set()) is None


def test_correction_names_the_problem_and_shows_the_call_form() -> None:
    message = correction_message(CallFault("schema_echo", "get_weather"), TOOLS)
    assert message["role"] == "user"
    assert "definition of the function get_weather" in message["content"]
    assert '{"name": "get_weather", "arguments": {"city": <string>}}' in message["content"]
    assert "plain text" in message["content"]
