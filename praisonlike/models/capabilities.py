"""What a model can do, read from LiteLLM's bundled model map.

The bundled local models (``local``, ``local/<name>``, and the ``openai/<alias>``
names their server is reached by) are answered first, from their
:class:`~praisonlike.models.local.LocalModelSpec`: they use text (ReAct) tool calls,
which small models follow far better than their chat template's native format,
constrained by a grammar their llama.cpp server takes per request.

Other models come from LiteLLM's map, read as data (``litellm.model_cost``, the
local copy LiteLLM ships, since :func:`praisonlike.models.litellm_backend.load_litellm`
sets ``LITELLM_LOCAL_MODEL_COST_MAP``). LiteLLM's ``get_model_info`` is not
called because for some providers (Ollama, Hugging Face) it asks a server, and
this lookup must never do I/O.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from praisonlike.models.model_map import entry as map_entry


@dataclass(frozen=True)
class ModelFeatures:
    """The capabilities the tool loop and input checks rely on.

    Attributes:
        native_tool_calls: the model returns OpenAI ``tool_calls``; when False the
            loop uses text (ReAct) tool calls. Assumed for unknown models, since
            calls written as JSON text are detected anyway.
        vision: the model accepts image inputs.
        response_schema: the model honours a JSON-schema ``response_format``.
        system_role: the model accepts ``system`` messages.
        context_window: maximum input tokens, when known.
        max_output_tokens: maximum output tokens, when known.
        known: LiteLLM's local map knows the model.
        tool_grammar: the endpoint takes a llama.cpp (LLGuidance) grammar per
            request; in ReAct mode each round offering tools then constrains the
            reply to plain text or one valid call (see
            :mod:`praisonlike.react.grammar`). True for the bundled local
            models and any GGUF file served by praisonlike, False otherwise.
        local_server: the model runs on a llama.cpp server praisonlike started on
            this machine. A call to it that times out is not retried: the server
            would compute the same answer again in the same time (the turn falls
            back to the next model, or fails with ``LLMTimeoutError``).
    """

    native_tool_calls: bool = True
    vision: bool = False
    response_schema: bool = False
    system_role: bool = True
    context_window: int | None = None
    max_output_tokens: int | None = None
    known: bool = False
    tool_grammar: bool = False
    local_server: bool = False


FEATURE_NAMES: frozenset[str] = frozenset(field.name for field in fields(ModelFeatures))
_INT_FEATURES = frozenset({"context_window", "max_output_tokens"})


def model_features(model: str, overrides: Mapping[str, Any] | None = None) -> ModelFeatures:
    """The features of ``model``, with ``overrides`` (e.g. ``LLMConfig.features``) applied.

    The model is looked up as given, then without its provider prefix
    (``"openrouter/gpt-4o"`` -> ``"gpt-4o"``). In the map, a missing
    ``supports_function_calling`` means no native tool calls, a missing
    ``supports_system_messages`` means the system role works. Unknown models
    get the :class:`ModelFeatures` defaults. An override key that is not a
    field raises ``ValueError``. Results are cached per (model, overrides).
    """
    if not overrides:
        return _cached_features(model, ())
    frozen = tuple(sorted(overrides.items()))
    unknown = sorted(key for key, _ in frozen if key not in FEATURE_NAMES)
    if unknown:
        allowed = ", ".join(sorted(FEATURE_NAMES))
        raise ValueError(f"unknown model feature(s) {', '.join(unknown)}; allowed: {allowed}")
    for key, value in frozen:
        _check_override(key, value)
    return _cached_features(model, frozen)


def _check_override(key: str, value: Any) -> None:
    if key in _INT_FEATURES:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"model feature {key} must be an int or None, not {value!r}")
    elif not isinstance(value, bool):
        raise ValueError(f"model feature {key} must be a bool, not {value!r}")


@functools.lru_cache(maxsize=512)
def _cached_features(model: str, overrides: tuple[tuple[str, Any], ...]) -> ModelFeatures:
    features = _map_features(model)
    return replace(features, **dict(overrides)) if overrides else features


def _map_features(model: str) -> ModelFeatures:
    local = _local_features(model)
    if local is not None:
        return local
    entry = _map_entry(model)
    if entry is None:
        return ModelFeatures()
    return ModelFeatures(
        native_tool_calls=entry.get("supports_function_calling") is True,
        vision=entry.get("supports_vision") is True,
        response_schema=entry.get("supports_response_schema") is True,
        system_role=entry.get("supports_system_messages") is not False,
        context_window=_positive_int(entry.get("max_input_tokens") or entry.get("max_tokens")),
        max_output_tokens=_positive_int(entry.get("max_output_tokens")),
        known=True,
    )


def _local_features(model: str) -> ModelFeatures | None:
    from praisonlike.models.local.model_file import DEFAULT_LOCAL_MODEL, LOCAL_MODELS

    prefix, _, name = model.rpartition("/") if "/" in model else ("", "", model)
    if model == "local":
        prefix, name = "local", DEFAULT_LOCAL_MODEL
    elif model.startswith("local/"):
        prefix, name = "local", model[len("local/") :]
    elif prefix not in ("", "openai"):
        return None
    spec = LOCAL_MODELS.get(name)
    if spec is not None:
        return ModelFeatures(
            native_tool_calls=spec.native_tool_calls,
            context_window=spec.context_window,
            tool_grammar=True,
            local_server=True,
        )
    if (prefix == "local" and name.endswith(".gguf")) or (
        prefix == "openai" and _served_here(name)
    ):
        from praisonlike.models.local.server import DEFAULT_CONTEXT

        return ModelFeatures(
            native_tool_calls=False,
            context_window=DEFAULT_CONTEXT,
            tool_grammar=True,
            local_server=True,
        )
    return None


def _served_here(alias: str) -> bool:
    """Whether a local server this process started or found answers to ``openai/<alias>``.

    Without the server module loaded, no such server exists: an ``openai/``
    model elsewhere does not load the local-model code to find that out.
    """
    server = sys.modules.get("praisonlike.models.local.server")
    return server is not None and alias in server.served_model_names()


def _map_entry(model: str) -> Mapping[str, Any] | None:
    found = map_entry(model)
    if found is None and "/" in model:
        found = map_entry(model.split("/", 1)[1])
    return found


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return int(value)
