"""@tool, calling tools, async tools and RunContext injection.

This module uses postponed annotations, so every annotation below is a string
that the tool machinery has to resolve.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from praisonlike import Agent
from praisonlike.errors import ConfigurationError, ToolError
from praisonlike.testing import TestModel
from praisonlike.tools import FunctionTool, RunContext, ToolArgumentError, function_tool, tool


class Order(BaseModel):
    item: str
    quantity: int = 1


@dataclass
class Deps:
    user: str


def make_context(deps: object = None, **extra: object) -> RunContext:
    return RunContext(run_id="run-1", tool_call_id="call-7", deps=deps, **extra)  # type: ignore[arg-type]


def test_bare_decorator_keeps_function_callable():
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    assert isinstance(add, FunctionTool)
    assert add(2, 3) == 5
    assert add.__name__ == "add"
    assert add.__doc__ == "Add two numbers."
    assert list(inspect.signature(add).parameters) == ["a", "b"]
    assert add.name == "add"
    assert add.is_async is False
    assert (add.requires_approval, add.parallel_safe, add.timeout) == (False, False, None)


def test_decorator_with_overrides():
    @tool(
        name="sum_numbers",
        description="Sums.",
        requires_approval=True,
        parallel_safe=True,
        timeout=2,
    )
    def add(a: int, b: int) -> int:
        """Ignored docstring."""
        return a + b

    assert add.name == "sum_numbers"
    assert add.openai_schema()["function"]["name"] == "sum_numbers"
    assert add.description == "Sums."
    assert add.requires_approval is True
    assert add.parallel_safe is True
    assert add.timeout == 2.0
    assert add(1, 1) == 2
    assert tool is function_tool


@pytest.mark.parametrize("bad", [0, -1, "5", True])
def test_invalid_timeout_is_rejected(bad):
    def f() -> None:
        """F."""

    with pytest.raises(ConfigurationError, match="timeout"):
        tool(timeout=bad)(f)


def test_wrapping_a_tool_again_rewraps_the_function():
    @tool
    def f(x: int) -> int:
        """F."""
        return x

    renamed = function_tool(f, name="g")
    assert renamed.name == "g"
    assert renamed.func is f.func


def test_call_uses_validated_arguments_and_function_defaults():
    @tool
    def place(order: Order, note: str = "none") -> str:
        """Place an order."""
        return f"{order.item}x{order.quantity} ({note})"

    arguments = place.validate('{"order": {"item": "tea"}}')
    assert isinstance(arguments["order"], Order)
    assert "note" not in arguments
    assert place.call(arguments) == "teax1 (none)"


def test_string_annotations_resolve_module_and_enclosing_function_names():
    class Local(BaseModel):
        value: int

    @tool
    def f(item: Local, order: Order) -> int:
        """F."""
        return item.value + order.quantity

    arguments = f.validate({"item": {"value": 2}, "order": {"item": "x", "quantity": 3}})
    assert f.call(arguments) == 5


def test_unresolvable_annotation_is_a_configuration_error():
    @tool
    def f(x: DoesNotExist) -> None:  # type: ignore[name-defined]  # noqa: F821
        """F."""

    with pytest.raises(ConfigurationError, match="DoesNotExist"):
        f.openai_schema()


def test_run_context_is_injected_and_excluded():
    seen: list[RunContext[Deps]] = []

    @tool
    def whoami(ctx: RunContext[Deps], greeting: str = "hi") -> str:
        """Greet the user."""
        seen.append(ctx)
        return f"{greeting} {ctx.deps.user}"

    assert list(whoami.parameters["properties"]) == ["greeting"]
    context = make_context(Deps(user="ada"), attempt=2)
    assert whoami.call(whoami.validate("{}"), context) == "hi ada"
    assert seen == [context]
    assert seen[0].idempotency_key == "run-1:call-7"
    assert seen[0].attempt == 2


def test_context_argument_smuggled_by_the_model_is_rejected():
    @tool
    def f(ctx: RunContext, x: int) -> int:
        """F."""
        return x

    with pytest.raises(Exception, match="ctx: unknown argument"):
        f.validate({"x": 1, "ctx": {"deps": "stolen"}})


def test_missing_context_raises_tool_error():
    @tool
    def f(ctx: RunContext) -> None:
        """F."""

    with pytest.raises(ToolError, match="RunContext"):
        f.call({})


def test_context_is_ignored_by_tools_that_do_not_ask_for_it():
    @tool
    def f(x: int) -> int:
        """F."""
        return x * 2

    assert f.call({"x": 4}, make_context()) == 8


def test_positional_only_parameters_are_passed_positionally():
    def f(a: int, b: int = 10, /, c: int = 100) -> int:
        return a + b + c

    t = FunctionTool(f)
    assert t.call(t.validate({"a": 1})) == 111
    assert t.call(t.validate({"a": 1, "b": 2, "c": 3})) == 6


def test_var_args_are_spread_after_the_parameters_before_them():
    def tag(label: str, *items: str, sep: str = ",") -> str:
        return label + ":" + sep.join(items)

    t = FunctionTool(tag)
    assert t.call(t.validate({"label": "x", "items": ["a", "b"], "sep": "+"})) == "x:a+b"
    assert t.call(t.validate({"label": "x"})) == "x:"
    assert t.call(t.validate({"items": ["a"], "label": "y"})) == "y:a"


def test_var_args_with_a_context_parameter_first():
    def count(ctx: RunContext[str], *xs: int) -> str:
        return f"{ctx.deps}:{sum(xs)}"

    t = FunctionTool(count)
    assert t.call(t.validate({"xs": [1, "2"]}), make_context("d")) == "d:3"


def test_var_kwargs_receive_the_extra_keys_validated_by_their_type():
    def configure(name: str, **limits: int) -> dict[str, object]:
        return {"name": name, **limits}

    t = FunctionTool(configure)
    assert t.call(t.validate({"name": "n", "cpu": "2", "memory": 512})) == {
        "name": "n",
        "cpu": 2,
        "memory": 512,
    }
    with pytest.raises(ToolArgumentError, match="cpu"):
        t.validate({"name": "n", "cpu": "lots"})


def test_var_kwargs_never_take_a_partial_s_bound_keyword_or_the_context() -> None:
    def call_service(query: str, ctx: RunContext[str], **options: str) -> str:
        return f"{ctx.deps}:{query}:{sorted(options.items())}"

    t = FunctionTool(functools.partial(call_service, api_key="secret"), name="call_service")
    assert t.call(t.validate({"query": "q", "lang": "en"}), make_context("d")) == (
        "d:q:[('api_key', 'secret'), ('lang', 'en')]"
    )
    for key in ("api_key", "ctx"):
        with pytest.raises(ToolArgumentError, match=f"- {key}: set by the application"):
            t.validate({"query": "q", key: "from the model"})


def test_var_kwargs_never_take_the_keywords_of_the_tools_own_schema() -> None:
    """Qwen2.5-Coder-0.5B called tag_photo(photo=..., required="photo",
    additionalProperties="Nice and season=summer"): its schema, written back."""

    def tag_photo(photo: str, **labels: str) -> str:
        return f"{photo}:{sorted(labels.items())}"

    t = FunctionTool(tag_photo)
    for key in ("required", "additionalProperties", "properties", "$defs"):
        with pytest.raises(ToolArgumentError) as refused:
            t.validate({"photo": "beach.jpg", key: "x"})
        assert f"- {key}: a keyword of this tool's schema, not an argument" in str(refused.value)
        assert "(named ones: photo; any other name is passed on as well)" in str(refused.value)
    assert t.call(t.validate({"photo": "p", "type": "portrait"})) == "p:[('type', 'portrait')]"


def test_extra_keys_are_refused_without_var_kwargs():
    def f(a: int) -> int:
        return a

    t = FunctionTool(f)
    with pytest.raises(ToolArgumentError, match="- b: unknown argument; this tool accepts only: a"):
        t.validate({"a": 1, "b": 2})


def test_generator_functions_are_refused_as_tools_naming_what_to_return() -> None:
    def lines(n: int) -> Iterator[str]:
        """Lines."""
        yield from (f"line {i}" for i in range(n))

    async def alines(n: int) -> AsyncIterator[str]:
        """Lines."""
        yield "a"

    class Source:
        def rows(self) -> Iterator[int]:
            """Rows."""
            yield 1

    for generator, kind in ((lines, "a generator"), (alines, "an async generator")):
        with pytest.raises(ConfigurationError, match=f"tool 'tool_x' is {kind} function"):
            FunctionTool(generator, name="tool_x")
    with pytest.raises(ConfigurationError, match="return the items as a list"):
        tool(Source().rows)
    with pytest.raises(ConfigurationError, match="tool 'lines' is a generator function"):
        Agent(instructions="x", llm=TestModel(), tools=[functools.partial(lines, 3)])


async def test_async_function_returns_coroutine_to_await():
    @tool
    async def fetch(url: str, ctx: RunContext[str]) -> str:
        """Fetch a URL."""
        await asyncio.sleep(0)
        return f"{ctx.deps}:{url}"

    assert fetch.is_async is True
    assert list(fetch.parameters["properties"]) == ["url"]
    pending = fetch.call(fetch.validate('{"url": "u"}'), make_context("token"))
    assert inspect.iscoroutine(pending)
    assert await pending == "token:u"


async def test_async_partial_bound_method_and_callable_instance_are_async():
    class Client:
        async def get(self, path: str, retries: int = 0) -> str:
            """Get a path."""
            return f"{path}:{retries}"

        async def __call__(self, q: str) -> str:
            return q

    client = Client()
    method = FunctionTool(client.get)
    partial = FunctionTool(functools.partial(client.get, retries=3))
    instance = FunctionTool(client, name="client")
    assert method.is_async and partial.is_async and instance.is_async
    assert await method.call({"path": "/a"}) == "/a:0"
    assert await partial.call(partial.validate({"path": "/b"})) == "/b:3"
    assert await instance.call({"q": "x"}) == "x"


def test_tool_on_a_method_binds_to_the_instance():
    class Shop:
        def __init__(self) -> None:
            self.stock = {"tea": 3}

        @tool(requires_approval=True)
        def stock_of(self, item: str) -> int:
            """How many are in stock."""
            return self.stock[item]

    shop = Shop()
    bound = shop.stock_of
    assert isinstance(bound, FunctionTool)
    assert list(bound.parameters["properties"]) == ["item"]
    assert bound.requires_approval is True
    assert bound.description == "How many are in stock."
    assert bound.call(bound.validate({"item": "tea"})) == 3
    assert shop.stock_of("tea") == 3


def test_exceptions_from_the_function_propagate():
    @tool
    def boom() -> None:
        """Fail."""
        raise LookupError("nope")

    with pytest.raises(LookupError, match="nope"):
        boom.call({})


def test_classes_and_non_callables_are_not_function_tools():
    with pytest.raises(TypeError):
        FunctionTool(Order)
    with pytest.raises(TypeError):
        FunctionTool(42)
