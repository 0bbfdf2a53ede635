"""ToolExecutionMixin: which tools a turn offers, and the runner that executes them.

Uses from ``self``: ``_tool_registry``, ``execution``, ``deps``, ``approval``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from praisonlike.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from praisonlike.cancellation import CancelToken
    from praisonlike.hooks import HookRunner
    from praisonlike.llm.config import ExecutionConfig
    from praisonlike.tools.executor import Approver, TurnTools


class ToolExecutionMixin:
    _tool_registry: ToolRegistry
    execution: ExecutionConfig
    deps: Any
    approval: Approver | None
    _hook_runner: HookRunner

    @property
    def tools(self) -> list[str]:
        """The names of the agent's tools, in the order they are offered."""
        return list(self._tool_registry.names)

    def _registry_for_call(self, tools: Sequence[Any] | None) -> ToolRegistry:
        """``None`` inherits the agent's tools; a list (even empty) replaces them for the call."""
        if tools is None:
            return self._tool_registry
        return ToolRegistry(tools)

    def _turn_tools(
        self,
        registry: ToolRegistry,
        *,
        run_id: str,
        deps: Any,
        cancel: CancelToken | None,
    ) -> TurnTools:
        from praisonlike.tools.executor import TurnTools

        return TurnTools(
            registry,
            run_id=run_id,
            deps=self.deps if deps is None else deps,
            agent=self,
            cancel=cancel,
            tool_timeout=self.execution.tool_timeout,
            result_limit=self.execution.tool_result_limit,
            approver=self.approval,
            hooks=self._hook_runner,
        )
