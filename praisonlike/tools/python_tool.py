"""Python functions as tools: the :class:`FunctionTool` wrapper, ``@tool`` and :func:`as_tool`."""

from __future__ import annotations

import functools
import inspect
import io
import itertools
import types
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, overload

from praisonlike.tools.arguments import ToolArgumentError, parse_arguments
from praisonlike.tools.callables import (
    caller_local_names,
    check_not_generator,
    check_timeout,
    check_tool_name,
    is_async_callable,
)
from praisonlike.tools.docstrings import parse_docstring
from praisonlike.tools.raw_tool import RawTool, openai_function_schema
from praisonlike.tools.run_context import RunContext

if TYPE_CHECKING:
    from praisonlike.tools.schema import ArgumentSchema

__all__ = ["AnyTool", "FunctionTool", "ToolArgumentError", "as_tool", "function_tool", "tool"]

MAX_ITEMS_READ = 10_000
"""Items a tool's returned iterator (a generator, ``map``, ``filter``, ...) is read to."""


class FunctionTool:
    """A Python callable offered to the model as a function tool.

    The JSON schema comes from the signature, type hints and docstring (see
    :mod:`praisonlike.tools.schema`); it is built on first use and cached, so an
    annotation that cannot be resolved raises :class:`~praisonlike.errors.ConfigurationError`
    from ``parameters``/``openai_schema()``/``validate()``, not at decoration.
    A ``FunctionTool`` stays callable like the function it wraps.

    Attributes:
        func: the wrapped callable.
        name: the function name the model calls.
        description: the docstring's description, or the ``description=`` override.
        is_async: ``call()`` returns a coroutine that the caller must await.
        requires_approval: the tool loop must ask for approval before running it.
        parallel_safe: the tool may run concurrently with other calls of the same turn.
        timeout: seconds allowed per call, overriding the agent's ``tool_timeout``.
    """

    func: Callable[..., Any]

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        requires_approval: bool = False,
        parallel_safe: bool = False,
        timeout: float | None = None,
    ) -> None:
        if isinstance(func, FunctionTool):
            func = func.func
        if not callable(func) or isinstance(func, type):
            raise TypeError(f"a tool must be a function or callable instance, got {func!r}")
        functools.update_wrapper(self, func, updated=())
        self.func = func
        self.name = check_tool_name(name if name is not None else _default_name(func))
        check_not_generator(func, self.name)
        self._docstring = parse_docstring(_docstring(func))
        self.description = description if description is not None else self._docstring.description
        self.requires_approval = requires_approval
        self.parallel_safe = parallel_safe
        self.timeout = check_timeout(timeout)
        self.is_async = is_async_callable(func)
        self._explicit_description = description
        self._local_names = caller_local_names(func)
        self._openai_schema: dict[str, Any] | None = None

    @functools.cached_property
    def _arguments(self) -> ArgumentSchema:
        from praisonlike.tools.schema import argument_schema_for

        return argument_schema_for(
            self.func,
            tool_name=self.name,
            descriptions=self._docstring.params,
            local_names=self._local_names,
        )

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON schema of the arguments: an object schema. Treat it as read-only."""
        return self._arguments.parameters

    @property
    def context_parameter(self) -> str | None:
        """The name of the parameter that receives the :class:`RunContext`, if any."""
        return self._arguments.context_parameter

    def openai_schema(self) -> dict[str, Any]:
        """``{"type": "function", "function": {name, description, parameters}}``.

        Built once; the same dict is returned on every call, so do not mutate it.
        """
        if self._openai_schema is None:
            self._openai_schema = openai_function_schema(
                self.name, self.description, self.parameters
            )
        return self._openai_schema

    def validate(self, raw_arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
        """Parse and validate the model's arguments; return the keyword arguments to call with.

        JSON text is parsed (``None``, ``""`` and ``null`` mean no arguments),
        then validated against the signature, so pydantic models, dataclasses
        and enums arrive instantiated. Omitted optional arguments are left out,
        letting the function's defaults apply.

        Raises:
            ToolArgumentError: for malformed JSON (with the error position), a
                non-object value, or missing, unknown or ill-typed arguments.
        """
        return self._arguments.validate(parse_arguments(self.name, raw_arguments))

    def call(self, arguments: Mapping[str, Any], context: RunContext[Any] | None = None) -> Any:
        """Run the function with validated ``arguments``.

        ``context`` is passed to the ``RunContext`` parameter if the function
        declares one. For an async function the coroutine is returned unawaited.
        A lazy iterator the function returns (a generator object, ``map``,
        ``filter``, ``zip``; not a file) is read here, in the tool's own thread
        and time limit, into a list of at most :data:`MAX_ITEMS_READ` items (a
        last item then says where reading stopped), so the model sees the items
        rather than ``<generator object ...>``. Exceptions of the function,
        and those raised while its iterator is read, propagate unchanged.

        Raises:
            ToolError: the function needs a ``RunContext`` and ``context`` is ``None``.
        """
        result = self._arguments.call(self.func, arguments, context)
        if isinstance(result, Iterator) and not isinstance(result, io.IOBase):
            return _read_items(result)
        return result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    def __get__(self, instance: Any, owner: type | None = None) -> FunctionTool:
        if instance is None:
            return self
        return FunctionTool(
            types.MethodType(self.func, instance),
            name=self.name,
            description=self._explicit_description,
            requires_approval=self.requires_approval,
            parallel_safe=self.parallel_safe,
            timeout=self.timeout,
        )

    def __repr__(self) -> str:
        return f"FunctionTool(name={self.name!r})"


def _read_items(items: Iterator[Any]) -> list[Any]:
    read = list(itertools.islice(items, MAX_ITEMS_READ + 1))
    if len(read) > MAX_ITEMS_READ:
        read[MAX_ITEMS_READ:] = [f"(stopped reading the tool's items after {MAX_ITEMS_READ})"]
    return read


AnyTool = FunctionTool | RawTool
"""What :func:`as_tool` returns and a :class:`~praisonlike.tools.registry.ToolRegistry` holds."""


@overload
def function_tool(
    func: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
    parallel_safe: bool = False,
    timeout: float | None = None,
) -> FunctionTool: ...


@overload
def function_tool(
    func: None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
    parallel_safe: bool = False,
    timeout: float | None = None,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def function_tool(
    func: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
    parallel_safe: bool = False,
    timeout: float | None = None,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a :class:`FunctionTool`; usable as ``@tool`` and as ``@tool(name=..., ...)``."""

    def wrap(target: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(
            target,
            name=name,
            description=description,
            requires_approval=requires_approval,
            parallel_safe=parallel_safe,
            timeout=timeout,
        )

    return wrap if func is None else wrap(func)


tool = function_tool


def as_tool(obj: Any) -> AnyTool:
    """Normalise one entry of ``Agent(tools=[...])``.

    Accepted: :class:`FunctionTool` and :class:`RawTool` (returned as is);
    OpenAI tool dicts, ``{"type": "function", "function": {...}}`` or the bare
    ``{"name", "description", "parameters"}`` (a :class:`RawTool` without a
    handler); objects with a ``to_openai_tool()`` method (a :class:`RawTool`
    run through their ``run(**kwargs)``, else their ``__call__``); and plain
    callables: functions, async functions, ``functools.partial``, bound
    methods and callable instances.

    Raises:
        TypeError: naming ``obj`` when it is none of these.
        ConfigurationError: the object is a tool but its definition is invalid.
    """
    if isinstance(obj, (FunctionTool, RawTool)):
        return obj
    if isinstance(obj, Mapping):
        if "function" in obj or "name" in obj:
            return RawTool(obj)
        raise TypeError(f"cannot use {obj!r} as a tool: a tool dict needs 'name' or 'function'")
    if not isinstance(obj, type):
        to_openai_tool = getattr(obj, "to_openai_tool", None)
        if callable(to_openai_tool):
            run = getattr(obj, "run", None)
            handler = run if callable(run) else obj if callable(obj) else None
            return RawTool(to_openai_tool(), handler)
        if callable(obj):
            return FunctionTool(obj)
    raise TypeError(
        f"cannot use {obj!r} as a tool: expected a function, a FunctionTool, an OpenAI "
        "tool dict or an object with a to_openai_tool() method"
    )


def _unpartial(func: Any) -> Any:
    while isinstance(func, functools.partial):
        func = func.func
    return func


def _default_name(func: Any) -> str:
    base = _unpartial(func)
    if inspect.isroutine(base):
        return str(getattr(base, "__name__", ""))
    return type(base).__name__


def _docstring(func: Any) -> str | None:
    base = _unpartial(func)
    if inspect.isroutine(base):
        return base.__doc__
    return getattr(type(base).__call__, "__doc__", None) or type(base).__doc__
