"""Reading a tool's description and per-argument descriptions out of its docstring.

Google (``Args:``), NumPy (``Parameters`` underlined with dashes) and reST
(``:param x:``) styles are understood, also mixed in one docstring. The
description is everything before the first section; sections that do not
describe parameters (``Returns``, ``Raises``, ``Examples``, ...) are dropped.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_GOOGLE_PARAM_SECTIONS = frozenset(
    {
        "args",
        "arguments",
        "parameters",
        "params",
        "keyword args",
        "keyword arguments",
        "kwargs",
        "other parameters",
    }
)
_GOOGLE_OTHER_SECTIONS = frozenset(
    {
        "returns",
        "return",
        "yields",
        "yield",
        "raises",
        "raise",
        "examples",
        "example",
        "note",
        "notes",
        "attributes",
        "see also",
        "warning",
        "warnings",
        "references",
        "todo",
    }
)
_NUMPY_PARAM_SECTIONS = frozenset({"parameters", "other parameters", "keyword arguments"})

_GOOGLE_HEADER = re.compile(r"^([A-Za-z][A-Za-z ]*?)\s*:\s*$")
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}(\w+)\s*(?:\(.*?\))?\s*:\s*(.*)$")
_NUMPY_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
_NUMPY_ENTRY = re.compile(r"^\*{0,2}(\w+(?:\s*,\s*\*{0,2}\w+)*)\s*(?::.*)?$")
_REST_FIELD = re.compile(r"^:\w+[^:]*:")
_REST_PARAM = re.compile(
    r"^:(?:param|parameter|arg|argument|key|keyword)\s+(?:[^:]*?\s+)?\*{0,2}(\w+)\s*:\s*(.*)$"
)


@dataclass(frozen=True)
class ParsedDocstring:
    """A docstring split into the tool description and the per-parameter descriptions.

    ``params`` maps a parameter name (without ``*``) to its description, with
    continuation lines joined by single spaces. Parameters the docstring does
    not describe are absent.
    """

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(docstring: str | None) -> ParsedDocstring:
    """Split ``docstring`` into description and parameter descriptions; never raises."""
    if not docstring or not docstring.strip():
        return ParsedDocstring()
    lines = inspect.cleandoc(docstring).splitlines()
    sections = _split_sections(lines)
    description = "\n".join(sections[0][1]).strip()
    params: dict[str, str] = {}
    for kind, body in sections[1:]:
        if kind == "google":
            params.update(_google_params(body))
        elif kind == "numpy":
            params.update(_numpy_params(body))
        elif kind == "rest":
            params.update(_rest_params(body))
    return ParsedDocstring(description=description, params=params)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _split_sections(lines: list[str]) -> list[tuple[str, list[str]]]:
    """Cut the lines into ``(kind, body)`` runs; the first run is the description.

    ``kind`` is ``"google"``/``"numpy"``/``"rest"`` for parameter sections,
    ``"other"`` for sections whose content is ignored.
    """
    sections: list[tuple[str, list[str]]] = [("description", [])]
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        heading = stripped.lower()
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if _indent(line) == 0 and stripped and _NUMPY_UNDERLINE.match(following):
            kind = "numpy" if heading in _NUMPY_PARAM_SECTIONS else "other"
            sections.append((kind, []))
            index += 2
            continue
        google = _GOOGLE_HEADER.match(line)
        if google:
            name = google.group(1).lower()
            if name in _GOOGLE_PARAM_SECTIONS or name in _GOOGLE_OTHER_SECTIONS:
                sections.append(("google" if name in _GOOGLE_PARAM_SECTIONS else "other", []))
                index += 1
                continue
        if _REST_FIELD.match(line):
            if sections[-1][0] != "rest":
                sections.append(("rest", []))
        elif sections[-1][0] == "rest" and stripped and _indent(line) == 0:
            sections.append(("other", []))
        sections[-1][1].append(line)
        index += 1
    return sections


def _collect(entries: list[tuple[str, list[str]]]) -> dict[str, str]:
    return {name: " ".join(part.strip() for part in text if part.strip()) for name, text in entries}


def _google_params(body: list[str]) -> dict[str, str]:
    entries: list[tuple[str, list[str]]] = []
    base = min((_indent(line) for line in body if line.strip()), default=0)
    for line in body:
        if not line.strip():
            continue
        match = _GOOGLE_ENTRY.match(line.strip()) if _indent(line) == base else None
        if match:
            entries.append((match.group(1), [match.group(2)]))
        elif entries and _indent(line) > base:
            entries[-1][1].append(line)
    return _collect(entries)


def _numpy_params(body: list[str]) -> dict[str, str]:
    entries: list[tuple[list[str], list[str]]] = []
    base = min((_indent(line) for line in body if line.strip()), default=0)
    for line in body:
        if not line.strip():
            continue
        match = _NUMPY_ENTRY.match(line.strip()) if _indent(line) == base else None
        if match:
            names = [name.strip().lstrip("*") for name in match.group(1).split(",")]
            entries.append((names, []))
        elif entries and _indent(line) > base:
            entries[-1][1].append(line)
    return _collect([(name, text) for names, text in entries for name in names])


def _rest_params(body: list[str]) -> dict[str, str]:
    entries: list[tuple[str, list[str]]] = []
    in_param = False
    for line in body:
        if _REST_FIELD.match(line):
            match = _REST_PARAM.match(line)
            in_param = match is not None
            if match:
                entries.append((match.group(1), [match.group(2)]))
        elif in_param and line.strip():
            entries[-1][1].append(line)
    return _collect(entries)
