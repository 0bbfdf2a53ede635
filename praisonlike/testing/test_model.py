"""A ready-made in-process model that calls every offered tool once, then answers.

Useful to smoke-test tools: their schemas, that the agent runs them, what they
return. The arguments are generated from each tool's JSON schema (see
:func:`example_arguments`), so they are valid but arbitrary.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from praisonlike.errors import ConfigurationError
from praisonlike.testing.function_model import FunctionModel, ModelInfo
from praisonlike.testing.script import Call, Text, ToolCalls


def example_arguments(schema: Mapping[str, Any]) -> Any:
    """A value valid against the JSON ``schema`` (``$ref`` to ``$defs`` followed).

    Picks ``const``, then ``default``, then the first ``enum`` value, then the
    first ``anyOf``/``oneOf`` branch, else the smallest value of the type
    (``"a"`` padded to ``minLength``, ``minimum`` or 0, ``False``,
    ``minItems`` items, every property of an object).
    """
    return _example(schema, schema.get("$defs") or schema.get("definitions") or {})


def _example(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Any:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return _example(defs.get(ref.rsplit("/", 1)[-1], {}), defs)
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return _example(schema[key][0], defs)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: _example(sub, defs) for name, sub in properties.items()}
    if kind == "array":
        items = schema.get("items") or {}
        return [_example(items, defs) for _ in range(int(schema.get("minItems", 0)))]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1)
        return int(low) if kind == "integer" else float(low)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "a" * max(1, int(schema.get("minLength", 1)))


class TestModel(FunctionModel):
    """Calls each offered tool once (all in one round), then answers.

    The answer is ``text`` when given, else a JSON object mapping each called
    tool's name to its result (the tool message's content). With
    ``call_tools`` a list of names, only those tools are called (a name the
    agent does not offer raises :class:`~praisonlike.errors.ConfigurationError`
    at the call); with no tool to call the model answers straight away. A new
    user message starts over.
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        *,
        text: str | None = None,
        call_tools: Sequence[str] | None = None,
        **settings: Any,
    ) -> None:
        only = None if call_tools is None else tuple(call_tools)

        def answer(messages: list[dict[str, Any]], info: ModelInfo) -> Text | ToolCalls:
            results = _tool_results_since_user(messages)
            if results is None:
                _check_names(only, info.tool_names)
                names = [n for n in info.tool_names if only is None or n in only]
                calls = [
                    Call(tool["function"]["name"], example_arguments(_parameters(tool)))
                    for tool in info.tools
                    if tool.get("function", {}).get("name") in names
                ]
                if calls:
                    return ToolCalls(calls)
                results = {}
            return Text(text if text is not None else json.dumps(results))

        settings.setdefault("function", answer)
        settings.setdefault("name", "test")
        super().__init__(**settings)


def _check_names(only: tuple[str, ...] | None, offered: Sequence[str]) -> None:
    """A name in ``call_tools`` that a call offering tools does not offer is a typo:
    the test would pass without calling anything."""
    unknown = sorted(set(only or ()) - set(offered))
    if offered and unknown:
        raise ConfigurationError(
            f"TestModel(call_tools=...): {', '.join(map(repr, unknown))} is not among the "
            f"tools the agent offers ({', '.join(offered)})"
        )


def _parameters(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    parameters = tool.get("function", {}).get("parameters")
    return parameters if isinstance(parameters, Mapping) else {"type": "object"}


def _tool_results_since_user(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Tool name -> result content after the last user message; None if no tool ran."""
    names: dict[str, str] = {}
    results: dict[str, Any] = {}
    for message in messages:
        role = message.get("role")
        if role == "user":
            names.clear()
            results.clear()
        for call in message.get("tool_calls") or []:
            names[call.get("id")] = call.get("function", {}).get("name", "")
        if role == "tool":
            results[names.get(message.get("tool_call_id", ""), "tool")] = message.get("content")
    return results or None


__all__ = ["TestModel", "example_arguments"]
