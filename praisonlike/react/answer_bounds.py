"""The schema of a structured answer narrowed for its grammar, so a small model
cannot write past the answer until the token cap (see :mod:`praisonlike.react.grammar`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_STRING_LENGTH = 256
"""Characters of a string of the answer whose schema sets no ``maxLength`` (nor a
``pattern``, ``format``, ``enum`` or ``const``)."""
MAX_ITEMS = 32
"""Items of an array of the answer whose schema sets no ``maxItems``."""
MAX_INTEGER = 10**15 - 1
"""The bound, either way, of an integer of the answer whose schema sets none."""

_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMAS = (
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)
_OPEN_OBJECT = ("additionalProperties", "patternProperties", "unevaluatedProperties")
_EXACT = ("enum", "const")
_SHAPED_STRING = ("maxLength", "pattern", "format", *_EXACT)


def bounded_answer_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` narrowed for the grammar of a structured answer; ``schema`` is not
    changed.

    - An object that lists ``properties`` and says nothing of other keys takes only
      those (``additionalProperties: false``). An explicit ``additionalProperties``
      (pydantic's ``extra="allow"`` gives ``true``) or ``patternProperties`` is
      kept, and so is an object inside ``allOf``, which is one part of an
      intersection.
    - A string without ``maxLength``, ``pattern``, ``format``, ``enum`` or
      ``const`` holds at most :data:`MAX_STRING_LENGTH` characters, an array
      without ``maxItems`` at most :data:`MAX_ITEMS` items, and an integer without
      a bound lies within +-:data:`MAX_INTEGER` (15 digits); a lower bound of the
      schema past the cap leaves that value uncapped.

    Every value the result admits is valid under ``schema``.
    """
    return _bounded(schema, in_all_of=False)


def _bounded(schema: Mapping[str, Any], *, in_all_of: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SUBSCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {name: _subschema(sub) for name, sub in value.items()}
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            out[key] = [_subschema(sub, in_all_of=key == "allOf") for sub in value]
        elif key in _SUBSCHEMAS:
            tuple_items = isinstance(value, list)  # draft-04 ``items: [...]``
            out[key] = [_subschema(s) for s in value] if tuple_items else _subschema(value)
        else:
            out[key] = value
    types = out.get("type")
    kinds = set(types) if isinstance(types, list) else {types}
    exact = any(key in out for key in _EXACT)
    if "properties" in out and not in_all_of and not any(key in out for key in _OPEN_OBJECT):
        out["additionalProperties"] = False
    if "string" in kinds and not any(key in out for key in _SHAPED_STRING):
        _cap(out, "maxLength", MAX_STRING_LENGTH, floor="minLength")
    if "array" in kinds and not exact and "maxItems" not in out:
        _cap(out, "maxItems", MAX_ITEMS, floor="minItems")
    if "integer" in kinds and "number" not in kinds and not exact:
        _bound_integer(out)
    return out


def _subschema(schema: Any, *, in_all_of: bool = False) -> Any:
    return _bounded(schema, in_all_of=in_all_of) if isinstance(schema, Mapping) else schema


def _cap(schema: dict[str, Any], key: str, cap: int, *, floor: str) -> None:
    """Set ``schema[key] = cap`` unless ``schema[floor]`` asks for more."""
    least = schema.get(floor, 0)
    if isinstance(least, (int, float)) and least <= cap:
        schema[key] = cap


def _bound_integer(schema: dict[str, Any]) -> None:
    low = _bound(schema, "minimum", "exclusiveMinimum")
    high = _bound(schema, "maximum", "exclusiveMaximum")
    if low is None and (high is None or high >= -MAX_INTEGER):
        schema["minimum"] = -MAX_INTEGER
    if high is None and (low is None or low <= MAX_INTEGER):
        schema["maximum"] = MAX_INTEGER


def _bound(schema: Mapping[str, Any], inclusive: str, exclusive: str) -> float | None:
    """The schema's bound of one side, or ``None`` when it sets none. (A draft-04
    boolean ``exclusive...`` only qualifies the inclusive keyword.)"""
    for key in (inclusive, exclusive):
        value = schema.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None
