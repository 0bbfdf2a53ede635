"""Which transport sends a model call: the ``openai`` SDK directly, or LiteLLM.

The rule (:func:`transport_for`), kept conservative so both send the same request:

* ``"openai"`` (:mod:`praisonlike.models.openai_wire`) for a model LiteLLM itself
  would send unchanged through the ``openai`` client to an OpenAI-compatible
  server the caller names: an ``openai/<name>`` model with an ``api_base``
  (vLLM, llama.cpp, Ollama's ``/v1``, LM Studio,
  :class:`~praisonlike.testing.LocalLLMServer`) whose ``<name>`` is not one of
  OpenAI's own models in LiteLLM's map, and the bundled ``local`` models (an
  ``openai/<name>`` model at their llama.cpp server); and only when every
  parameter of the call (``LLMConfig.extra`` and the turn's own) is a standard
  OpenAI chat parameter (:data:`~praisonlike.models.openai_wire.OPENAI_WIRE_PARAMS`).
* ``"litellm"`` for everything else: other providers, any model without an
  ``api_base``, OpenAI's own models (``openai/o3-mini``, ``openai/gpt-4o``)
  even at a custom ``api_base`` (LiteLLM adapts their parameters, e.g. drops
  ``temperature`` for reasoning models), a ``custom_llm_provider`` or any
  other provider-specific parameter, and every call when
  ``LLMConfig(transport="litellm")`` or the environment variable
  ``PRAISONLIKE_TRANSPORT=litellm`` asks for it (for LiteLLM callbacks, logging
  or proxies an application relies on).

A third, ``"in_process"``, is chosen for an
:class:`~praisonlike.models.in_process.InProcessModel` (the test doubles
``FunctionModel`` and ``TestModel``): the model object answers the call itself,
with no socket, no pre-flight credential check and no network guard (nothing
leaves the process), whatever ``transport`` or the environment ask for.

A call is sent on its transport by :mod:`praisonlike.models.sending`. All
transports give the rest of the SDK the same thing: the response object
read by :mod:`praisonlike.models.codec`, and exceptions classified by
:mod:`praisonlike.models.error_classification`. The pre-flight check and the network
guard (:func:`~praisonlike.models.preflight.check_call`) are the tool loop's: they
run before a request is built, so neither transport sends anything they refuse.
LiteLLM is imported only by a call (or a warm-up) that goes through it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from praisonlike.models import litellm_backend, model_map, openai_wire
from praisonlike.models.config import LLMConfig
from praisonlike.models.in_process import InProcessModel
from praisonlike.models.providers import is_local_model, is_openai_prefixed

TRANSPORT_ENV = "PRAISONLIKE_TRANSPORT"
"""Set to ``litellm`` to send every model call through LiteLLM."""

Transport = Literal["openai", "litellm", "in_process"]


def litellm_forced() -> bool:
    """True when ``PRAISONLIKE_TRANSPORT=litellm`` is set."""
    return os.environ.get(TRANSPORT_ENV, "").strip().lower() == "litellm"


def transport_for(config: LLMConfig, params: Mapping[str, Any] | None = None) -> Transport:
    """The transport a call to ``config`` with the turn's extra ``params`` goes through.

    See the module docstring for the rule. Sends nothing and never imports
    LiteLLM (its bundled price map is read as a file, once).
    """
    if isinstance(config, InProcessModel):
        return "in_process"
    if config.transport == "litellm" or not _openai_wire_call(config, params):
        return "litellm"
    return "litellm" if litellm_forced() else "openai"


def _openai_wire_call(config: LLMConfig, params: Mapping[str, Any] | None) -> bool:
    """Whether the rule sends this call on the OpenAI wire, unless told otherwise
    (the environment is read only for such a call)."""
    if not openai_wire.accepts(config.extra) or (params and not openai_wire.accepts(params)):
        return False
    if is_local_model(config.model):
        return True
    if not config.api_base or not is_openai_prefixed(config.model):
        return False
    return not model_map.is_openai_own_model(config.model)


def needs_litellm(config: LLMConfig | None) -> bool:
    """Whether calls to ``config`` go through LiteLLM (``None``, the default model: True)."""
    return config is None or transport_for(config) == "litellm"


def warm_up_for(config: LLMConfig | None) -> None:
    """Start the background warm-up (:func:`~praisonlike.models.litellm_backend.warmup`),
    importing LiteLLM only when calls to ``config`` will need it."""
    litellm_backend.warmup(litellm=needs_litellm(config))


__all__ = [
    "TRANSPORT_ENV",
    "Transport",
    "litellm_forced",
    "needs_litellm",
    "transport_for",
    "warm_up_for",
]
