"""Model features from LiteLLM's bundled map, local-model answers, and overrides."""

from __future__ import annotations

import dataclasses

import pytest

from praisonlike.models.capabilities import FEATURE_NAMES, ModelFeatures, model_features
from praisonlike.models.litellm_backend import load_litellm
from praisonlike.models.local.model_file import LOCAL_MODELS


def test_known_model_reads_the_map() -> None:
    entry = load_litellm().model_cost["gpt-4o"]
    features = model_features("gpt-4o")
    assert features.known
    assert features.native_tool_calls is bool(entry.get("supports_function_calling"))
    assert features.vision is bool(entry.get("supports_vision"))
    assert features.response_schema is bool(entry.get("supports_response_schema"))
    assert features.context_window == entry["max_input_tokens"]
    assert features.max_output_tokens == entry["max_output_tokens"]


def test_provider_prefix_is_tried_without_it() -> None:
    assert model_features("openrouter/gpt-4o") == model_features("gpt-4o")
    assert model_features("openrouter/gpt-4o").known


def test_prefixed_map_key_is_used_as_given() -> None:
    table = load_litellm().model_cost
    key = next(k for k, v in table.items() if k.startswith("ollama/") and isinstance(v, dict))
    features = model_features(key)
    assert features.known
    assert features.native_tool_calls is (table[key].get("supports_function_calling") is True)


def test_model_without_function_calling_flag_uses_text_calls() -> None:
    table = load_litellm().model_cost
    key = next(
        k
        for k, v in table.items()
        if isinstance(v, dict) and v.get("mode") == "chat" and "supports_function_calling" not in v
    )
    assert model_features(key).native_tool_calls is False


def test_explicit_false_system_messages_flag() -> None:
    table = load_litellm().model_cost
    key = next(
        (
            k
            for k, v in table.items()
            if isinstance(v, dict) and v.get("supports_system_messages") is False
        ),
        None,
    )
    if key is None:
        pytest.skip("no model in this LiteLLM map refuses system messages")
    assert model_features(key).system_role is False


def test_unknown_model_gets_defaults() -> None:
    features = model_features("nobody/no-such-model-xyz")
    assert features == ModelFeatures()
    assert features.native_tool_calls and not features.known


@pytest.mark.parametrize(
    "model", ["local", "local/qwen2.5-coder-0.5b", "openai/qwen2.5-coder-0.5b"]
)
def test_bundled_local_model_uses_text_tool_calls(model: str) -> None:
    spec = LOCAL_MODELS["qwen2.5-coder-0.5b"]
    features = model_features(model)
    assert features.native_tool_calls is spec.native_tool_calls is False
    assert features.context_window == spec.context_window


def test_local_gguf_path_uses_text_tool_calls() -> None:
    assert model_features("local/models/my.gguf").native_tool_calls is False


def test_local_name_under_another_provider_is_not_the_local_model() -> None:
    assert model_features("hosted_vllm/qwen2.5-coder-0.5b") == ModelFeatures()


def test_overrides_replace_fields() -> None:
    base = model_features("gpt-4o")
    changed = model_features("gpt-4o", {"vision": False, "context_window": 1000})
    assert changed == dataclasses.replace(base, vision=False, context_window=1000)
    assert model_features("local", {"native_tool_calls": True}).native_tool_calls is True


def test_unknown_override_key_is_refused() -> None:
    with pytest.raises(ValueError, match="tool_calls"):
        model_features("gpt-4o", {"tool_calls": True})


@pytest.mark.parametrize(
    "overrides",
    [{"vision": "yes"}, {"context_window": "big"}, {"context_window": True}, {"known": 1}],
)
def test_override_of_wrong_type_is_refused(overrides: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        model_features("gpt-4o", overrides)


def test_results_are_cached_per_model_and_overrides() -> None:
    assert model_features("gpt-4o") is model_features("gpt-4o")
    first = model_features("gpt-4o", {"vision": False})
    assert first is model_features("gpt-4o", {"vision": False})
    assert first is not model_features("gpt-4o")


def test_feature_names_are_the_dataclass_fields() -> None:
    assert {f.name for f in dataclasses.fields(ModelFeatures)} == FEATURE_NAMES
