"""Model prices, the cost of usage, and usage read from provider responses."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from types import MappingProxyType, ModuleType, SimpleNamespace
from typing import Any

import pytest
from fresh_process import fresh_python

from praisonlike.errors import ConfigurationError
from praisonlike.models import litellm_backend, pricing
from praisonlike.models.pricing import (
    ModelPrice,
    cost_of,
    resolve_price,
    usage_from_response,
)
from praisonlike.models.usage import Usage

UNKNOWN_MODEL = "openai/test-model"


@pytest.fixture(scope="module")
def litellm() -> ModuleType:
    return litellm_backend.load_litellm()


def usage(prompt: int, completion: int, cached: int = 0) -> Usage:
    return Usage(
        requests=1,
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        cached_tokens=cached,
    )


# -- prices from LiteLLM ------------------------------------------------------------


def test_gpt_4o_mini_price_is_litellms(litellm: ModuleType) -> None:
    info = litellm.model_cost["gpt-4o-mini"]
    price = resolve_price("gpt-4o-mini")
    assert price is not None
    assert price.input_per_mtok == pytest.approx(info["input_cost_per_token"] * 1e6)
    assert price.output_per_mtok == pytest.approx(info["output_cost_per_token"] * 1e6)
    assert price.cached_input_per_mtok == pytest.approx(info["cache_read_input_token_cost"] * 1e6)


@pytest.mark.parametrize("model", ["gpt-4o-mini", "openai/gpt-4o-mini"])
def test_cost_matches_litellm_cost_per_token(litellm: ModuleType, model: str) -> None:
    prompt_cost, completion_cost = litellm.cost_per_token(
        model=model, prompt_tokens=1200, completion_tokens=345
    )
    assert cost_of(model, usage(1200, 345)) == pytest.approx(prompt_cost + completion_cost)


def test_cached_tokens_use_the_cached_rate(litellm: ModuleType) -> None:
    prompt_cost, completion_cost = litellm.cost_per_token(
        model="gpt-4o-mini", prompt_tokens=1000, completion_tokens=500, cache_read_input_tokens=400
    )
    with_cache = cost_of("gpt-4o-mini", usage(1000, 500, cached=400))
    assert with_cache == pytest.approx(prompt_cost + completion_cost)
    without_cache = cost_of("gpt-4o-mini", usage(1000, 500))
    assert without_cache is not None and with_cache is not None
    assert with_cache < without_cache


def test_unknown_model_has_no_price() -> None:
    assert resolve_price(UNKNOWN_MODEL) is None
    assert resolve_price("no-such-provider/no-such-model") is None
    assert cost_of(UNKNOWN_MODEL, usage(10, 10)) is None


def test_litellm_lookups_are_cached(litellm: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = litellm.get_model_info

    def counting(model: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(model)
        return real(model, *args, **kwargs)

    monkeypatch.setattr(litellm, "get_model_info", counting)
    monkeypatch.setattr(pricing, "_prices", {})
    # the map lists gemini-2.5-flash under vertex_ai-language-models: LiteLLM's rule
    first = resolve_price("vertex_ai/gemini-2.5-flash")
    second = resolve_price("vertex_ai/gemini-2.5-flash")
    resolve_price("anthropic/claude-9")
    resolve_price("anthropic/claude-9")
    assert first is not None and first == second
    assert calls == ["vertex_ai/gemini-2.5-flash", "anthropic/claude-9"]


def test_openai_models_are_priced_from_the_map_without_asking_litellm(
    litellm: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``openai/<name>`` is read from the price map as data: the same price
    LiteLLM's lookup gives, and unknown names stay unpriced."""
    monkeypatch.setattr(pricing, "_prices", {})
    info = litellm.get_model_info("openai/gpt-4o-mini")
    monkeypatch.setattr(litellm, "get_model_info", None)
    price = resolve_price("openai/gpt-4o-mini")
    assert price is not None
    assert price.input_per_mtok == pytest.approx(info["input_cost_per_token"] * 1_000_000)
    assert price.output_per_mtok == pytest.approx(info["output_cost_per_token"] * 1_000_000)
    assert resolve_price(UNKNOWN_MODEL) is None


