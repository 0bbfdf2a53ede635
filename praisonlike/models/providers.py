"""Which provider serves a model, and how a model named next to another is configured.

A secret only ever goes to its own provider: a model named by a string next to
a configuration (a fallback, a reflection or summary model) borrows that
configuration's endpoint, key and provider options only when LiteLLM resolves
both to the same provider.
"""

from __future__ import annotations

import dataclasses
import functools

from praisonlike.models.config import LLMConfig

LOCAL_PROVIDER = "local"
OPENAI_PROVIDER = "openai"


def is_openai_prefixed(model: str) -> bool:
    """True for ``openai/<name>``: LiteLLM routes it to its ``openai`` provider
    whatever the name, so no LiteLLM lookup is needed."""
    return model.startswith("openai/") and len(model) > len("openai/")


KEY_VARIABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "anthropic": (("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"), ("ANTHROPIC_API_KEY",)),
    "cerebras": (("CEREBRAS_API_KEY",), ("CEREBRAS_API_KEY",)),
    "cohere": (("COHERE_API_KEY",), ("COHERE_API_KEY",)),
    "deepinfra": (("DEEPINFRA_API_KEY",), ("DEEPINFRA_API_KEY",)),
    "deepseek": (("DEEPSEEK_API_KEY",), ("DEEPSEEK_API_KEY",)),
    "fireworks_ai": (
        ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY", "FIREWORKSAI_API_KEY", "FIREWORKS_AI_TOKEN"),
        ("FIREWORKS_AI_API_KEY",),
    ),
    "gemini": (("GOOGLE_API_KEY", "GEMINI_API_KEY"), ("GOOGLE_API_KEY", "GEMINI_API_KEY")),
    "groq": (("GROQ_API_KEY",), ("GROQ_API_KEY",)),
    "huggingface": (("HUGGINGFACE_API_KEY",), ("HUGGINGFACE_API_KEY",)),
    "mistral": (("MISTRAL_API_KEY",), ("MISTRAL_API_KEY",)),
    "openai": (("OPENAI_API_KEY",), ("OPENAI_API_KEY",)),
    "openrouter": (("OPENROUTER_API_KEY",), ("OPENROUTER_API_KEY",)),
    "perplexity": (("PERPLEXITYAI_API_KEY",), ("PERPLEXITYAI_API_KEY",)),
    "replicate": (("REPLICATE_API_KEY",), ("REPLICATE_API_KEY",)),
    "together_ai": (("TOGETHERAI_API_KEY",), ("TOGETHERAI_API_KEY",)),
    "xai": (("XAI_API_KEY",), ("XAI_API_KEY",)),
}
"""Provider -> (the variables any one of which satisfies it, the variables named
when none is set), as ``litellm.validate_environment`` decides for that provider.
``<provider>/<name>`` of these is routed to the provider whatever the name, so
:func:`provider_without_litellm` answers for them."""

LOCAL_SERVER_PROVIDERS: dict[str, tuple[str, str]] = {
    "ollama": ("OLLAMA_API_BASE", "http://localhost:11434"),
    "ollama_chat": ("OLLAMA_API_BASE", "http://localhost:11434"),
    "llamafile": ("LLAMAFILE_API_BASE", "http://127.0.0.1:8080/v1"),
    "lemonade": ("LEMONADE_API_BASE", "http://localhost:8000/api/v1"),
    "docker_model_runner": (
        "DOCKER_MODEL_RUNNER_API_BASE",
        "http://localhost:22088/engines/llama.cpp",
    ),
}
"""Providers of a server on this machine that takes no key -> (the variable LiteLLM
reads for its address, the address LiteLLM uses when that is not set either).
``<provider>/<name>`` of these is routed to the provider whatever the name."""

BARE_NAME_PROVIDERS = frozenset({"anthropic", "openai"})
"""Providers whose models LiteLLM routes by their bare name as its map lists them
(``gpt-4o-mini``, ``claude-haiku-4-5``); other providers' bare names are
routed by lists of LiteLLM's own, so they are left to LiteLLM."""


def provider_without_litellm(model: str) -> str | None:
    """The provider LiteLLM routes ``model`` to, when it is known without importing
    LiteLLM; ``None`` otherwise (ask LiteLLM).

    Known: a ``<provider>/<name>`` of :data:`KEY_VARIABLES` or
    :data:`LOCAL_SERVER_PROVIDERS`, and a name without
    a provider prefix (nor a ``:``) of one of :data:`BARE_NAME_PROVIDERS` that
    LiteLLM's bundled model map lists (``gpt-4o-mini``: ``openai``) or that its
    routing rules give that provider (``claude-sonnet-9``: ``anthropic``, see
    :func:`~praisonlike.models.bare_names.provider_by_rule`). Never consulted
    once LiteLLM is imported (an application may have registered models or
    changed its map).
    """
    from praisonlike.models import bare_names, litellm_backend, model_map

    if litellm_backend.imported():
        return None
    prefix, slash, rest = model.partition("/")
    if slash:
        known = prefix in KEY_VARIABLES or prefix in LOCAL_SERVER_PROVIDERS
        return prefix if known and rest else None
    if ":" in model:
        return None
    provider = model_map.bundled_provider(model) or bare_names.provider_by_rule(model)
    return provider if provider in BARE_NAME_PROVIDERS else None


def is_local_model(model: str) -> bool:
    """True for the bundled offline model: ``"local"`` or ``"local/<name>"``."""
    return model == "local" or model.startswith("local/")


@functools.lru_cache(maxsize=256)
def provider_of(model: str) -> str | None:
    """The provider LiteLLM routes ``model`` to (``"openai"`` for ``"gpt-4o-mini"``),
    ``"local"`` for the bundled model, ``None`` when LiteLLM cannot tell. Imports
    LiteLLM only for a model :func:`provider_without_litellm` cannot answer."""
    if is_local_model(model):
        return LOCAL_PROVIDER
    if is_openai_prefixed(model):
        return OPENAI_PROVIDER
    known = provider_without_litellm(model)
    if known is not None:
        return known
    from praisonlike.models.litellm_backend import load_litellm

    try:
        _, provider, _, _ = load_litellm().get_llm_provider(model=model)
    except Exception:
        return None
    return str(provider) if provider else None


def related_config(base: LLMConfig, model: str) -> LLMConfig:
    """The configuration of ``model``, named by a string next to ``base``.

    On the provider of ``base`` it takes all of ``base``'s settings (endpoint,
    key, ``extra``, ``features``, ...) but its fallbacks. On another provider,
    or one LiteLLM cannot tell, it takes only ``temperature``, ``max_tokens``,
    ``timeout`` and ``prompt_cache``: LiteLLM then reads its endpoint and key
    from that provider's environment variables, as for a primary model.
    """
    provider = provider_of(model)
    if provider is not None and provider == provider_of(base.model):
        return dataclasses.replace(base, model=model, fallback_models=())
    return LLMConfig(
        model=model,
        temperature=base.temperature,
        max_tokens=base.max_tokens,
        timeout=base.timeout,
        prompt_cache=base.prompt_cache,
    )
