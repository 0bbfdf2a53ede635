"""Prompt-cache breakpoints for providers that cache only what a request marks.

Anthropic reuses a cached prompt prefix only up to a block marked
``cache_control: {"type": "ephemeral"}`` (at most four marks a request). An
agent resends the same system prompt and tool definitions on every request,
and each tool round resends the whole previous request, so a request for an
``anthropic`` model (through LiteLLM, which passes the marks on) carries three:

- the system prompt's last block (the last of the leading system messages);
- the last tool definition (Anthropic caches tools before the system prompt);
- the request's last message, so the next request (the tool round, or the
  next turn) reads everything up to it from the cache.

Cache writes cost more than plain input (1.25x on Anthropic) and reads far less
(0.1x); a prefix shorter than the model's minimum is not cached and costs
nothing extra. The marks are added to copies: the agent's history and tools
are never changed. A request that already carries a mark (the caller's own
content blocks, or LiteLLM's ``cache_control_injection_points`` in ``extra``)
gets none from here. OpenAI, DeepSeek and others cache without marks; they
are sent none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from praisonlike.models.config import LLMConfig
from praisonlike.models.providers import provider_of

MARKED_PROVIDERS = frozenset({"anthropic"})
"""Providers whose requests get breakpoints (LiteLLM's provider names)."""

EPHEMERAL = {"type": "ephemeral"}
INJECTION_POINTS = "cache_control_injection_points"
"""LiteLLM's own per-call option for placing marks; the caller's choice wins."""


def marks_breakpoints(llm: LLMConfig) -> bool:
    """True when requests for ``llm`` get breakpoints: ``prompt_cache`` is on, the
    model's provider is one of :data:`MARKED_PROVIDERS`, and ``extra`` does not
    place marks itself."""
    return (
        llm.prompt_cache
        and INJECTION_POINTS not in llm.extra
        and provider_of(llm.model) in MARKED_PROVIDERS
    )


def with_breakpoints(
    messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """``messages`` and ``tools`` with breakpoints on the system prompt, the last tool
    and the last message (copies of those three; the rest shared). Returned as
    they are when any of them already carries a ``cache_control`` mark."""
    marked = list(messages)
    marked_tools = None if tools is None else list(tools)
    if _has_mark(marked, marked_tools):
        return marked, marked_tools
    if marked_tools:
        marked_tools[-1] = {**marked_tools[-1], "cache_control": EPHEMERAL}
    system = 0
    while system < len(marked) and marked[system].get("role") == "system":
        system += 1
    if system:
        marked[system - 1] = _marked(marked[system - 1])
    if len(marked) > system:
        marked[-1] = _marked(marked[-1])
    return marked, marked_tools


def _marked(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with a mark on its last block; as it is when it has no text to mark."""
    content = message.get("content")
    if message.get("role") == "tool":
        return {**message, "cache_control": EPHEMERAL}
    if isinstance(content, str):
        if not content:
            return message
        block = {"type": "text", "text": content, "cache_control": EPHEMERAL}
        return {**message, "content": [block]}
    if isinstance(content, list) and content and isinstance(content[-1], dict):
        return {**message, "content": [*content[:-1], {**content[-1], "cache_control": EPHEMERAL}]}
    return message


def _has_mark(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None) -> bool:
    if any("cache_control" in tool for tool in tools or ()):
        return True
    for message in messages:
        if "cache_control" in message:
            return True
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(block, dict) and "cache_control" in block for block in content
        ):
            return True
    return False
