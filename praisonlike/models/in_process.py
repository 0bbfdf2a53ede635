"""Models answered inside the process: a configuration that is its own model.

An :class:`InProcessModel` is an :class:`~praisonlike.models.config.LLMConfig`
(so ``Agent(llm=...)``, fallbacks and overrides accept it) whose calls
:mod:`praisonlike.models.transport` hands to the object itself instead of a
network client: no socket, no LiteLLM, no credentials. Its ``model`` is a
label starting with :data:`IN_PROCESS_PREFIX`; such models are free (see
:mod:`praisonlike.models.pricing`). The test doubles of
:mod:`praisonlike.testing` (``FunctionModel``, ``TestModel``) are the ones
the SDK ships.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from praisonlike.models.config import LLMConfig

if TYPE_CHECKING:
    from praisonlike.loop.commands import CallModel

IN_PROCESS_PREFIX = "function:"
"""Every in-process model's ``model`` label starts with this."""

IN_PROCESS_CONTEXT_WINDOW = 128_000
"""The context window (tokens) the context manager assumes for an in-process model."""


def is_in_process_label(model: str) -> bool:
    """True for a model label of an in-process model (``function:<name>``)."""
    return model.startswith(IN_PROCESS_PREFIX)


class InProcessModel(LLMConfig):
    """A model configuration that answers its calls itself.

    Subclasses implement :meth:`respond` and :meth:`arespond`, returning what
    the network transports return: a chat completion (``dict`` or object)
    for a non-streamed call, chunks (an iterator, an async iterator for
    :meth:`arespond`) for a streamed one. An exception they raise is
    classified like a provider's (:mod:`praisonlike.models.error_classification`).
    """

    def respond(self, command: CallModel) -> Any:
        """Answer ``command`` on the caller's thread."""
        raise NotImplementedError

    async def arespond(self, command: CallModel) -> Any:
        """Answer ``command`` on the running event loop."""
        raise NotImplementedError


__all__ = [
    "IN_PROCESS_CONTEXT_WINDOW",
    "IN_PROCESS_PREFIX",
    "InProcessModel",
    "is_in_process_label",
]
