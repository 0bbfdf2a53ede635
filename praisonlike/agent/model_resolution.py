"""Turning the agent's model settings into the concrete models calls go to.

``None`` picks the default model (see :mod:`praisonlike.agent.default_model`);
``"local"`` and ``"local/..."`` start the bundled llama.cpp server on first use
and point the call at it. A model named next to the agent's (a fallback,
``reflect_llm``) as a string borrows the agent's endpoint, key and other
settings only when LiteLLM resolves both to the same provider, so a secret
only ever goes to its own provider.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from praisonlike.agent.default_model import default_model
from praisonlike.models.config import LLMConfig
from praisonlike.models.in_process import InProcessModel
from praisonlike.models.preflight import check_routing
from praisonlike.models.providers import is_local_model, related_config


def resolve_llm(config: LLMConfig | None) -> LLMConfig:
    """The LLMConfig a call is sent with (model chosen, local server started)."""
    if config is None:
        config = LLMConfig(model=default_model())
    if not is_local_model(config.model):
        return config
    from praisonlike.models.local import local_endpoint
    from praisonlike.models.local.server import with_local_defaults

    litellm_model, api_base = local_endpoint(config.model)
    return with_local_defaults(config, litellm_model, api_base)


def still_served(resolved: LLMConfig) -> bool:
    """False when ``resolved`` points at a warm local model server this process found
    and whose process has ended since (resolving again starts a new one)."""
    warm = sys.modules.get("praisonlike.models.local.warm_server")
    if warm is None or not resolved.api_base:  # no warm server was ever found here
        return True
    return not warm.endpoint_ended(resolved.api_base)


def named_llm(
    configured: LLMConfig | None, entry: str | LLMConfig, named_as: str = "fallback_models"
) -> LLMConfig:
    """The configuration a model named next to ``configured`` (the agent's own
    ``llm``, ``None`` when it comes from the environment) is called with, resolved.

    An :class:`LLMConfig` is used as it is; a string is configured by
    :func:`praisonlike.models.providers.related_config` (the agent's settings only
    on the agent's provider), or from the environment when ``configured`` is None.
    Raises UnknownModelError, naming ``named_as``, for a model LiteLLM cannot
    route to a provider and no ``api_base`` or ``custom_llm_provider`` serves:
    before the turn's first request, not when the model is first needed.
    """
    if isinstance(entry, LLMConfig):
        config = entry
    elif configured is None:
        config = LLMConfig(model=entry)
    else:
        config = related_config(configured, entry)
    resolved = resolve_llm(config)
    if not isinstance(resolved, InProcessModel):
        check_routing(resolved, named_as)
    return resolved


def fallback_entries(
    configured: LLMConfig | None, agent_fallbacks: Sequence[str | LLMConfig]
) -> list[str | LLMConfig]:
    """``LLMConfig.fallback_models`` then ``Agent(fallback_models=...)``, repeats dropped."""
    entries: list[str | LLMConfig] = []
    for entry in (*(configured.fallback_models if configured else ()), *agent_fallbacks):
        if entry not in entries:
            entries.append(entry)
    return entries


def fallback_llms(
    configured: LLMConfig | None, agent_fallbacks: Sequence[str | LLMConfig]
) -> list[LLMConfig]:
    """The fallback models of a turn, in order, each as :func:`named_llm` resolves it."""
    return [named_llm(configured, e) for e in fallback_entries(configured, agent_fallbacks)]


class AgentModels:
    """The models an agent's turns call: its resolved model, fallbacks, and a test override.

    The agent's own model is resolved once (default chosen, local server
    started) at the first turn and kept while the configuration names the same
    model, and, for a ``local`` model, while its warm server runs: a turn after
    the server was stopped or died starts a new one. :attr:`override` (set by
    ``agent.override(model=...)``), when not ``None``, is the only model turns call.
    """

    def __init__(self) -> None:
        self._resolved: tuple[LLMConfig | None, LLMConfig] | None = None
        self.override: LLMConfig | None = None

    def resolved(self) -> LLMConfig | None:
        """The agent's model as resolved so far (``None`` before the first turn)."""
        return None if self._resolved is None else self._resolved[1]

    def primary(self, configured: LLMConfig | None) -> LLMConfig:
        """The model a turn starts with: the override, else ``configured`` resolved."""
        if self.override is not None:
            return self.override
        cached = self._resolved
        if cached is not None and cached[0] is configured and still_served(cached[1]):
            return cached[1]
        resolved = resolve_llm(configured)
        self._resolved = (configured, resolved)
        return resolved

    def for_turn(
        self, configured: LLMConfig | None, fallbacks: Sequence[str | LLMConfig]
    ) -> list[LLMConfig]:
        """The primary model, then the fallbacks in order (only the override, when set)."""
        if self.override is not None:
            return [self.override]
        return [self.primary(configured), *fallback_llms(configured, fallbacks)]
