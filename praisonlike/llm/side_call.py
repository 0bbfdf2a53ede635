"""A model call outside a turn (the long-term summary), recovered and accounted like a turn's.

:func:`call_outside_turn` runs the tool loop's own model round
(:class:`praisonlike.llm.model_round.ModelRounds`) on a fixed request with the
blocking driver, so such a call gets exactly what a turn's calls get: the same
error classification, retries with backoff (honouring Retry-After), fallback
models, budget gate and usage accounting (into the agent's tracker), and the
same events (``LLMRequest``, ``RetryEvent``, ``FallbackEvent``,
``LLMResponse``). It sends no tools, runs no hooks and is never compacted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator
from typing import Any

from praisonlike.llm.drivers import SyncDriver
from praisonlike.llm.model_round import ModelRounds, Stop
from praisonlike.llm.protocol import ModelReply, ToolCall
from praisonlike.llm.turn_spec import TurnSpec


class _SideCall(ModelRounds):
    def __init__(self, spec: TurnSpec) -> None:
        super().__init__(dataclasses.replace(spec, hooks=None))
        self._messages = []
        self._offered = frozenset()

    def steps(
        self, messages: list[dict[str, Any]], purpose: str
    ) -> Generator[Any, Any, ModelReply]:
        try:
            return (yield from self._model_round(0, request=messages, purpose=purpose))
        except Stop as stop:
            raise stop.error from None


class _Nothing:
    """The tool and hook seams of a call that has neither."""

    def run(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a call outside a turn runs no tools or hooks")

    async def arun(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a call outside a turn runs no tools or hooks")

    def parallel_safe(self, calls: tuple[ToolCall, ...]) -> bool:
        return False


def call_outside_turn(
    spec: TurnSpec,
    messages: list[dict[str, Any]],
    *,
    purpose: str,
    on_event: Callable[[Any], None],
) -> ModelReply:
    """Send ``messages`` to ``spec.models`` (the first, then its fallbacks) and return the reply.

    Blocks, retrying and falling back as ``spec.execution`` says; each event
    goes to ``on_event`` as it happens, and the reply's usage is recorded in
    ``spec.accounting``. ``spec.tools``, ``spec.hooks`` and the turn fields
    (prefix, messages, answer check) are ignored.

    Raises:
        LLMError: the typed error once recovery gives up.
        BudgetExceededError, RunTimeout, RunCancelled: a budget, the deadline
            or the cancel token of ``spec`` stopped the call.
    """
    nothing: Any = _Nothing()
    driver = SyncDriver(spec.run_id, nothing, nothing, cancel=spec.cancel, deadline=spec.deadline)
    steps = driver.drive(_SideCall(spec).steps(messages, purpose))
    while True:
        try:
            event = next(steps)
        except StopIteration as done:
            reply: ModelReply = done.value
            return reply
        on_event(event)

