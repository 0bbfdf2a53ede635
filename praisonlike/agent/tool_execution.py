"""Toolset: the agent's tool registry, and ToolExecutionMixin, its adapter (``agent.tools``).

The registry is built from ``Agent(tools=...)`` once; a turn offers it, or the
call's own ``tools=`` list instead, and runs the calls through a
:class:`~praisonlike.tools.executor.TurnTools` made for that turn (by
:func:`~praisonlike.agent.assembly.assemble_turn`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from praisonlike.agent.parts import HasParts
from praisonlike.tools.registry import ToolRegistry


class Toolset:
    """The agent's own tools (a :class:`ToolRegistry`); raises what the registry raises."""

    def __init__(self, tools: Iterable[Any]) -> None:
        self.registry = ToolRegistry(tools)

    def for_call(self, tools: Sequence[Any] | None) -> ToolRegistry:
        """``None``: the agent's tools; a list (even empty) replaces them for the call."""
        return self.registry if tools is None else ToolRegistry(tools)

    def close(self) -> None:
        """Close the tool providers that can be closed (MCP servers)."""
        for provider in self.registry.providers:
            closer = getattr(provider, "close", None)
            if callable(closer):
                closer()


class ToolExecutionMixin(HasParts):
    """``agent.tools``: an adapter over the agent's :class:`Toolset`."""

    @property
    def tools(self) -> list[str]:
        """The names of the agent's tools, in the order they are offered."""
        return list(self._parts.tools.registry.names)
