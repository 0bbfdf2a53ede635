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

A turn that asks for a structured answer (``output_pydantic`` / ``output_json``)
replaces the text alternative with that schema: the reply is a valid call or a
JSON value matching the answer's schema (:func:`answer_grammar` when no call is
possible: no tools, or the last round). A ReAct turn's last round, which offers
no tools, takes only text (:func:`text_grammar`), so the model answers instead of
writing a call nobody will run. The answer's schema is embedded with
LLGuidance's ``lenient`` option, so a keyword or ``format`` it does not
implement is left to the answer check instead of failing the request.

The answer's schema is narrowed first (:mod:`praisonlike.react.answer_bounds`) so that a
small model cannot write past the answer until the token cap: an object takes
only its declared keys (in the schema's order, as LLGuidance imposes), strings,
integers and arrays get a length where the schema sets none, and the JSON has
one fixed layout (``{"a": 1, "b": [2, 3]}``, :data:`ANSWER_LAYOUT`) instead of
LLGuidance's default, which allows any run of whitespace between tokens.
Everything the narrowed schema admits is valid under the original one, so the
answer check (against the original) is unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from praisonlike.models.capabilities import model_features
from praisonlike.models.config import LLMConfig
from praisonlike.react.answer_bounds import bounded_answer_schema

_TEXT = r"/[^{\[`\s](?s:.*)/"
_EMPTY_OBJECT = {"type": "object", "properties": {}}


def tool_call_grammar(
    tools: Sequence[Mapping[str, Any]], answer_schema: Mapping[str, Any] | None = None
) -> str | None:
    """The grammar for a reply to a ReAct round offering ``tools`` (OpenAI tool schemas);
    with ``answer_schema``, a reply that is not a call must match it.

    Deterministic for the same arguments. ``None`` (send no grammar) when no tool
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
    reply, rule = _reply_rule(answer_schema)
    return "\n".join(
        [
            "%llguidance {}",
            f"start: call | fenced | {reply}",
            'fenced: "```json\\n" call "\\n```"',
            f"call: %json {json.dumps(root)}",
            rule,
        ]
    )


def text_grammar() -> str:
    """The grammar for a ReAct round whose tools are withheld (the last round): plain
    text only, which cannot open like a call."""
    return _reply_grammar(None)


def answer_grammar(answer_schema: Mapping[str, Any]) -> str:
    """The grammar for a reply that can only be the answer: a JSON value matching
    ``answer_schema``."""
    return _reply_grammar(answer_schema)


def _reply_grammar(answer_schema: Mapping[str, Any] | None) -> str:
    reply, rule = _reply_rule(answer_schema)
    return "\n".join(["%llguidance {}", f"start: {reply}", rule])


def _reply_rule(answer_schema: Mapping[str, Any] | None) -> tuple[str, str]:
    """The name and rule of a reply that is not a call: plain text, or a JSON value
    matching ``answer_schema`` (narrowed, in :data:`ANSWER_LAYOUT`)."""
    if answer_schema is None:
        return "text", f"text: {_TEXT}"
    bounded = {**bounded_answer_schema(answer_schema), "x-guidance": dict(ANSWER_LAYOUT)}
    return "answer", f"answer: %json {json.dumps(bounded)}"


ANSWER_LAYOUT: Mapping[str, Any] = MappingProxyType(
    {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": ", "lenient": True}
)
"""LLGuidance's options for a structured answer: no whitespace but the one space in
``", "`` and ``": "`` (its default admits any run of spaces, tabs and newlines
between two tokens, which a 0.5B model filled until the token cap), and
``lenient`` (a keyword or ``format`` it does not implement is left to the answer
check)."""


class TurnGrammar:
    """The grammars of one turn's rounds: built on first use, sent only to endpoints
    with the ``tool_grammar`` feature.

    ``tools`` are the tools a reply may call as text (a ReAct turn's; empty
    otherwise), ``answer_schema`` what a structured answer must match (``None``
    for a text answer); a turn with neither needs no grammar and makes none.
    """

    def __init__(
        self, tools: Sequence[Mapping[str, Any]], answer_schema: Mapping[str, Any] | None
    ) -> None:
        self._tools = tools
        self._answer_schema = answer_schema
        self._grammars: dict[bool, str | None] = {}

    def apply(self, llm: LLMConfig, params: Mapping[str, Any], *, calls: bool) -> dict[str, Any]:
        """``params`` for a call to ``llm``, with the grammar in the request body
        (``extra_body``, merged with one already in ``params`` or ``llm.extra``)
        when ``llm`` takes one and no ``response_format`` is asked for. ``calls``:
        the round lets the reply call a tool."""
        if "response_format" in params or not model_features(llm.model, llm.features).tool_grammar:
            return dict(params)
        calls = calls and bool(self._tools)
        if calls not in self._grammars:
            self._grammars[calls] = self._build(calls)
        grammar = self._grammars[calls]
        if grammar is None:
            return dict(params)
        return {**params, "extra_body": {**llm.extra_body(params), "grammar": grammar}}

    def _build(self, calls: bool) -> str | None:
        if calls:
            return tool_call_grammar(self._tools, self._answer_schema)
        return _reply_grammar(self._answer_schema)


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
