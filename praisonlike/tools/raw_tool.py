"""Tools defined by a JSON schema rather than by a Python signature."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from praisonlike.errors import ConfigurationError, ToolError
from praisonlike.tools.arguments import argument_problems_error, parse_arguments
from praisonlike.tools.callables import check_timeout, check_tool_name, is_async_callable
from praisonlike.tools.run_context import RunContext


def openai_function_schema(
    name: str, description: str, parameters: dict[str, Any]
) -> dict[str, Any]:
    """The OpenAI ``tools`` entry for one function."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


class RawTool:
    """A tool given as an OpenAI function definition, optionally with a handler.

    ``schema`` is ``{"type": "function", "function": {...}}`` or the bare
    ``{"name", "description", "parameters"}``; it is copied, so later changes
    to the caller's dict have no effect. Without ``handler`` the tool can be
    offered to the model but :meth:`call` raises.

    Attributes are those of :class:`~praisonlike.tools.python_tool.FunctionTool`:
    ``name``, ``description``, ``parameters``, ``is_async``, ``requires_approval``,
    ``parallel_safe``, ``timeout``; plus ``handler``.

    Raises:
        ConfigurationError: the definition has no valid name, a non-string
            description, or parameters that are not an object schema.
    """

    def __init__(
        self,
        schema: Mapping[str, Any],
        handler: Callable[..., Any] | None = None,
        *,
        requires_approval: bool = False,
        parallel_safe: bool = False,
        timeout: float | None = None,
    ) -> None:
        if not isinstance(schema, Mapping):
            raise ConfigurationError(f"a raw tool definition must be a dict, got {schema!r}")
        spec = schema.get("function", schema)
        if not isinstance(spec, Mapping):
            raise ConfigurationError(f"the 'function' entry of a tool must be a dict, got {spec!r}")
        self.name = check_tool_name(spec.get("name"))
        description = spec.get("description") or ""
        if not isinstance(description, str):
            raise ConfigurationError(f"the description of tool '{self.name}' must be a string")
        self.description = description
        self.parameters = _object_schema(self.name, spec.get("parameters"))
        self.handler = handler
        self.is_async = handler is not None and is_async_callable(handler)
        self.requires_approval = requires_approval
        self.parallel_safe = parallel_safe
        self.timeout = check_timeout(timeout)
        self._openai_schema: dict[str, Any] | None = None

    def openai_schema(self) -> dict[str, Any]:
        """``{"type": "function", "function": {name, description, parameters}}``; built once."""
        if self._openai_schema is None:
            self._openai_schema = openai_function_schema(
                self.name, self.description, self.parameters
            )
        return self._openai_schema

    def validate(self, raw_arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
        """Parse the arguments and check them against the top level of the schema.

        Checks: a JSON object; every ``required`` key present; no unknown key when
        ``additionalProperties`` is ``false``; each property's JSON ``type`` and
        ``enum`` when the schema gives them. Nested values are not checked.

        Raises:
            ToolArgumentError: listing every problem found.
        """
        data = parse_arguments(self.name, raw_arguments)
        properties: Mapping[str, Any] = self.parameters.get("properties") or {}
        errors: list[dict[str, Any]] = []
        for key in self.parameters.get("required") or ():
            if key not in data:
                errors.append({"loc": (key,), "type": "missing", "msg": "Field required"})
        for key, value in data.items():
            prop = properties.get(key)
            if prop is None:
                if self.parameters.get("additionalProperties") is False:
                    errors.append(
                        {"loc": (key,), "type": "extra_forbidden", "msg": "unknown argument"}
                    )
                continue
            problem = _value_problem(prop, value) if isinstance(prop, Mapping) else None
            if problem is not None:
                errors.append(
                    {"loc": (key,), "type": "value_error", "msg": problem, "input": value}
                )
        if errors:
            raise argument_problems_error(self.name, errors, list(properties))
        return data

    def call(self, arguments: Mapping[str, Any], context: RunContext[Any] | None = None) -> Any:
        """Call the handler with ``arguments`` as keywords; ``context`` is not passed.

        For an async handler the coroutine is returned unawaited.

        Raises:
            ToolError: the tool has no handler.
        """
        if self.handler is None:
            raise ToolError(f"tool {self.name} has no implementation", tool_name=self.name)
        return self.handler(**arguments)

    def __repr__(self) -> str:
        return f"RawTool(name={self.name!r})"


def _object_schema(name: str, parameters: Any) -> dict[str, Any]:
    if parameters is None:
        return {"type": "object", "properties": {}}
    if not isinstance(parameters, Mapping) or parameters.get("type", "object") != "object":
        raise ConfigurationError(
            f"the parameters of tool '{name}' must be a JSON object schema, got {parameters!r}"
        )
    schema = copy.deepcopy(dict(parameters))
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema


def _value_problem(prop: Mapping[str, Any], value: Any) -> str | None:
    declared = prop.get("type")
    names = [declared] if isinstance(declared, str) else list(declared or ())
    known = [name for name in names if name in _JSON_TYPES]
    if known and not any(_is_json_type(value, name) for name in known):
        return f"Input should be of JSON type {' or '.join(known)}"
    choices = prop.get("enum")
    if isinstance(choices, list) and value not in choices:
        return "Input should be one of " + ", ".join(repr(choice) for choice in choices)
    return None


def _is_json_type(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    return isinstance(value, _JSON_TYPES[name])
