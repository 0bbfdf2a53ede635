"""Which provider serves a model, and how a model named next to another is configured.

A secret only ever goes to its own provider: a model named by a string next to
a configuration (a fallback, a reflection or summary model) borrows that
configuration's endpoint, key and provider options only when LiteLLM resolves
both to the same provider.
"""

from __future__ import annotations

import dataclasses
import functools

from praisonlike.llm.config import LLMConfig

LOCAL_PROVIDER = "local"
OPENAI_PROVIDER = "openai"


def is_openai_prefixed(model: str) -> bool:
    """True for ``openai/<name>``: LiteLLM routes it to its ``openai`` provider
    whatever the name, so no LiteLLM lookup is needed."""
    return model.startswith("openai/") and len(model) > len("openai/")


def is_local_model(model: str) -> bool:
    """True for the bundled offline model: ``"local"`` or ``"local/<name>"``."""
    return model == "local" or model.startswith("local/")


@functools.lru_cache(maxsize=256)
def provider_of(model: str) -> str | None:
    """The provider LiteLLM routes ``model`` to (``"openai"`` for ``"gpt-4o-mini"``),
    ``"local"`` for the bundled model, ``None`` when LiteLLM cannot tell."""
    if is_local_model(model):
        return LOCAL_PROVIDER
    if is_openai_prefixed(model):
        return OPENAI_PROVIDER
    from praisonlike.llm.backend import load_litellm

    try:
        _, provider, _, _ = load_litellm().get_llm_provider(model=model)
    except Exception:
        return None
    return str(provider) if provider else None


def related_config(base: LLMConfig, model: str) -> LLMConfig:
    """The configuration of ``model``, named by a string next to ``base``.

    On the provider of ``base`` it takes all of ``base``'s settings (endpoint,
    key, ``extra``, ``features``, ...) but its fallbacks. On another provider,
    or one LiteLLM cannot tell, it takes only ``temperature``, ``max_tokens``
    and ``timeout``: LiteLLM then reads its endpoint and key from that
    provider's environment variables, as for a primary model.
    """
    provider = provider_of(model)
    if provider is not None and provider == provider_of(base.model):
        return dataclasses.replace(base, model=model, fallback_models=())
    return LLMConfig(
        model=model, temperature=base.temperature, max_tokens=base.max_tokens, timeout=base.timeout
    )
