"""The size of a model's context window."""

from __future__ import annotations

import functools
import threading

from praisonlike._runtime.user_warnings import warn_at_caller
from praisonlike.context.config import ContextConfig
from praisonlike.models.preflight import routable

DEFAULT_CONTEXT_WINDOW = 8192

_warned: set[str] = set()
_warned_lock = threading.Lock()


class ContextWindowUnknownWarning(UserWarning):
    """The model's context window is unknown; a default is used."""


def context_window(model: str, config: ContextConfig) -> int:
    """The model's context window in tokens (input and output together).

    ``config.max_context_tokens`` when set; else the ``max_input_tokens`` of
    LiteLLM's local model map (looked up with and without provider prefixes);
    else :data:`DEFAULT_CONTEXT_WINDOW`, with one
    :class:`ContextWindowUnknownWarning` per model per process; none for a name
    LiteLLM cannot route (its first call raises ``UnknownModelError`` instead).
    """
    if config.max_context_tokens is not None:
        return config.max_context_tokens
    size = known_context_window(model)
    if size is not None:
        return size
    with _warned_lock:
        first = model not in _warned
        _warned.add(model)
    if first and routable(model):
        warn_at_caller(
            f"context window of model {model!r} is unknown; assuming {DEFAULT_CONTEXT_WINDOW} "
            "tokens (set ContextConfig.max_context_tokens, or the CLI's --context-window, "
            "to override)",
            ContextWindowUnknownWarning,
        )
    return DEFAULT_CONTEXT_WINDOW


def _candidates(model: str) -> list[str]:
    parts = model.split("/")
    return ["/".join(parts[i:]) for i in range(len(parts)) if parts[i]]


@functools.lru_cache(maxsize=256)
def known_context_window(model: str) -> int | None:
    """The window LiteLLM's local model map gives for ``model``, or None
    (an in-process test model: :data:`~praisonlike.models.in_process.IN_PROCESS_CONTEXT_WINDOW`)."""
    from praisonlike.models.in_process import IN_PROCESS_CONTEXT_WINDOW, is_in_process_label
    from praisonlike.models.providers import is_openai_prefixed, provider_without_litellm

    if is_in_process_label(model):
        return IN_PROCESS_CONTEXT_WINDOW
    openai_prefixed = is_openai_prefixed(model)
    if openai_prefixed or provider_without_litellm(model):  # read without importing LiteLLM
        from praisonlike.models.model_map import entry

        for candidate in _candidates(model):
            info = entry(candidate)
            size = info and (info.get("max_input_tokens") or info.get("max_tokens"))
            if isinstance(size, int) and size > 0:
                return size
        if openai_prefixed:
            return None
    from praisonlike.models.litellm_backend import load_litellm

    litellm = load_litellm()
    for candidate in _candidates(model):
        try:
            info = litellm.get_model_info(candidate)
        except Exception:  # LiteLLM raises a bare Exception for unmapped models
            continue
        size = info.get("max_input_tokens") or info.get("max_tokens")
        if isinstance(size, int) and size > 0:
            return size
    return None
