"""OverridesMixin: ``agent.override(model=..., deps=...)``, a temporary swap for tests.

An adapter over the agent's models part
(:attr:`~praisonlike.agent.model_resolution.AgentModels.override`, read by turn
assembly) and its spec (``deps``, replaced for the block).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from praisonlike.agent.parts import HasParts
from praisonlike.errors import ConfigurationTypeError
from praisonlike.models.config import LLMConfig


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""The default of :meth:`OverridesMixin.override`'s parameters: leave as configured."""

_lock = threading.Lock()


class OverridesMixin(HasParts):
    @contextmanager
    def override(
        self,
        *,
        model: str | Mapping[str, Any] | LLMConfig = UNSET,
        deps: Any = UNSET,
    ) -> Iterator[None]:
        """Use another model (and/or ``deps``) for the duration of the ``with`` block.

        Meant for unit tests of code that builds its own agent::

            with agent.override(model=FunctionModel(answer)):
                run_my_code()  # its agent.chat(...) calls ``answer``

        ``model`` takes what ``Agent(llm=...)`` takes (a
        :class:`~praisonlike.testing.FunctionModel` or
        :class:`~praisonlike.testing.TestModel`, a model string, a dict, an
        :class:`LLMConfig`); while the block runs it is the only model turns
        call (the agent's fallback models are not tried). ``deps`` replaces
        ``agent.deps``. Nothing else of the agent changes. On leaving the
        block, normally or by an exception, both are restored to what they
        were on entering it; blocks nest.

        The override is the agent's, not the thread's: every turn of this
        agent that starts inside the block uses it, on any thread or task;
        a turn started before the block keeps its model. Do not leave the
        block while a turn of this agent runs (the ``deps`` it reads would
        change under it), and do not overlap blocks of one agent from
        several threads (each restores what it saw on entering).

        Raises:
            ConfigurationError: ``model`` is not a valid model configuration
                (raised on entering, before anything is swapped).
        """
        llm: LLMConfig | None = None
        if model is not UNSET:
            from praisonlike.agent.model_resolution import resolve_llm

            if not isinstance(model, str | Mapping | LLMConfig):
                raise ConfigurationTypeError(
                    "override(model=...) takes a model string, a dict, an LLMConfig or a "
                    f"FunctionModel, not {type(model).__name__}"
                )
            llm = resolve_llm(LLMConfig.coerce(model))
        models = self._parts.models
        with _lock:
            saved_llm, saved_deps = models.override, self.spec.deps
            if llm is not None:
                models.override = llm
            if deps is not UNSET:
                self.spec = self.spec.replace(deps=deps)
        try:
            yield
        finally:
            with _lock:
                if llm is not None:
                    models.override = saved_llm
                if deps is not UNSET:
                    self.spec = self.spec.replace(deps=saved_deps)


__all__ = ["UNSET", "OverridesMixin"]
