"""The grammar a structured answer is held to on an endpoint that takes one (the
bundled local models): only the schema's keys, in order, a fixed JSON layout and
bounded strings and integers, so a small model cannot write past the answer until
the token cap.

Qwen2.5-Coder-0.5B asked for ``City(name, country, population)`` about Paris wrote
``"population": 2, "population of Paris": {... "city": "Nantes" ...}`` with runs
of tabs and newlines until the 512-token cap, three rounds in a row, and the turn
failed with ``OutputValidationError``. The scripted server records the grammar
each request carried; the schema embedded in it is checked here with
``jsonschema`` (what it admits), and its LLGuidance layout options by value.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, ConfigDict, Field

from praisonlike import Agent
from praisonlike.models.config import LLMConfig
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

pytestmark = pytest.mark.filterwarnings(
    "ignore::praisonlike.context.window.ContextWindowUnknownWarning"
)

RUNAWAY = (
    '{"name": "Paris", "country": "France", "population": 2, '
    '"population of Paris": {"city": "Nantes"}}'
)


class City(BaseModel):
    name: str
    country: str
    population: int


class Person(BaseModel):
    name: str
    age: int
    home: City
    nicknames: list[str] = []


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str


class Code(BaseModel):
    code: str = Field(max_length=3)
    count: int = Field(ge=0)


def grammar_llm(llm: dict[str, Any]) -> LLMConfig:
    """``llm`` as a model that takes a grammar, like the bundled local models."""
    return LLMConfig.coerce({**llm, "features": {"native_tool_calls": False, "tool_grammar": True}})


def answer_rule(server: LocalLLMServer, index: int = 0) -> dict[str, Any]:
    """The JSON schema of the ``answer`` rule in the grammar of request ``index``."""
    grammar = server.requests[index].body.get("grammar")
    assert isinstance(grammar, str)
    line = next(line for line in grammar.splitlines() if line.startswith("answer: %json "))
    schema: dict[str, Any] = json.loads(line.removeprefix("answer: %json "))
    return schema


def admits(schema: dict[str, Any], reply: str) -> bool:
    rules = {key: value for key, value in schema.items() if key != "x-guidance"}
    return jsonschema.Draft202012Validator(rules).is_valid(json.loads(reply))


def test_the_answer_grammar_admits_only_the_schemas_keys(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.add(Text('{"name": "Paris", "country": "France", "population": 2100000}'))
    city = Agent(instructions="Answer with data.", llm=grammar_llm(llm)).chat(
        "Give me data about Paris.", output_pydantic=City
    )
    assert city == City(name="Paris", country="France", population=2100000)

    schema = answer_rule(server)
    assert schema["additionalProperties"] is False
    assert list(schema["properties"]) == ["name", "country", "population"]  # the fields' order
    assert not admits(schema, RUNAWAY)
    assert admits(schema, '{"name": "Paris", "country": "France", "population": 2100000}')


def test_the_answer_grammar_fixes_the_json_layout(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.add(Text('{"name": "Tokyo", "country": "Japan", "population": 14000000}'))
    Agent(instructions="Answer with data.", llm=grammar_llm(llm)).chat(
        "Give me data about Tokyo.", output_pydantic=City
    )
    # LLGuidance's default lets any run of spaces, tabs and newlines between tokens;
    # this layout is `{"a": 1, "b": [2, 3]}` with no other whitespace.
    options = answer_rule(server)["x-guidance"]
    assert options["whitespace_flexible"] is False
    assert "whitespace_pattern" not in options
    assert (options["item_separator"], options["key_separator"]) == (", ", ": ")
    assert options["lenient"] is True


def test_nested_models_lists_strings_and_integers_are_bounded(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend(
        [
            ToolCalls([Call("lookup", {"city": "Ulm"})]),
            Text(
                '{"name": "Albert Einstein", "age": 76, "home": '
                '{"name": "Ulm", "country": "Germany", "population": 126000}}'
            ),
        ]
    )

    def lookup(city: str) -> str:
        """Look up a city."""
        return f"{city}: a city"

    agent = Agent(instructions="Answer with data.", llm=grammar_llm(llm), tools=[lookup])
    person = agent.chat("Tell me about Albert Einstein.", output_pydantic=Person)
    assert person.home.name == "Ulm"

    valid = {"name": "A", "age": 1, "home": {"name": "Ulm", "country": "D", "population": 1}}
    for index in (0, 1):  # the round offering the tool, and the one after its result
        schema = answer_rule(server, index)
        nested = schema["$defs"]["City"]
        assert schema["additionalProperties"] is False and nested["additionalProperties"] is False
        name_limit = schema["properties"]["name"]["maxLength"]
        assert nested["properties"]["country"]["maxLength"] == name_limit
        nicknames = schema["properties"]["nicknames"]
        assert nicknames["items"]["maxLength"] == name_limit
        assert not admits(schema, json.dumps({**valid, "nicknames": ["Al"] * 1000}))
        assert admits(schema, json.dumps({**valid, "nicknames": ["Al"] * nicknames["maxItems"]}))
        age = schema["properties"]["age"]
        assert -age["minimum"] == age["maximum"] == 10**15 - 1
        long_name = json.dumps(
            {
                "name": "x" * (name_limit + 1),
                "age": 1,
                "home": {"name": "Ulm", "country": "Germany", "population": 1},
            }
        )
        assert not admits(schema, long_name)
        huge_age = (
            '{"name": "A", "age": 10000000000000000, "home": '
            '{"name": "Ulm", "country": "Germany", "population": 1}}'
        )
        assert not admits(schema, huge_age)
        extra_in_nested = (
            '{"name": "A", "age": 1, "home": '
            '{"name": "Ulm", "country": "Germany", "population": 1, "river": "Danube"}}'
        )
        assert not admits(schema, extra_in_nested)


def test_the_schemas_own_limits_and_allowed_extras_are_kept(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend([Text('{"name": "x", "colour": "red"}'), Text('{"code": "abc", "count": 2}')])
    agent = Agent(instructions="Answer with data.", llm=grammar_llm(llm))
    assert agent.chat("Open?", output_pydantic=Open).name == "x"
    assert agent.chat("Code?", output_pydantic=Code) == Code(code="abc", count=2)

    open_schema = answer_rule(server, 0)
    assert open_schema["additionalProperties"] is True  # extra="allow"
    assert admits(open_schema, '{"name": "x", "colour": "red"}')
    code = answer_rule(server, 1)["properties"]
    assert code["code"]["maxLength"] == 3
    assert code["count"]["minimum"] == 0 and code["count"]["maximum"] == 10**15 - 1


def test_an_output_json_schema_is_bounded_and_left_unchanged(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["big", "old"]}},
            "scores": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
        "required": ["city"],
    }
    before = json.loads(json.dumps(schema))
    server.add(Text('{"city": "Rome", "tags": ["old"], "scores": {"food": 9}}'))
    answer = Agent(instructions="x", llm=grammar_llm(llm)).chat("Rome?", output_json=schema)
    assert answer == {"city": "Rome", "tags": ["old"], "scores": {"food": 9}}
    assert schema == before  # the caller's schema is not modified

    sent = answer_rule(server)
    assert sent["additionalProperties"] is False
    assert "maxLength" not in sent["properties"]["tags"]["items"]  # an enum is bounded already
    scores = sent["properties"]["scores"]
    assert scores["additionalProperties"]["maximum"] == 10**15 - 1  # open keys stay open
    assert admits(sent, '{"city": "Rome", "tags": ["old"], "scores": {"food": 9}}')
    assert not admits(sent, '{"city": "Rome", "country": "Italy"}')
