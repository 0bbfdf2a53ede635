"""Routing: does a request fit, or what has to happen so it does."""

from __future__ import annotations

from enum import Enum


class Route(str, Enum):
    """What :meth:`ContextManager.prepare` does with a request.

    - ``FITS``: within ``trigger`` and no tool result over the limit: sent as is.
    - ``TRUNCATE_TOOLS``: oversize tool results are cut; that is enough.
    - ``COMPACT``: over ``trigger``; the strategy compacts to ``target``.
    - ``COMPACT_THEN_TRUNCATE``: over ``trigger`` with oversize tool results, and
      cutting those alone does not reach ``target``: both happen (the tool
      results are cut first so the strategy drops as little as possible).
    """

    FITS = "fits"
    TRUNCATE_TOOLS = "truncate_tools"
    COMPACT = "compact"
    COMPACT_THEN_TRUNCATE = "compact_then_truncate"


def choose_route(
    tokens: int,
    *,
    trigger_tokens: int,
    target_tokens: int,
    has_oversize_tools: bool,
    tokens_after_tool_cut: int | None = None,
) -> Route:
    """The route for a request of ``tokens`` (messages and tools).

    ``tokens_after_tool_cut`` is the count once oversize tool results are cut;
    it is needed only when ``has_oversize_tools`` and ``tokens > trigger_tokens``.
    """
    if tokens <= trigger_tokens:
        return Route.TRUNCATE_TOOLS if has_oversize_tools else Route.FITS
    if not has_oversize_tools:
        return Route.COMPACT
    if tokens_after_tool_cut is None:
        raise ValueError("tokens_after_tool_cut is needed to route oversize tool results")
    if tokens_after_tool_cut <= target_tokens:
        return Route.TRUNCATE_TOOLS
    return Route.COMPACT_THEN_TRUNCATE
