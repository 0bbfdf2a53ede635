"""Turning a Python signature into a tool's JSON schema and argument validator.

A pydantic model is built from the parameters (their annotations, defaults and
docstring descriptions); its JSON schema, with pydantic's redundant titles
removed, is what the model sees, and validating against it produces the
arguments the function is called with. ``*args: T`` is offered as an array of
``T`` under the parameter's name and spread positionally; ``**kwargs: T`` as
``additionalProperties`` of ``T``, each extra key passed as a keyword.
"""

from __future__ import annotations

import functools
import inspect
import re
import threading
import types
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo

from praisonlike.errors import ConfigurationError, ToolError
from praisonlike.tools._schema_cleanup import clean_schema
from praisonlike.tools.arguments import argument_problems_error
from praisonlike.tools.callables import unwrap_callable
from praisonlike.tools.run_context import RunContext, is_run_context_annotation

SCHEMA_ECHO_KEYS = frozenset({"properties", "required", "additionalProperties", "$defs"})
"""Keys ``**kwargs`` never take: the keywords of the arguments' own schema, which a
small model writes back as argument names instead of calling the tool."""
_RUN_CONTEXT_TEXT = re.compile(r"^\s*(?:[\w.]+\.)?RunContext\b")


@dataclass(frozen=True)
class _Parameter:
    name: str
    field: str
    null_means_default: bool
    always_pass: bool


class ArgumentSchema:
    """The arguments of one function as a tool sees them.

    ``parameters`` is the JSON schema offered to the model (an object schema
    with ``properties``, ``required`` and, when needed, ``$defs``).
    ``context_parameter`` is the name of the ``RunContext`` parameter, if any.
    """

    def __init__(
        self,
        tool_name: str,
        model: type[BaseModel],
        parameters: list[_Parameter],
        context_parameter: str | None,
        positional: list[tuple[str, Any]],
        var_positional: str | None = None,
        reserved: frozenset[str] = frozenset(),
    ) -> None:
        self.tool_name = tool_name
        self.model = model
        self.context_parameter = context_parameter
        self._parameters = parameters
        self._by_name = {parameter.name: parameter for parameter in parameters}
        self._positional = positional
        self._var_positional = var_positional
        self._reserved = reserved
        """Keys ``**kwargs`` must not take: bound by a partial, the RunContext's, and
        :data:`SCHEMA_ECHO_KEYS`."""
        self.parameters = clean_schema(model.model_json_schema())

    @property
    def names(self) -> list[str]:
        """The exposed parameter names, in signature order."""
        return [parameter.name for parameter in self._parameters]

    def validate(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """Validate parsed arguments; return the keyword arguments to call with.

        Arguments the model left out are left out here too, so the function's
        own defaults apply. An explicit ``null`` for a parameter that has a
        default but does not accept ``None`` counts as left out.

        Raises:
            ToolArgumentError: listing every problem with its location.
        """
        cleaned = {
            key: value
            for key, value in data.items()
            if not (
                value is None and key in self._by_name and self._by_name[key].null_means_default
            )
        }
        try:
            instance = self.model.model_validate(cleaned)
        except ValidationError as exc:
            errors = exc.errors(include_url=False, include_context=False)
            raise argument_problems_error(self.tool_name, errors, self.names) from None
        provided = instance.model_fields_set
        values = {
            parameter.name: getattr(instance, parameter.field)
            for parameter in self._parameters
            if parameter.field in provided or parameter.always_pass
        }
        if instance.model_extra:
            reserved = [key for key in instance.model_extra if key in self._reserved]
            if reserved:
                problems = [
                    {"type": "reserved", "loc": (k,), "msg": self._refusal(k)} for k in reserved
                ]
                raise argument_problems_error(self.tool_name, problems, self.names)
            values.update(instance.model_extra)
        return values

    def _refusal(self, key: str) -> str:
        """Why ``**kwargs`` does not take ``key``, for the model to read."""
        if key in SCHEMA_ECHO_KEYS:
            named = ", ".join(self.names) or "none"
            return (
                "a keyword of this tool's schema, not an argument: send each argument under "
                f"its own name (named ones: {named}; any other name is passed on as well)"
            )
        return "set by the application, not by the call: leave it out"

    def call(self, func: Any, arguments: Mapping[str, Any], context: RunContext[Any] | None) -> Any:
        """Call ``func`` with validated ``arguments``, injecting ``context`` if it asks for one.

        Raises:
            ToolError: the function takes a ``RunContext`` and ``context`` is ``None``.
        """
        values = dict(arguments)
        if self.context_parameter is not None:
            if context is None:
                raise ToolError(
                    f"tool '{self.tool_name}' takes a RunContext but none was given",
                    tool_name=self.tool_name,
                )
            values[self.context_parameter] = context
        positional = [
            values.pop(name) if name in values else default for name, default in self._positional
        ]
        if self._var_positional is not None:
            positional.extend(values.pop(self._var_positional, ()))
        return func(*positional, **values)


_known_schemas: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], ArgumentSchema]] = (
    weakref.WeakKeyDictionary()
)
_known_schemas_lock = threading.Lock()


