"""JSON schemas generated from signatures (no ``from __future__ import annotations`` here,
so annotations are real objects; see test_tool_function.py for string annotations)."""

import dataclasses
import enum
import functools
import json
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from pydantic import BaseModel, Field

from praisonlike import Agent
from praisonlike.errors import ConfigurationError
from praisonlike.testing import LocalLLMServer
from praisonlike.tools import FunctionTool, RunContext, tool


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street_name: str
    zip_code: int = 0


class Customer(BaseModel):
    name: str
    address: Address


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


def props(t: FunctionTool) -> dict[str, Any]:
    return t.parameters["properties"]


def resolve(schema: dict[str, Any], prop: dict[str, Any]) -> dict[str, Any]:
    ref = prop["$ref"]
    assert ref.startswith("#/$defs/")
    return schema["$defs"][ref.removeprefix("#/$defs/")]


def test_top_level_is_openai_object_schema():
    @tool
    def search(query: str, limit: int = 10) -> str:
        """Search the web."""
        return query

    schema = search.openai_schema()
    assert schema == {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the web.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer", "default": 10},
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    }
    assert json.loads(json.dumps(schema)) == schema


def test_required_follows_defaults_and_keeps_signature_order():
    @tool
    def f(
        b: int, a: str = "x", c: float | None = None, *, d: bool, e: tuple[int, ...] = ()
    ) -> None:
        """F."""

    assert list(props(f)) == ["b", "a", "c", "d", "e"]
    assert f.parameters["required"] == ["b", "d"]
    assert props(f)["a"]["default"] == "x"
    assert props(f)["c"]["default"] is None


def test_no_arguments_gives_empty_object_schema():
    @tool
    def ping() -> str:
        return "pong"

    assert ping.parameters["properties"] == {}
    assert ping.parameters["required"] == []
    assert ping.parameters["type"] == "object"


@pytest.mark.parametrize(
    "annotation",
    [Optional[int], Union[int, None], int | None],  # noqa: UP007, UP045
    ids=["Optional", "Union-None", "pipe-None"],
)
def test_optional_is_nullable_union(annotation):
    def f(x: annotation = None) -> None:
        """F."""

    schema = props(FunctionTool(f))["x"]
    assert schema["anyOf"] == [{"type": "integer"}, {"type": "null"}]
    assert schema["default"] is None


def test_union_lists_each_member():
    @tool
    def f(value: Union[int, str, list[str]]) -> None:  # noqa: UP007
        """F."""

    assert props(f)["value"]["anyOf"] == [
        {"type": "integer"},
        {"type": "string"},
        {"type": "array", "items": {"type": "string"}},
    ]


def test_literal_becomes_enum():
    @tool
    def f(unit: Literal["celsius", "fahrenheit"] = "celsius") -> None:
        """F."""

    assert props(f)["unit"] == {
        "type": "string",
        "enum": ["celsius", "fahrenheit"],
        "default": "celsius",
    }


def test_enum_is_a_referenced_definition_with_values():
    @tool
    def f(color: Color, other: Color = Color.BLUE) -> None:
        """F."""

    schema = f.parameters
    definition = resolve(schema, props(f)["color"])
    assert definition == {"type": "string", "enum": ["red", "blue"]}
    assert props(f)["other"]["default"] == "blue"


def test_list_dict_and_tuple_keep_item_types():
    @tool
    def f(tags: list[str], scores: dict[str, float], pair: tuple[int, str]) -> None:
        """F."""

    p = props(f)
    assert p["tags"] == {"type": "array", "items": {"type": "string"}}
    assert p["scores"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert p["pair"]["type"] == "array"
    assert p["pair"]["prefixItems"] == [{"type": "integer"}, {"type": "string"}]


def test_nested_pydantic_models_are_in_defs_without_generated_titles():
    @tool
    def f(customer: Customer) -> None:
        """F."""

    schema = f.parameters
    customer = resolve(schema, props(f)["customer"])
    assert customer["required"] == ["name", "address"]
    assert customer["properties"]["name"] == {"type": "string"}
    address = resolve(schema, customer["properties"]["address"])
    assert address["properties"]["zip_code"] == {"type": "integer", "default": 0}
    assert "title" not in json.dumps(schema)


def test_dataclass_argument_schema():
    @tool
    def f(points: list[Point]) -> None:
        """F."""

    point = resolve(f.parameters, props(f)["points"]["items"])
    assert point["properties"] == {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}}
    assert point["required"] == ["x"]


def test_explicit_title_is_kept():
    @tool
    def f(x: Annotated[int, Field(title="The X")]) -> None:
        """F."""

    assert props(f)["x"]["title"] == "The X"


def test_annotated_field_description_and_constraints():
    @tool
    def f(
        count: Annotated[int, Field(description="How many.", ge=1, le=5)],
        name: Annotated[str, Field(max_length=3)] = "abc",
    ) -> None:
        """F.

        Args:
            count: docstring text that loses to Field(description=...).
            name: the name.
        """

    p = props(f)
    assert p["count"] == {"type": "integer", "description": "How many.", "minimum": 1, "maximum": 5}
    assert p["name"]["maxLength"] == 3
    assert p["name"]["description"] == "the name."


