"""A model call outside a turn (the long-term summary), recovered and accounted like a turn's.

:func:`call_outside_turn` runs the tool loop's own model round
(:class:`praisonlike.loop.model_round.ModelRounds`) on a fixed request with the
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

from praisonlike.loop.commands import ModelReply
from praisonlike.loop.drivers import SyncDriver
from praisonlike.loop.model_round import ModelRounds, Stop
from praisonlike.loop.run import Run
from praisonlike.loop.turn_spec import TurnSpec


class _SideCall(ModelRounds):
    def __init__(self, run: Run) -> None:
        super().__init__(run)
        self._messages = []
        self._offered = frozenset()

    def steps(
        self, messages: list[dict[str, Any]], purpose: str
    ) -> Generator[Any, Any, ModelReply]:
        try:
            return (yield from self._model_round(0, request=messages, purpose=purpose))
        except Stop as stop:
            raise stop.error from None


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
    run = Run(dataclasses.replace(spec, hooks=None), observers=[on_event])
    replies: list[ModelReply] = []
    for _event in SyncDriver(run).drive(_SideCall(run).steps(messages, purpose), replies.append):
        pass
    return replies[0]