def argument_schema_for(
    func: Any,
    *,
    tool_name: str,
    descriptions: Mapping[str, str],
    local_names: Mapping[str, Any] | None = None,
) -> ArgumentSchema:
    """:func:`build_argument_schema`, built once per function while the function lives.

    A program that builds an agent per conversation wraps the same functions
    again and again; their schemas (a pydantic model each, about 1 ms to
    build) are shared instead. Not remembered: a function whose annotations
    need its caller's local names, and one that cannot be weakly referenced.
    A function's signature is assumed not to change once it is offered as a tool.
    """
    if local_names:
        return build_argument_schema(
            func, tool_name=tool_name, descriptions=descriptions, local_names=local_names
        )
    key = (tool_name, tuple(sorted(descriptions.items())))
    try:
        with _known_schemas_lock:
            known = _known_schemas.get(func, {}).get(key)
    except TypeError:  # unhashable, or no weak reference possible
        known = None
    if known is not None:
        return known
    schema = build_argument_schema(func, tool_name=tool_name, descriptions=descriptions)
    try:
        with _known_schemas_lock:
            _known_schemas.setdefault(func, {})[key] = schema
    except TypeError:
        pass
    return schema


def build_argument_schema(
    func: Any,
    *,
    tool_name: str,
    descriptions: Mapping[str, str],
    local_names: Mapping[str, Any] | None = None,
) -> ArgumentSchema:
    """Inspect ``func`` and build its :class:`ArgumentSchema`.

    Keywords already bound by a ``functools.partial`` are not exposed; the
    ``RunContext`` parameter is excluded from the schema. With ``*args``, the
    parameters before it are passed positionally.
    String annotations are evaluated in the function's module, its closure and
    ``local_names`` (see :func:`caller_local_names`).

    Raises:
        ConfigurationError: the signature cannot be read, an annotation cannot be
            resolved, or a type has no JSON schema.
    """
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"cannot read the signature of tool '{tool_name}': {exc}") from exc
    bound = set(func.keywords) if isinstance(func, functools.partial) else set()
    target = unwrap_callable(func)
    namespace = {**(local_names or {}), **_closure(target)}
    context_parameter: str | None = None
    parameters: list[_Parameter] = []
    fields: dict[str, Any] = {}
    positional: list[tuple[str, Any]] = []
    var_positional: str | None = None
    extras: Any = None
    spread = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    for parameter in signature.parameters.values():
        if parameter.name in bound:
            continue
        if parameter.kind is parameter.POSITIONAL_ONLY or (
            spread and parameter.kind is parameter.POSITIONAL_OR_KEYWORD
        ):
            positional.append((parameter.name, parameter.default))
        annotation = _resolve(target, parameter, tool_name, namespace)
        if parameter.kind is parameter.VAR_KEYWORD:
            extras = annotation
            continue
        if annotation is RunContext:
            if context_parameter is not None:
                raise ConfigurationError(
                    f"tool '{tool_name}' declares more than one RunContext parameter"
                )
            context_parameter = parameter.name
            continue
        field_name = f"arg_{len(parameters)}"
        if parameter.kind is parameter.VAR_POSITIONAL:
            var_positional = parameter.name
        fields[field_name] = _field(annotation, parameter, descriptions.get(parameter.name))
        parameters.append(
            _Parameter(
                name=parameter.name,
                field=field_name,
                null_means_default=parameter.default is not parameter.empty
                and not _admits_none(annotation),
                always_pass=isinstance(parameter.default, FieldInfo),
            )
        )
    try:
        model = create_model(tool_name, __base__=_base_model(tool_name, extras), **fields)
        reserved = frozenset(
            {*bound, *([context_parameter] if context_parameter else []), *SCHEMA_ECHO_KEYS}
        )
        return ArgumentSchema(
            tool_name, model, parameters, context_parameter, positional, var_positional, reserved
        )
    except Exception as exc:
        culprit = _undescribable(fields, parameters)
        if culprit is not None:
            name, annotation = culprit
            raise ConfigurationError(
                f"tool '{tool_name}': parameter '{name}' is annotated "
                f"{_type_name(annotation)}, which has no JSON schema: annotate it with a "
                "JSON type (str, int, float, bool, list[...], dict[str, ...]), an Enum, a "
                "Literal, a dataclass, a TypedDict or a pydantic model"
            ) from exc
        raise ConfigurationError(
            f"cannot build the argument schema of tool '{tool_name}': {exc}"
        ) from exc