# -- overrides ------------------------------------------------------------------------


def test_override_by_exact_name() -> None:
    overrides = {"openai/test-model": {"input": 1.0, "output": 2.0}}
    assert resolve_price(UNKNOWN_MODEL, overrides) == ModelPrice(1.0, 2.0)
    assert cost_of(UNKNOWN_MODEL, usage(1_000_000, 500_000), overrides) == pytest.approx(2.0)


def test_override_without_provider_prefix() -> None:
    overrides = {"gpt-4o-mini": {"input": 10.0, "output": 20.0, "cached_input": 1.0}}
    price = resolve_price("openai/gpt-4o-mini", overrides)
    assert price == ModelPrice(10.0, 20.0, 1.0)
    cost = cost_of("openai/gpt-4o-mini", usage(1_000_000, 0, cached=500_000), overrides)
    assert cost == pytest.approx(5.0 + 0.5)


def test_exact_override_wins_over_prefix_stripped() -> None:
    overrides = {
        "gpt-4o-mini": {"input": 1.0, "output": 1.0},
        "azure/gpt-4o-mini": {"input": 3.0, "output": 4.0},
    }
    assert resolve_price("azure/gpt-4o-mini", overrides) == ModelPrice(3.0, 4.0)
    assert resolve_price("openai/gpt-4o-mini", overrides) == ModelPrice(1.0, 1.0)


def test_override_wins_over_litellm() -> None:
    assert resolve_price("gpt-4o-mini", {"gpt-4o-mini": {"input": 0, "output": 0}}) == ModelPrice(
        0.0, 0.0
    )


def test_unmatched_override_falls_through_to_litellm() -> None:
    overrides = {"other-model": {"input": 9.0, "output": 9.0}}
    assert resolve_price("gpt-4o-mini", overrides) == resolve_price("gpt-4o-mini")
    assert resolve_price(UNKNOWN_MODEL, overrides) is None


def test_cached_tokens_without_cached_rate_cost_the_input_rate() -> None:
    overrides = {"m": {"input": 2.0, "output": 0.0}}
    assert cost_of("m", usage(1_000_000, 0, cached=600_000), overrides) == pytest.approx(2.0)


@pytest.mark.parametrize(
    "override",
    [
        {"input": 1.0},
        {"output": 1.0},
        {"input": -1.0, "output": 1.0},
        {"input": "cheap", "output": 1.0},
        {"input": 1.0, "output": float("nan")},
        {"input": 1.0, "output": 1.0, "cached_input": -0.5},
    ],
)
def test_invalid_override_is_a_configuration_error(override: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError, match="my-model"):
        resolve_price("my-model", {"my-model": override})


# -- cost on Usage ---------------------------------------------------------------------


def test_with_cost_of_a_usage_sets_only_the_cost() -> None:
    base = usage(1000, 100)
    priced = base.with_cost(cost_of("m", base, {"m": {"input": 1.0, "output": 10.0}}))
    assert priced.cost == pytest.approx(0.001 + 0.001)
    assert dataclasses.replace(priced, cost=None) == base


def test_with_cost_keeps_every_other_field() -> None:
    """Every field of Usage, each set away from its default, survives pricing."""
    unusual: dict[str, object] = {}
    for field in dataclasses.fields(Usage):
        default = field.default
        unusual[field.name] = (
            not default if isinstance(default, bool) else 0.5 if default is None else default + 7
        )
    base = Usage(**unusual)  # type: ignore[arg-type]
    priced = base.with_cost(1.25)
    assert priced.cost == 1.25
    assert dataclasses.replace(priced, cost=base.cost) == base


