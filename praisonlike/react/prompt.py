"""The prompt side of ReAct: teaching a model the JSON tool-call protocol, and
feeding tool results back as messages its chat template accepts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

TOOLS_OPEN, TOOLS_CLOSE = "<tools>", "</tools>"
"""The lines around the tool listing of :func:`react_instructions`."""


def react_instructions(tools: Sequence[dict[str, Any]]) -> str:
    """The system-prompt section teaching a model without native tool calls to call tools.

    ``tools`` are OpenAI tool schemas (``{"type": "function", "function":
    {...}}``) or their bare ``{"name", "description", "parameters"}`` form.
    Each tool is listed as one JSON line with its name, description and
    parameters, under a header that makes calling conditional ("only if the
    request needs one"), followed by the protocol, kept short (a small
    model's prompt is paid for on every round): to call a tool, answer with
    ONLY ``{"name": ..., "arguments": {...}}``; the result comes in the next
    message; call only for live data or an action a tool provides, and answer
    anything else directly in plain text. (The wording is measured: see
    docs/local-models.md, "Answering without a tool".)
    """
    listing = [json.dumps(_tool_signature(tool), ensure_ascii=False) for tool in tools]
    return "\n".join(
        [
            "# Tools",
            "",
            "Functions you can call, only if the request needs one:",
            TOOLS_OPEN,
            *listing,
            TOOLS_CLOSE,
            "",
            "To call a function, reply with ONLY a JSON object, nothing else:",
            '{"name": <function-name>, "arguments": <args-json-object>}',
            "Its result comes in the next message. Call one only when the request needs live "
            "data or an action it provides; answer anything else directly in plain text.",
        ]
    )


def without_tool_listing(text: str) -> str:
    """``text`` less the tool listing :func:`react_instructions` put in it, if any."""
    start = text.find(f"\n{TOOLS_OPEN}\n")
    end = text.find(f"\n{TOOLS_CLOSE}\n", start + 1)
    return text if start < 0 or end < 0 else text[:start] + text[end + len(TOOLS_CLOSE) + 1 :]


def _tool_signature(tool: dict[str, Any]) -> dict[str, Any]:
    spec = tool["function"] if isinstance(tool.get("function"), dict) else tool
    signature: dict[str, Any] = {"name": str(spec.get("name", ""))}
    description = str(spec.get("description") or "").strip()
    if description:
        signature["description"] = description
    signature["parameters"] = spec.get("parameters") or {"type": "object", "properties": {}}
    return signature


def observation_message(
    tool_name: str,
    result_text: str,
    *,
    is_error: bool,
    has_tool_role: bool = False,
    tool_call_id: str | None = None,
    nudge: str | None = None,
) -> dict[str, Any]:
    """The message that feeds a tool's result back to a model in ReAct mode.

    Without a tool role: ``{"role": "user", "content": "Observation from <tool>:\\n..."}``,
    where the content ends with a short nudge (answer in plain text; after an
    error, fix the call or answer; ``nudge`` replaces it), which small models
    need to stop calling.
    With ``has_tool_role``: a ``"tool"`` message carrying ``name`` (and
    ``tool_call_id`` when given) and the result alone.
    """
    if has_tool_role:
        message: dict[str, Any] = {"role": "tool", "name": tool_name, "content": result_text}
        if tool_call_id is not None:
            message["tool_call_id"] = tool_call_id
        return message
    if is_error:
        label = f"Observation from {tool_name} (error)"
        nudge = nudge or "Fix the arguments and call the function again, or answer in plain text."
    else:
        label = f"Observation from {tool_name}"
        nudge = nudge or "Now answer my original question in plain text, without JSON."
    return {"role": "user", "content": f"{label}:\n{result_text}\n{nudge}"}
