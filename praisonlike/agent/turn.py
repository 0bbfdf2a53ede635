"""TurnMixin: the agent's ``cancel()`` and ``features()``; :func:`check_prompt`.

Opening and closing a turn is :mod:`praisonlike.agent.assembly`. TurnMixin
adapts the parts a running turn is reached through: the conversation (the
running turns' cancel tokens), the session (a stop sent to another process)
and the models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from praisonlike.agent.parts import HasParts
from praisonlike.errors import InvalidInputError

if TYPE_CHECKING:
    from praisonlike.models.capabilities import ModelFeatures


def check_prompt(prompt: Any, *, has_images: bool = False) -> str:
    """A prompt must be a str that encodes as UTF-8 (no lone surrogates), and not
    empty or only whitespace unless images come with it."""
    if not isinstance(prompt, str):
        raise InvalidInputError(f"prompt must be a str, not {type(prompt).__name__}")
    if not has_images and not prompt.strip():
        raise InvalidInputError(
            "prompt is empty: give the model something to answer (providers refuse "
            "or guess at an empty message)"
        )
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
        from praisonlike.models.capabilities import model_features

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