def test_unknown_cost_stays_unknown_through_addition() -> None:
    base = usage(100, 10)
    known = base.with_cost(cost_of("gpt-4o-mini", base))
    unknown = base.with_cost(cost_of(UNKNOWN_MODEL, base))
    assert known.cost is not None and known.cost > 0
    assert unknown.cost is None

    mixed = known + unknown
    assert mixed.cost == pytest.approx(known.cost)
    assert mixed.cost_complete is False
    assert mixed.prompt_tokens == 200

    only_unknown = unknown + unknown
    assert only_unknown.cost is None
    assert only_unknown.cost_complete is False

    only_known = known + known
    assert only_known.cost == pytest.approx(2 * known.cost)
    assert only_known.cost_complete is True


def test_free_model_costs_zero_not_unknown() -> None:
    free = {"local/llama": {"input": 0.0, "output": 0.0}}
    assert cost_of("local/llama", usage(500, 500), free) == 0.0


# -- usage from responses ----------------------------------------------------------------


def test_usage_from_dict() -> None:
    raw = {
        "prompt_tokens": 120,
        "completion_tokens": 30,
        "total_tokens": 150,
        "prompt_tokens_details": {"cached_tokens": 64},
        "completion_tokens_details": {"reasoning_tokens": 12},
    }
    assert usage_from_response(raw) == Usage(
        requests=1,
        prompt_tokens=120,
        completion_tokens=30,
        total_tokens=150,
        cached_tokens=64,
        reasoning_tokens=12,
    )


def test_usage_from_litellm_usage_object(litellm: ModuleType) -> None:
    raw = litellm.Usage(
        prompt_tokens=10,
        completion_tokens=5,
        total_tokens=15,
        prompt_tokens_details={"cached_tokens": 3},
        completion_tokens_details={"reasoning_tokens": 2},
    )
    parsed = usage_from_response(raw)
    assert (parsed.prompt_tokens, parsed.completion_tokens, parsed.total_tokens) == (10, 5, 15)
    assert (parsed.cached_tokens, parsed.reasoning_tokens) == (3, 2)
    assert parsed.requests == 1
    assert parsed.cost is None


@pytest.mark.parametrize(
    "raw",
    [
        {"prompt_tokens": 50, "prompt_tokens_details": {"cache_creation_tokens": 40}},
        {"prompt_tokens": 50, "cache_creation_input_tokens": 40},
        {
            "prompt_tokens": 50,
            "prompt_tokens_details": {"cached_tokens": 0},
            "cache_creation_input_tokens": 40,
        },
        {
            "prompt_tokens": 50,
            "prompt_tokens_details": {"cache_creation_tokens": 40},
            "cache_creation_input_tokens": 7,
        },
    ],
    ids=["details", "top-level", "details-without-writes", "details-win"],
)
def test_cache_writes_read_from_the_details_or_the_top_level(raw: dict[str, Any]) -> None:
    assert usage_from_response(raw).cache_write_tokens == 40


def test_cache_writes_from_a_litellm_anthropic_usage(litellm: ModuleType) -> None:
    raw = litellm.Usage(
        prompt_tokens=57,
        completion_tokens=6,
        total_tokens=63,
        cache_creation_input_tokens=57,
        cache_read_input_tokens=0,
    )
    assert usage_from_response(raw).cache_write_tokens == 57


def test_usage_from_plain_object_without_details() -> None:
    raw = SimpleNamespace(
        prompt_tokens=7, completion_tokens=2, total_tokens=9, prompt_tokens_details=None
    )
    assert usage_from_response(raw) == Usage(
        requests=1, prompt_tokens=7, completion_tokens=2, total_tokens=9
    )


def test_usage_from_a_mapping_that_is_not_a_dict() -> None:
    raw = MappingProxyType(
        {
            "prompt_tokens": 11,
            "completion_tokens": 4,
            "prompt_tokens_details": MappingProxyType({"cached_tokens": 5}),
        }
    )
    assert usage_from_response(raw) == Usage(
        requests=1, prompt_tokens=11, completion_tokens=4, total_tokens=15, cached_tokens=5
    )


def test_missing_total_is_the_sum() -> None:
    parsed = usage_from_response({"prompt_tokens": 4, "completion_tokens": 6})
    assert parsed.total_tokens == 10


