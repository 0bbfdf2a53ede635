"""Prices of models and the cost of their usage, in USD.

Prices come from the caller's overrides first, then from LiteLLM's local price
map (never downloaded); for ``openai/<name>`` models the map is read without
importing LiteLLM (:mod:`praisonlike.models.model_map`). The bundled local models
(``local``, ``local/<name>``) run on this machine and cost nothing. A model with no
known price costs ``None`` -- never 0 -- so totals can say they are incomplete
(see :class:`~praisonlike.models.usage.Usage`).
Prices are flat per token: LiteLLM's base rates, without tiers for long prompts
or batch / priority discounts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from praisonlike.errors import ConfigurationError
from praisonlike.models import model_map
from praisonlike.models.bare_names import surely_unroutable
from praisonlike.models.in_process import is_in_process_label
from praisonlike.models.litellm_backend import load_litellm
from praisonlike.models.providers import is_openai_prefixed
from praisonlike.models.usage import Usage

_PER_MILLION = 1_000_000
_LOCAL_PREFIX = "local"


@dataclass(frozen=True)
class ModelPrice:
    """USD per million tokens; ``cached_input_per_mtok`` (prompt tokens read from the
    provider's cache) and ``cache_write_per_mtok`` (written to it) are ``None`` when
    the model has no separate rate: those tokens then cost the input rate."""

    input_per_mtok: float
    output_per_mtok: float
    cached_input_per_mtok: float | None = None
    cache_write_per_mtok: float | None = None


_prices: dict[str, ModelPrice | None] = {}
"""Prices found without an override, by model (free local and in-process models too)."""


def resolve_price(
    model: str, overrides: Mapping[str, Mapping[str, float]] | None = None
) -> ModelPrice | None:
    """The price of ``model``, or ``None`` when it is unknown.

    ``overrides`` maps model names to ``{"input": ..., "output": ...}`` and
    optional ``"cached_input"`` and ``"cache_write"``, in USD per million tokens.
    They are matched by the exact model string, then by the name without its
    provider prefix (``"openai/gpt-4o-mini"`` matches an override for
    ``"gpt-4o-mini"``), before LiteLLM's price map is consulted. A model LiteLLM
    only guesses at (it resolves ``gpt-9-turbo`` to an entry with zero prices
    that is not in its map) has no price. ``local`` and ``local/<name>`` are free (all rates 0),
    and so are in-process test models (``function:<name>``).
    LiteLLM lookups are cached per model.

    Raises:
        ConfigurationError: a matching override lacks ``input`` or ``output``,
            or has a negative or non-numeric rate.
    """
    if overrides:
        override = _find_override(model, overrides)
        if override is not None:
            return _price_from_override(model, override)
    try:
        return _prices[model]
    except KeyError:
        pass
    free = model == _LOCAL_PREFIX or model.startswith(f"{_LOCAL_PREFIX}/")
    price = ModelPrice(0.0, 0.0, 0.0) if free or is_in_process_label(model) else None
    if price is None:
        price = _price_from_litellm(model)
    _prices[model] = price  # one dict write: safe from any thread
    return price


def cost_of(
    model: str, usage: Usage, overrides: Mapping[str, Mapping[str, float]] | None = None
) -> float | None:
    """USD cost of ``usage`` on ``model``; ``None`` when the price is unknown.

    Cached tokens and cache writes are parts of ``prompt_tokens``; each is billed
    at its own rate when the model has one and at the input rate otherwise.
    Reasoning tokens are part of ``completion_tokens`` and billed as output.
    """
    price = resolve_price(model, overrides)
    if price is None:
        return None
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    written = min(usage.cache_write_tokens, usage.prompt_tokens - cached)
    total = (
        (usage.prompt_tokens - cached - written) * price.input_per_mtok
        + cached * _or(price.cached_input_per_mtok, price.input_per_mtok)
        + written * _or(price.cache_write_per_mtok, price.input_per_mtok)
        + usage.completion_tokens * price.output_per_mtok
    )
    return total / _PER_MILLION


def _or(rate: float | None, default: float) -> float:
    return default if rate is None else rate


def usage_from_response(raw_usage: Any) -> Usage:
    """The :class:`Usage` of one request, from an OpenAI/LiteLLM usage object or dict.

    Reads ``prompt_tokens``, ``completion_tokens``, ``total_tokens``,
    ``prompt_tokens_details.cached_tokens``, the cache writes
    (``prompt_tokens_details.cache_creation_tokens``, else LiteLLM's
    ``cache_creation_input_tokens``) and
    ``completion_tokens_details.reasoning_tokens``. Missing, negative or
    non-integer counts count as 0; a missing ``total_tokens`` is the sum of prompt
    and completion tokens. ``None`` gives a request with no tokens. The cost is
    left unknown (``None``); see :func:`cost_of`.
    """
    prompt, completion, total, prompt_details, completion_details = _fields(
        raw_usage, _USAGE_FIELDS
    )
    cached = reasoning = written = None
    if prompt_details is not None:
        cached = _field(prompt_details, "cached_tokens")
        written = _field(prompt_details, "cache_creation_tokens")
    if written is None:  # read only when needed: LiteLLM keeps it as an extra (slow to read)
        written = _field(raw_usage, "cache_creation_input_tokens")
    if completion_details is not None:
        reasoning = _field(completion_details, "reasoning_tokens")
    prompt, completion, total, cached, written, reasoning = _counts(
        prompt, completion, total, cached, written, reasoning
    )
    return Usage(
        requests=1,
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total or prompt + completion,
        cached_tokens=cached,
        cache_write_tokens=written,
        reasoning_tokens=reasoning,
    )


_USAGE_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "prompt_tokens_details",
    "completion_tokens_details",
)


def _find_override(
    model: str, overrides: Mapping[str, Mapping[str, float]]
) -> Mapping[str, float] | None:
    if model in overrides:
        return overrides[model]
    _, slash, bare = model.partition("/")
    if slash and bare in overrides:
        return overrides[bare]
    return None


def _price_from_override(model: str, override: Mapping[str, float]) -> ModelPrice:
    missing = [key for key in ("input", "output") if key not in override]
    if missing:
        raise ConfigurationError(
            f"price override for {model!r} lacks {', '.join(missing)} (USD per million tokens)"
        )
    cached, written = override.get("cached_input"), override.get("cache_write")
    return ModelPrice(
        input_per_mtok=_rate(model, "input", override["input"]),
        output_per_mtok=_rate(model, "output", override["output"]),
        cached_input_per_mtok=None if cached is None else _rate(model, "cached_input", cached),
        cache_write_per_mtok=None if written is None else _rate(model, "cache_write", written),
    )


def _rate(model: str, key: str, value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise ConfigurationError(
            f"price override {key!r} for {model!r} must be a non-negative number, got {value!r}"
        )
    return float(value)


def _price_from_litellm(model: str) -> ModelPrice | None:
    info = model_map.provider_entry(model)  # a name the map lists: no LiteLLM import
    if info is not None:
        return _price_of(info)
    if is_openai_prefixed(model):
        return None
    if surely_unroutable(model):  # in the map under no name: LiteLLM has no price either
        return None
    litellm = load_litellm()
    try:
        info = litellm.get_model_info(model)
    except Exception:
        return None
    if info.get("key") not in litellm.model_cost:
        return None
    return _price_of(info)


def _price_of(info: Mapping[str, Any]) -> ModelPrice | None:
    input_cost = _per_token(info, "input_cost_per_token")
    output_cost = _per_token(info, "output_cost_per_token")
    if input_cost is None or output_cost is None:
        return None
    cached_cost = _per_token(info, "cache_read_input_token_cost")
    write_cost = _per_token(info, "cache_creation_input_token_cost")
    return ModelPrice(
        input_per_mtok=input_cost * _PER_MILLION,
        output_per_mtok=output_cost * _PER_MILLION,
        cached_input_per_mtok=None if cached_cost is None else cached_cost * _PER_MILLION,
        cache_write_per_mtok=None if write_cost is None else write_cost * _PER_MILLION,
    )


def _per_token(info: Mapping[str, Any], key: str) -> float | None:
    value = info.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def _field(source: Any, name: str) -> Any:
    if source is None:
        return None
    if isinstance(source, dict):
        return source.get(name)
    value = getattr(source, name, None)
    if value is None and isinstance(source, Mapping):  # a mapping that is not a dict
        return source.get(name)
    return value


def _fields(source: Any, names: tuple[str, ...]) -> list[Any]:
    """:func:`_field` of each of ``names``, in one pass for an object or a dict."""
    if source is None:
        return [None] * len(names)
    if isinstance(source, dict):
        return [source.get(name) for name in names]
    values = [getattr(source, name, None) for name in names]
    if isinstance(source, Mapping):  # a mapping that is not a dict
        return [source.get(n) if v is None else v for n, v in zip(names, values, strict=True)]
    return values


def _counts(*values: Any) -> Sequence[int]:
    """:func:`_count` of each value; a plain non-negative int passes as it is, None is 0."""
    if all(type(v) is int and v >= 0 for v in values):
        return values
    return [_count(v) for v in values]


def _count(value: Any) -> int:
    if value is None or isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return max(int(value), 0)
    return 0


__all__ = ["ModelPrice", "cost_of", "resolve_price", "usage_from_response"]
