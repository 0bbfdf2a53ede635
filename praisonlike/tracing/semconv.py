"""OpenTelemetry GenAI semantic-convention names and values used by :mod:`praisonlike.tracing`.

No OpenTelemetry import here: only attribute keys and the helpers that build
their values (provider names, JSON message bodies).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
AGENT_NAME = "gen_ai.agent.name"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_CALL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"
EXCEPTION_TYPE = "exception.type"
EXCEPTION_MESSAGE = "exception.message"

RUN_ID = "praisonlike.run_id"
COST_USD = "praisonlike.cost_usd"
TERMINATION_REASON = "praisonlike.termination_reason"
ITERATION = "praisonlike.iteration"
ITERATIONS = "praisonlike.iterations"
PURPOSE = "praisonlike.purpose"
TOOL_MODE = "praisonlike.tool_mode"
LATENCY_S = "praisonlike.latency_s"
TOOL_CALL_COUNT = "praisonlike.tool_call_count"
MESSAGE_COUNT = "praisonlike.message_count"
RETRIES = "praisonlike.retries"

INVOKE_AGENT = "invoke_agent"
CHAT = "chat"
EXECUTE_TOOL = "execute_tool"

#: LiteLLM provider prefixes whose GenAI well-known name differs from the prefix.
_PROVIDER_NAMES = {
    "azure": "azure.ai.openai",
    "azure_ai": "azure.ai.inference",
    "bedrock": "aws.bedrock",
    "bedrock_converse": "aws.bedrock",
    "gemini": "gcp.gemini",
    "vertex_ai": "gcp.vertex_ai",
    "vertex_ai_beta": "gcp.vertex_ai",
    "mistral": "mistral_ai",
    "watsonx": "ibm.watsonx.ai",
    "xai": "x_ai",
}

UNKNOWN_PROVIDER = "_OTHER"


@lru_cache(maxsize=256)
def split_model(model: str) -> tuple[str, str]:
    """``(gen_ai.provider.name, gen_ai.request.model)`` for a LiteLLM model string.

    ``"openai/gpt-4o"`` gives ``("openai", "gpt-4o")``; a bare name is resolved
    through LiteLLM's model map (``"gpt-4o"`` -> ``openai``) and, when LiteLLM
    does not know it, the provider is ``"_OTHER"`` and the name is kept whole.
    Models whose provider is known without LiteLLM (``openai/<name>``, the
    bundled ``local`` model, :func:`~praisonlike.models.providers.provider_without_litellm`)
    give the same answer without importing it.
    """
    provider, name = _known_provider(model) or _litellm_provider(model)
    if provider is None:
        return UNKNOWN_PROVIDER, model
    return _PROVIDER_NAMES.get(provider, provider), name


def _known_provider(model: str) -> tuple[str | None, str] | None:
    """What :func:`_litellm_provider` answers, when it is known without LiteLLM; else None."""
    from praisonlike.models.providers import is_local_model, provider_without_litellm

    prefix, slash, rest = model.partition("/")
    if is_local_model(model):  # not a LiteLLM provider: LiteLLM fails, the prefix is kept
        return (prefix, rest) if slash and rest else (None, model)
    provider = provider_without_litellm(model)
    if provider is None:
        return None
    return provider, rest if slash else model


def _litellm_provider(model: str) -> tuple[str | None, str]:
    from praisonlike.models.litellm_backend import load_litellm

    litellm = load_litellm()
    try:
        name, provider, _, _ = litellm.get_llm_provider(model)
    except Exception:
        prefix, slash, rest = model.partition("/")
        return (prefix, rest) if slash and prefix and rest else (None, model)
    return str(provider), str(name)


def text_messages(role: str, text: str, finish_reason: str | None = None) -> str:
    """One GenAI chat message as the JSON string spans carry; no parts when ``text`` is empty."""
    parts = [{"type": "text", "content": text}] if text else []
    message: dict[str, Any] = {"role": role, "parts": parts}
    if finish_reason is not None:
        message["finish_reason"] = finish_reason
    return json.dumps([message], ensure_ascii=False)


def json_value(value: Any) -> str:
    """A tool argument or result as the string attribute value (JSON unless already text)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