def test_field_as_default_value():
    @tool
    def f(limit: int = Field(5, description="Max results.")) -> int:
        """F."""
        return limit

    assert props(f)["limit"] == {"type": "integer", "default": 5, "description": "Max results."}
    assert f.parameters["required"] == []
    assert f.call(f.validate({})) == 5


def test_var_args_is_an_array_and_var_kwargs_are_additional_properties():
    @tool
    def f(a: int, *rest: int, b: str = "x", **extra: float) -> None:
        """F.

        Args:
            rest: More numbers.
        """

    assert list(props(f)) == ["a", "rest", "b"]
    assert props(f)["rest"] == {
        "items": {"type": "integer"},
        "type": "array",
        "description": "More numbers.",
    }
    assert f.parameters["required"] == ["a"]
    assert f.parameters["additionalProperties"] == {"type": "number"}


def test_untyped_var_kwargs_take_any_key_and_no_var_kwargs_take_none():
    @tool
    def loose(**options) -> None:  # type: ignore[no-untyped-def]
        """Loose."""

    @tool
    def tight(a: int) -> None:
        """Tight."""

    assert loose.parameters["additionalProperties"] is True
    assert tight.parameters["additionalProperties"] is False


def test_unannotated_parameter_accepts_anything():
    @tool
    def f(x, y=3) -> None:
        """F."""

    assert props(f)["x"] == {}
    assert props(f)["y"] == {"default": 3}
    assert f.parameters["required"] == ["x"]


@pytest.mark.parametrize(
    "annotation",
    [RunContext, RunContext[int], Optional[RunContext[int]], Annotated[RunContext, 1]],  # noqa: UP045
)
def test_run_context_parameter_is_excluded(annotation):
    def f(ctx: annotation, city: str) -> None:
        """F."""

    t = FunctionTool(f)
    assert list(props(t)) == ["city"]
    assert t.parameters["required"] == ["city"]
    assert t.context_parameter == "ctx"


def test_two_run_context_parameters_are_rejected():
    @tool
    def f(a: RunContext, b: RunContext) -> None:
        """F."""

    with pytest.raises(ConfigurationError, match="more than one RunContext"):
        _ = f.parameters


def test_partial_hides_bound_arguments():
    def lookup(api_key: str, query: str, limit: int = 5) -> str:
        """Look something up.

        Args:
            api_key: secret.
            query: what to look up.
        """
        return f"{api_key}:{query}:{limit}"

    t = FunctionTool(functools.partial(lookup, "secret"))
    assert t.name == "lookup"
    assert t.description == "Look something up."
    assert list(props(t)) == ["query", "limit"]
    assert props(t)["query"]["description"] == "what to look up."

    keyword_bound = FunctionTool(functools.partial(lookup, api_key="k"))
    assert list(props(keyword_bound)) == ["query", "limit"]
    assert keyword_bound.call(keyword_bound.validate('{"query": "q"}')) == "k:q:5"


def test_bound_method_and_callable_instance():
    class Weather:
        def forecast(self, city: str, days: int = 1) -> str:
            """Forecast for a city."""
            return f"{city}:{days}"

        def __call__(self, city: str) -> str:
            """Current weather."""
            return city

    w = Weather()
    method = FunctionTool(w.forecast)
    assert method.name == "forecast"
    assert list(props(method)) == ["city", "days"]
    assert method.call(method.validate('{"city": "Oslo"}')) == "Oslo:1"

    instance = FunctionTool(w)
    assert instance.name == "Weather"
    assert instance.description == "Current weather."
    assert list(props(instance)) == ["city"]


def test_unsupported_type_raises_configuration_error_naming_tool():
    class Opaque:
        pass

    @tool
    def f(n: int, x: Opaque) -> None:
        """F."""

    with pytest.raises(ConfigurationError) as raised:
        f.openai_schema()
    assert str(raised.value).startswith(
        "tool 'f': parameter 'x' is annotated Opaque, which has no JSON schema: annotate it "
        "with a JSON type (str, int, float, bool, list[...], dict[str, ...]), an Enum,"
    )


def test_a_tool_without_a_json_schema_fails_the_turn_before_any_request(
    server: LocalLLMServer,
) -> None:
    class Opaque:
        pass

    def lookup(query: str, items: dict[str, Opaque]) -> str:
        """Look something up."""
        return query

    agent = Agent(instructions="You look things up.", llm=server.llm_config(), tools=[lookup])
    with pytest.raises(
        ConfigurationError, match=r"parameter 'items' is annotated dict\[str, Opaque\], which"
    ):
        agent.chat("find it")
    assert server.request_count == 0
    assert agent.chat_history == []


def test_invalid_names_are_rejected():
    with pytest.raises(ConfigurationError, match="name"):
        FunctionTool(lambda x: x)
    with pytest.raises(ConfigurationError, match="has space"):
        FunctionTool(len, name="has space")
    assert FunctionTool(lambda x: x, name="identity").name == "identity"


def test_schema_is_built_once():
    @tool
    def f(x: int) -> int:
        """F."""
        return x

    assert f.openai_schema() is f.openai_schema()
    assert f.parameters is f.openai_schema()["function"]["parameters"]
