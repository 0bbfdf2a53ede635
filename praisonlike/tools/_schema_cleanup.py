"""The JSON schema pydantic writes for a tool's arguments, in the shape providers document.

pydantic titles every property after its name and puts ``title`` first; a tool's
schema needs neither. :func:`clean_schema` drops the generated titles (a title
the user wrote stays) and orders the top level ``type``, ``properties``,
``required``, then the rest.
"""

from __future__ import annotations

from typing import Any

_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "not")


def _auto_title(name: str) -> str:
    return name.title().replace("_", " ")


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop generated titles and put the top level in the order providers document."""
    _strip_titles(schema)
    defs = schema.get("$defs")
    if isinstance(defs, dict):
        for key, definition in defs.items():
            _strip_titles(definition)
            if isinstance(definition, dict) and definition.get("title") == key:
                del definition["title"]
    cleaned: dict[str, Any] = {
        "type": "object",
        "properties": schema.get("properties", {}),
        "required": schema.get("required", []),
    }
    for key, value in schema.items():
        if key not in ("type", "properties", "required", "title"):
            cleaned[key] = value
    return cleaned


def _strip_titles(schema: Any) -> None:
    if not isinstance(schema, dict):
        return
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, prop in properties.items():
            if isinstance(prop, dict) and prop.get("title") == _auto_title(name):
                del prop["title"]
            _strip_titles(prop)
    for key in _SCHEMA_LISTS:
        items = schema.get(key)
        if isinstance(items, list):
            for item in items:
                _strip_titles(item)
    for key in _SCHEMA_VALUES:
        _strip_titles(schema.get(key))
