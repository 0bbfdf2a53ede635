"""Constrained ReAct replies: a grammar that lets a model write only plain text or
one valid call of an offered tool.

For endpoints that take a llama.cpp grammar per request (the ``tool_grammar``
model feature, see :mod:`praisonlike.models.capabilities`), each ReAct round that
offers tools sends :func:`tool_call_grammar` in the request body. The grammar is
in llama.cpp's LLGuidance (Lark) form, which embeds each tool's JSON schema
as is: a reply is either text that does not open with ``{``, ``[`` or a code
fence, or one ``{"name": ..., "arguments": {...}}`` object (optionally in a
```` ```json ```` fence) whose name is an offered tool's and whose arguments
match that tool's parameters schema. A tool definition echo, an unknown key or
an argument of the wrong type cannot be produced.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from praisonlike.models.capabilities import model_features
from praisonlike.models.config import LLMConfig

_TEXT = r"/[^{\[`\s](?s:.*)/"
_EMPTY_OBJECT = {"type": "object", "properties": {}}


def tool_call_grammar(tools: Sequence[Mapping[str, Any]]) -> str | None:
    """The grammar for a reply to a ReAct round offering ``tools`` (OpenAI tool schemas).

    Deterministic for the same tools. ``None`` (send no grammar) when no tool
    is offered or two tools define the same ``$defs`` name differently.
    """
    definitions: dict[str, Any] = {}
    calls = []
    for tool in tools:
        call, defs = _call_schema(tool)
        for name, schema in defs.items():
            if definitions.setdefault(name, schema) != schema:
                return None
        calls.append(call)
    if not calls:
        return None
    root: dict[str, Any] = calls[0] if len(calls) == 1 else {"anyOf": calls}
    if definitions:
        root = {**root, "$defs": definitions}
    return "\n".join(
        [
            "%llguidance {}",
            "start: call | fenced | text",
            'fenced: "```json\\n" call "\\n```"',
            f"call: %json {json.dumps(root)}",
            f"text: {_TEXT}",
        ]
    )


class TurnGrammar:
    """The grammar of one turn's ReAct rounds: built on first use, sent only to
    endpoints with the ``tool_grammar`` feature."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self._tools = tools
        self._grammar: str | None = None
        self._built = False

    def apply(self, llm: LLMConfig, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` for a call to ``llm``, with the grammar in the request body
        (``extra_body``, merged with one already in ``params`` or ``llm.extra``)
        when ``llm`` takes one and no ``response_format`` is asked for."""
        if "response_format" in params or not model_features(llm.model, llm.features).tool_grammar:
            return dict(params)
        if not self._built:
            self._grammar, self._built = tool_call_grammar(self._tools), True
        if self._grammar is None:
            return dict(params)
        body = params.get("extra_body", llm.extra.get("extra_body")) or {}
        return {**params, "extra_body": {**body, "grammar": self._grammar}}


def _call_schema(tool: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The schema of one call of ``tool``, and the ``$defs`` its parameters refer to."""
    spec = tool["function"] if isinstance(tool.get("function"), Mapping) else tool
    parameters = dict(spec.get("parameters") or _EMPTY_OBJECT)
    parameters.setdefault("type", "object")
    definitions = parameters.pop("$defs", None) or {}
    call = {
        "type": "object",
        "properties": {"name": {"const": spec["name"]}, "arguments": parameters},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }
    return call, dict(definitions)
