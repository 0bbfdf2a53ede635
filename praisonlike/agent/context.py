"""ContextSeams: the context budget of an agent's requests, one manager per model.

A thin adapter over :mod:`praisonlike.context`: one :class:`ContextManager`
per model (the window depends on the model), so token counts cached for one
turn are reused by the next. With ``context=False`` (a spec's
``context_config`` of ``None``) requests are sent as they are, but a
provider's context-window error is still healed by an emergency compaction.

A model sent on the OpenAI wire to a server on this machine
(:func:`~praisonlike.models.transport.transport_for`) whose window neither the
configuration nor LiteLLM's map gives is budgeted with the window its server
lists (:mod:`praisonlike.models.served_window`), asked when the model's
manager is made. A server that did not answer (not started yet, still loading
its model) is asked again at a later turn, at most once every
:data:`ASK_AGAIN_AFTER` seconds, until it does; meanwhile the default window
is assumed.
"""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

from praisonlike.context.config import ContextConfig
from praisonlike.errors import ConfigurationError

if TYPE_CHECKING:
    from praisonlike.context.seam import AgentContextSeam
    from praisonlike.context.tokens import TokenCounter
    from praisonlike.models.config import LLMConfig


ASK_AGAIN_AFTER = 1.0
"""Seconds before a server that did not answer for its window is asked again."""


class ContextSeams:
    """The agent's context seams by model; the first request of a model makes its seam."""

    def __init__(self) -> None:
        self._seams: dict[str, AgentContextSeam] = {}
        self._ask_again: dict[str, float] = {}
        """Models whose server did not answer, with when (``time.monotonic``) to ask it again."""

    def for_model(self, config: ContextConfig | None, llm: LLMConfig) -> AgentContextSeam:
        """The seam of ``llm``'s model (``config`` ``None``: budgeting off, and no server
        asked), made on first use (and again once its server answers for its window).
        Raises ConfigurationError when the window its server lists leaves no room for
        ``reserve_output_tokens``."""
        model = llm.model
        seam = self._seams.get(model)
        again = self._ask_again.get(model)
        if seam is None or (again is not None and time.monotonic() >= again):
            from praisonlike.context.manager import ContextManager
            from praisonlike.context.seam import AgentContextSeam

            budgeted, answered = (
                (ContextConfig(), True) if config is None else _with_served_window(config, llm)
            )
            if answered:
                self._ask_again.pop(model, None)
            else:
                self._ask_again[model] = time.monotonic() + ASK_AGAIN_AFTER
            if seam is None or answered:
                manager = ContextManager(model, budgeted, trust_identity=True)
                seam = AgentContextSeam(manager, config is not None)
                self._seams[model] = seam
        return seam

    def counter(self, config: ContextConfig | None, llm: LLMConfig) -> TokenCounter:
        """The token counter the context budget of ``llm``'s model uses."""
        return self.for_model(config, llm).counter

    def forget_history(self) -> None:
        """Drop what the managers remember of a cleared conversation."""
        for seam in self._seams.values():
            seam.forget_history()


def _with_served_window(config: ContextConfig, llm: LLMConfig) -> tuple[ContextConfig, bool]:
    """``config`` with the window ``llm``'s server lists, where the module says so; and
    False when the server was to be asked and did not answer."""
    from praisonlike.context.window import known_context_window
    from praisonlike.models.network_guard import endpoint_label
    from praisonlike.models.served_window import served_context_window
    from praisonlike.models.transport import transport_for

    if config.max_context_tokens is not None or not llm.api_base:
        return config, True
    if transport_for(llm) != "openai" or known_context_window(llm.model) is not None:
        return config, True
    key = llm.api_key.get_secret_value() if llm.api_key is not None else None
    served = served_context_window(llm.api_base, key, llm.model)
    size = served.window
    if size is None:
        return config, served.answered
    if size <= config.reserve_output_tokens:
        raise ConfigurationError(
            f"the server at {endpoint_label(llm.api_base)} lists a {size}-token context window for "
            f"{llm.model!r}, which reserve_output_tokens ({config.reserve_output_tokens}) "
            "fills: lower ContextConfig.reserve_output_tokens, or start the server with a "
            "larger context"
        )
    return dataclasses.replace(config, max_context_tokens=size), True
