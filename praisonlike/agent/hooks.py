"""HooksMixin: registering hooks on an agent (see :mod:`praisonlike.hooks`).

Uses from ``self``: ``_hook_runner``.
"""

from __future__ import annotations

from collections.abc import Callable

from praisonlike.hooks import HookEvent, HookFunction, HookRunner


class HooksMixin:
    _hook_runner: HookRunner

    @property
    def hooks(self) -> HookRunner:
        """The agent's registered hooks."""
        return self._hook_runner

    def on(
        self, event: HookEvent | str, *, fail_open: bool = False
    ) -> Callable[[HookFunction], HookFunction]:
        """Decorator: ``@agent.on(HookEvent.BEFORE_TOOL)`` registers the function."""

        def register(function: HookFunction) -> HookFunction:
            self._hook_runner.register(HookEvent(event), function, fail_open=fail_open)
            return function

        return register
