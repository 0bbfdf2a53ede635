"""The opened turn (:class:`Turn`) and TurnMixin, the agent's ``cancel()`` and ``features()``.

A :class:`Turn` is what :func:`praisonlike.agent.assembly.assemble_turn`
returns: the dispatcher running the tool loop, and what the agent adds around
it (the ``run_started`` event, events of the prompt's expansion, the
observers, the steering the turn took, the session's step recorder).

TurnMixin adapts the parts a running turn is reached through: the
conversation (the running turns' cancel tokens), the session (a stop sent to
another process) and the models.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from praisonlike.agent.parts import HasParts
from praisonlike.cancellation import CancelToken
from praisonlike.errors import InvalidInputError
from praisonlike.log import get_logger

if TYPE_CHECKING:
    from praisonlike.events import RunStarted
    from praisonlike.llm.capabilities import ModelFeatures
    from praisonlike.llm.dispatcher import Dispatcher
    from praisonlike.llm.turn_spec import TurnOutcome, TurnSpec
    from praisonlike.memory.step_recorder import StepRecorder


@dataclass
class Turn:
    """One opened turn. Iterate :meth:`events` or :meth:`aevents` once, then close it."""

    spec: TurnSpec
    dispatcher: Dispatcher
    started: RunStarted
    cancel: CancelToken
    prompt: str = ""
    extra_events: list[Any] = field(default_factory=list)
    observers: list[Callable[[Any], None]] = field(default_factory=list)
    steering_taken: list[str] = field(default_factory=list)
    recorder: StepRecorder | None = None

    def _observed(self, event: Any) -> Any:
        for observer in self.observers:
            try:
                observer(event)
            except Exception:
                get_logger().exception("an event observer failed on %s", event.type)
        return event

    def events(self) -> Iterator[Any]:
        """Run the turn with blocking I/O, yielding ``run_started`` and every event after it."""
        yield self._observed(self.started)
        for event in self.extra_events:
            yield self._observed(event)
        for event in self.dispatcher.events():
            yield self._observed(event)

    async def aevents(self) -> AsyncIterator[Any]:
        """Run the turn with asyncio, yielding what :meth:`events` yields."""
        yield self._observed(self.started)
        for event in self.extra_events:
            yield self._observed(event)
        async for event in self.dispatcher.aevents():
            yield self._observed(event)

    @property
    def outcome(self) -> TurnOutcome:
        """The loop's outcome; raises RuntimeError before the events were consumed."""
        outcome = self.dispatcher.outcome
        if outcome is None:
            raise RuntimeError("the turn was closed before its events were consumed")
        return outcome


def check_prompt(prompt: Any) -> str:
    """A prompt must be a str that encodes as UTF-8 (no lone surrogates)."""
    if not isinstance(prompt, str):
        raise InvalidInputError(f"prompt must be a str, not {type(prompt).__name__}")
    try:
        prompt.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"prompt is not valid text: {exc.reason} at position {exc.start}"
        ) from exc
    return prompt


class TurnMixin(HasParts):
    """``cancel()`` and ``features()``."""

    def features(self) -> ModelFeatures:
        """What the agent's model can do (tool calls, vision, ...), per LiteLLM's map."""
        from praisonlike.llm.capabilities import model_features

        primary = self._parts.models.primary(self.spec.llm_config)
        return model_features(primary.model, primary.features)

    def cancel(self, reason: str = "cancelled by agent.cancel()") -> None:
        """Cancel the running turn of this agent; safe from any thread.

        Turns waiting for it (see :mod:`praisonlike.agent.turn_gate`) are not
        cancelled: they run next.

        With no turn running here and a store that carries control signals
        (PostgreSQL), the stop goes to the process running the session's turn.
        """
        tokens = self._conversation.running()
        for token in tokens:
            token.cancel(reason)
        if not tokens:
            self._parts.session.request_stop(reason)
