"""Turning the agent's ``llm`` setting into the concrete model a call goes to.

``None`` picks the default model (see :mod:`praisonlike.agent.default_model`);
``"local"`` and ``"local/..."`` start the bundled llama.cpp server on first use
and point the call at it.
"""

from __future__ import annotations

from pydantic import SecretStr

from praisonlike.agent.default_model import default_model
from praisonlike.llm.config import LLMConfig


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
    update: dict[str, object] = {"model": litellm_model, "api_base": api_base}
    if config.api_key is None:
        update["api_key"] = SecretStr("local")
    if config.temperature is None:
        update["temperature"] = 0.0
    return config.model_copy(update=update)