def test_missing_usage_is_one_empty_request() -> None:
    assert usage_from_response(None) == Usage(requests=1)
    assert usage_from_response({}) == Usage(requests=1)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(-5, 0), ("12", 0), (3.5, 0), (True, 0), (None, 0), (float("inf"), 0), (8.0, 8), (8, 8)],
)
def test_bad_counts_are_clamped_or_ignored(value: Any, expected: int) -> None:
    raw = {
        "prompt_tokens": value,
        "completion_tokens": 1,
        "prompt_tokens_details": {"cached_tokens": value},
        "completion_tokens_details": SimpleNamespace(reasoning_tokens=value),
    }
    parsed = usage_from_response(raw)
    assert parsed.prompt_tokens == expected
    assert parsed.cached_tokens == expected
    assert parsed.reasoning_tokens == expected
    assert parsed.completion_tokens == 1


@pytest.mark.parametrize("model", ["gpt-9-turbo", "openai/gpt-9-turbo"])
def test_a_model_litellm_only_guesses_at_has_no_price(model: str) -> None:
    assert resolve_price(model) is None
    assert cost_of(model, usage(1000, 1000)) is None


@pytest.mark.parametrize("model", ["local", "local/qwen2.5-coder-0.5b", "local/smollm2-135m"])
def test_the_bundled_local_models_are_free(model: str) -> None:
    assert resolve_price(model) == ModelPrice(0.0, 0.0, 0.0)
    assert cost_of(model, usage(1000, 1000)) == 0.0


def test_provider_prefixed_names_are_priced_from_the_map_as_litellm_prices_them(
    litellm: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``<provider>/<name>`` for a ``<name>`` the map lists under that provider is read
    from the map, at the price LiteLLM's own lookup gives, for every such name with
    token prices (one without, an image model, stays unpriced)."""
    compared = 0
    for name, info in list(litellm.model_cost.items()):
        provider = info.get("litellm_provider") if isinstance(info, dict) else None
        model = f"{provider}/{name}"
        if not isinstance(provider, str) or "/" in name or model in litellm.model_cost:
            continue
        try:
            expected = litellm.get_model_info(model)
        except Exception:
            continue
        if expected.get("key") != name:
            continue
        monkeypatch.setattr(pricing, "_prices", {})
        price = resolve_price(model)
        if not {"input_cost_per_token", "output_cost_per_token"} <= info.keys():
            assert price is None, model  # unknown: not the 0 LiteLLM's lookup fills in
            continue
        rates = (expected["input_cost_per_token"], expected["output_cost_per_token"])
        assert price is not None, model
        assert (price.input_per_mtok, price.output_per_mtok) == pytest.approx(
            (rates[0] * 1e6, rates[1] * 1e6)
        ), model
        compared += 1
    assert compared > 100


def test_a_provider_prefixed_name_is_priced_without_importing_litellm(tmp_path: Path) -> None:
    """``praisonlike models info anthropic/claude-haiku-4-5`` took 7 s for LiteLLM's import."""
    out = fresh_python(
        "import sys\n"
        "from praisonlike.models.pricing import resolve_price\n"
        "price = resolve_price('anthropic/claude-haiku-4-5')\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
        "print(price.input_per_mtok, price.output_per_mtok)\n",
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    expected = resolve_price("anthropic/claude-haiku-4-5")
    assert expected is not None
    assert out.stdout.split() == [str(expected.input_per_mtok), str(expected.output_per_mtok)]


def test_a_model_listed_in_the_map_is_priced_without_importing_litellm() -> None:
    """``praisonlike models info gpt-4o-mini`` and cost reports read the map as data."""
    code = (
        "import sys\n"
        "from praisonlike.models.pricing import resolve_price\n"
        "price = resolve_price('gpt-4o-mini')\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
        "print(price.input_per_mtok, price.output_per_mtok)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PRAISONLIKE_NO_WARMUP": "1"},
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    expected = resolve_price("gpt-4o-mini")
    assert expected is not None
    assert out.stdout.split() == [str(expected.input_per_mtok), str(expected.output_per_mtok)]
