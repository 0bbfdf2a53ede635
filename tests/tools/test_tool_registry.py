"""ToolRegistry and as_tool: what Agent(tools=[...]) accepts."""

import functools
import inspect

import pytest

from praisonlike.errors import ConfigurationError, ToolError
from praisonlike.tools import FunctionTool, RawTool, ToolRegistry, as_tool, tool


@tool
def zeta(x: int) -> int:
    """Z."""
    return x


def alpha(text: str) -> str:
    """A."""
    return text.upper()


async def mid(n: int) -> int:
    """M."""
    return n + 1


OPENAI_DICT = {
    "type": "function",
    "function": {
        "name": "weather",
        "description": "Weather.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
BARE_DICT = {"name": "bare", "description": "Bare.", "parameters": {"type": "object"}}


class Calculator:
    """A to_openai_tool object executed through run()."""

    def to_openai_tool(self) -> dict:
        return {
            "type": "function",
            "function": {
                "name": "calculator",
                "description": "Adds.",
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"],
                },
            },
        }

    def run(self, a: int, b: int) -> int:
        return a + b


class Echo:
    """A to_openai_tool object without run(): executed through __call__."""

    def to_openai_tool(self) -> dict:
        return {"name": "echo", "parameters": {"type": "object", "properties": {}}}

    async def __call__(self, **kwargs: object) -> dict:
        return dict(kwargs)


def test_names_and_schemas_are_sorted_by_name():
    registry = ToolRegistry([zeta, alpha, mid])
    assert registry.names == ["alpha", "mid", "zeta"]
    assert [s["function"]["name"] for s in registry.schemas()] == ["alpha", "mid", "zeta"]
    assert [t.name for t in registry] == ["alpha", "mid", "zeta"]
    assert len(registry) == 3
    assert "mid" in registry
    assert "nope" not in registry
    assert 3 not in registry


def test_get_returns_tool_or_none():
    registry = ToolRegistry([zeta])
    assert registry.get("zeta") is zeta
    assert registry.get("missing") is None


def test_duplicate_names_raise_value_error_naming_the_name():
    @tool(name="alpha")
    def other(text: str) -> str:
        """Other."""
        return text

    with pytest.raises(ValueError, match="duplicate tool name 'alpha'"):
        ToolRegistry([alpha, other])
    with pytest.raises(ConfigurationError, match="'zeta'"):
        ToolRegistry([zeta]).with_tools([zeta])


def test_schemas_are_cached_until_a_tool_is_registered():
    registry = ToolRegistry([zeta])
    first = registry.schemas()
    assert registry.schemas()[0] is first[0]
    first.clear()
    assert len(registry.schemas()) == 1
    registry.register(alpha)
    assert [s["function"]["name"] for s in registry.schemas()] == ["alpha", "zeta"]


def test_subset_keeps_only_named_tools_and_ignores_unknown_names():
    registry = ToolRegistry([zeta, alpha, mid])
    sub = registry.subset(["zeta", "mid", "not-a-tool"])
    assert sub.names == ["mid", "zeta"]
    assert sub.get("zeta") is zeta
    assert registry.names == ["alpha", "mid", "zeta"]
    assert len(registry.subset([])) == 0


def test_with_tools_returns_a_new_registry():
    registry = ToolRegistry([zeta])
    bigger = registry.with_tools([alpha, OPENAI_DICT])
    assert bigger.names == ["alpha", "weather", "zeta"]
    assert registry.names == ["zeta"]


def test_as_tool_wraps_plain_functions_partials_and_methods():
    class Service:
        def status(self, verbose: bool = False) -> str:
            """Status."""
            return "up" if not verbose else "all systems up"

    def scaled(x: int, factor: int) -> int:
        """Scale."""
        return x * factor

    assert as_tool(zeta) is zeta
    assert isinstance(as_tool(alpha), FunctionTool)
    assert as_tool(mid).is_async
    method = as_tool(Service().status)
    assert method.name == "status"
    assert method.call({"verbose": True}) == "all systems up"
    partial = as_tool(functools.partial(scaled, factor=10))
    assert partial.name == "scaled"
    assert partial.call(partial.validate({"x": 2})) == 20


@pytest.mark.parametrize("definition", [OPENAI_DICT, BARE_DICT], ids=["openai", "bare"])
def test_raw_dicts_become_raw_tools_without_handler(definition):
    raw = as_tool(definition)
    assert isinstance(raw, RawTool)
    spec = definition.get("function", definition)
    assert raw.openai_schema() == {
        "type": "function",
        "function": {
            "name": spec["name"],
            "description": spec["description"],
            "parameters": {
                "type": "object",
                "properties": spec["parameters"].get("properties", {}),
            },
        },
    }
    assert raw.openai_schema() is raw.openai_schema()
    with pytest.raises(ToolError, match=f"tool {spec['name']} has no implementation"):
        raw.call({})


def test_raw_tool_copies_the_callers_dict():
    definition = {"name": "copy_me", "parameters": {"type": "object", "properties": {}}}
    raw = RawTool(definition)
    definition["parameters"]["properties"]["late"] = {"type": "string"}
    assert raw.parameters["properties"] == {}


def test_raw_tool_with_handler_and_options():
    raw = RawTool(BARE_DICT, handler=lambda **kw: sorted(kw), requires_approval=True, timeout=3)
    assert raw.call({"b": 1, "a": 2}) == ["a", "b"]
    assert raw.requires_approval is True
    assert raw.timeout == 3.0
    assert raw.parallel_safe is False
    assert raw.is_async is False
    assert raw.parameters == {"type": "object", "properties": {}}


def test_to_openai_tool_object_runs_through_run():
    raw = as_tool(Calculator())
    assert isinstance(raw, RawTool)
    assert raw.name == "calculator"
    assert raw.is_async is False
    assert raw.call(raw.validate('{"a": 2, "b": 5}')) == 7


async def test_to_openai_tool_object_without_run_uses_call():
    raw = as_tool(Echo())
    assert raw.is_async is True
    pending = raw.call({"q": 1})
    assert inspect.iscoroutine(pending)
    assert await pending == {"q": 1}


@pytest.mark.parametrize(
    "definition",
    [
        {"name": "bad name"},
        {"function": "not a dict"},
        {"name": "x", "parameters": {"type": "array"}},
        {"name": "x", "description": 3},
    ],
)
def test_invalid_raw_definitions_are_configuration_errors(definition):
    with pytest.raises(ConfigurationError):
        as_tool(definition)


@pytest.mark.parametrize("obj", [42, "search", None, {"description": "no name"}, FunctionTool])
def test_anything_else_is_a_type_error_naming_the_object(obj):
    with pytest.raises(TypeError, match="cannot use .* as a tool") as excinfo:
        as_tool(obj)
    assert repr(obj) in str(excinfo.value)
    with pytest.raises(TypeError, match="as a tool"):
        ToolRegistry([obj])
