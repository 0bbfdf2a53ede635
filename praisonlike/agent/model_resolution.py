"""Turning the agent's ``llm`` setting into the concrete model a call goes to.

``None`` picks the default model (see :mod:`praisonlike.agent.default_model`);
``"local"`` and ``"local/..."`` start the bundled llama.cpp server on first use
and point the call at it.
"""

from __future__ import annotations

import dataclasses

from praisonlike.agent.default_model import default_model
from praisonlike.llm.config import LLMConfig, Secret


def is_local_model(model: str) -> bool:
    return model == "local" or model.startswith("local/")


def resolve_llm(config: LLMConfig | None) -> LLMConfig:
    """The LLMConfig a call is sent with (model chosen, local server started)."""
    if config is None:
        config = LLMConfig(model=default_model())
    if not is_local_model(config.model):
        return config
    from praisonlike.llm.local import local_endpoint

    litellm_model, api_base = local_endpoint(config.model)
    return dataclasses.replace(
        config,
        model=litellm_model,
        api_base=api_base,
        api_key=config.api_key or Secret("local"),
        temperature=0.0 if config.temperature is None else config.temperature,
    )