def _undescribable(fields: dict[str, Any], parameters: list[_Parameter]) -> tuple[str, Any] | None:
    """The first parameter whose annotation pydantic cannot give a JSON schema, with it."""
    for parameter in parameters:
        annotation = fields[parameter.field][0]
        try:
            TypeAdapter(annotation).json_schema()
        except Exception:
            return parameter.name, annotation
    return None


def _type_name(annotation: Any) -> str:
    """``annotation`` as written in code: ``dict[str, Opaque]``, without module paths."""
    plain_class = isinstance(annotation, type) and get_origin(annotation) is None
    return annotation.__name__ if plain_class else _QUALIFIER.sub("", repr(annotation))


_QUALIFIER = re.compile(r"[\w.<>]+\.(?=\w)")


def _base_model(tool_name: str, extras: Any) -> type[BaseModel]:
    """The arguments model's base: no other keys, or (for ``**kwargs: T``) any key of type T."""
    if extras is None:
        namespace: dict[str, Any] = {"model_config": ConfigDict(extra="forbid")}
    else:
        namespace = {"model_config": ConfigDict(extra="allow")}
        if extras is not Any:
            namespace["__annotations__"] = {"__pydantic_extra__": dict[str, extras]}
    return type(tool_name, (BaseModel,), {"__module__": __name__, **namespace})


def _resolve(
    target: Any, parameter: inspect.Parameter, tool_name: str, namespace: dict[str, Any]
) -> Any:
    """The parameter's annotation as an object (``Any`` if absent); ``RunContext`` for one."""
    annotation = parameter.annotation
    if annotation is parameter.empty:
        return Any
    if isinstance(annotation, str):
        try:
            annotation = eval(annotation, getattr(target, "__globals__", {}), namespace)
        except Exception as exc:
            if _RUN_CONTEXT_TEXT.match(annotation):
                return RunContext
            raise ConfigurationError(
                f"cannot resolve the annotation {parameter.annotation!r} of parameter "
                f"'{parameter.name}' of tool '{tool_name}': {exc}"
            ) from exc
    return RunContext if is_run_context_annotation(annotation) else annotation


def _closure(target: Any) -> dict[str, Any]:
    try:
        return dict(inspect.getclosurevars(target).nonlocals)
    except (TypeError, ValueError):
        return {}


def _field(annotation: Any, parameter: inspect.Parameter, doc: str | None) -> tuple[Any, Any]:
    default = parameter.default
    explicit: list[FieldInfo] = [default] if isinstance(default, FieldInfo) else []
    if get_origin(annotation) is Annotated:
        explicit += [item for item in get_args(annotation)[1:] if isinstance(item, FieldInfo)]
    options: dict[str, Any] = {"alias": parameter.name}
    if doc and not any(info.description for info in explicit):
        options["description"] = doc
    if parameter.kind is parameter.VAR_POSITIONAL:
        return list[annotation], Field(default_factory=list, **options)
    if isinstance(default, FieldInfo):
        return Annotated[annotation, default], Field(**options)
    if default is parameter.empty:
        return annotation, Field(**options)
    return annotation, Field(default, **options)


def _admits_none(annotation: Any) -> bool:
    if annotation is Any or annotation is None or annotation is type(None):
        return True
    origin = get_origin(annotation)
    if origin is Annotated:
        return _admits_none(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return any(_admits_none(arg) for arg in get_args(annotation))
    return False
