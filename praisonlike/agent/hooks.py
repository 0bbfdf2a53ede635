"""HooksMixin: registering hooks on an agent (see :mod:`praisonlike.hooks`).

An adapter over the agent's :class:`~praisonlike.hooks.HookRunner` part,
seeded with ``Agent(hooks=...)``.
"""

from __future__ import annotations

from collections.abc import Callable

from praisonlike.agent.parts import HasParts
from praisonlike.hooks import HookFunction, HookPoint, HookRunner, hook_point


class HooksMixin(HasParts):
    @property
    def hooks(self) -> HookRunner:
        """The agent's registered hooks."""
        return self._parts.hooks

    def on(
        self, event: HookPoint | str, *, fail_open: bool = False
    ) -> Callable[[HookFunction], HookFunction]:
        """Decorator: ``@agent.on(HookPoint.BEFORE_TOOL)`` registers the function."""

        point = hook_point(event)

        def register(function: HookFunction) -> HookFunction:
            self._parts.hooks.register(point, function, fail_open=fail_open)
            return function

        return register
