"""Wrong configuration fails in ``Agent(...)`` itself, never at the first turn.

Every invalid argument raises ``ConfigurationError`` whose message names the
parameter; a value of the wrong kind raises ``ConfigurationTypeError``, which
is also a ``TypeError`` (as these raised before), and ``ConfigurationError`` is
a ``ValueError``, so older ``except`` clauses keep working.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from praisonlike import Agent, LLMConfig
from praisonlike.agent.reflection import ReflectionConfig
from praisonlike.errors import ConfigurationError, ConfigurationTypeError
from praisonlike.testing import LocalLLMServer


def noop(*args: Any) -> None:
    return None


def build(**kwargs: Any) -> Agent:
    kwargs.setdefault("instructions", "Answer briefly.")
    kwargs.setdefault("llm", "openai/test-model")
    return Agent(**kwargs)


BAD_VALUES = {
    "empty-fallback": ({"fallback_models": [""]}, "fallback_models[0]"),
    "fallback-without-model": (
        {"fallback_models": ["openai/a", {"api_base": "http://127.0.0.1:9/v1"}]},
        "fallback_models[1]",
    ),
    "fallback-bad-field": (
        {"fallback_models": [{"model": "openai/a", "temperature": "hot"}]},
        "fallback_models[0]",
    ),
    "fallback-with-fallbacks": (
        {"fallback_models": [LLMConfig(model="openai/a", fallback_models=["openai/b"])]},
        "fallback_models[0]",
    ),
    "empty-reflect-llm": ({"reflect_llm": "  "}, "reflect_llm"),
    "reflect-llm-without-model": ({"reflect_llm": {"api_key": "sk-x"}}, "reflect_llm"),
    "empty-llm": ({"llm": ""}, "llm"),
    "llm-bad-field": ({"llm": {"model": "openai/a", "max_tokens": 0}}, "llm"),
    "negative-temperature": ({"llm": {"model": "openai/a", "temperature": -1}}, "temperature"),
    "api-base-not-a-url": ({"llm": {"model": "openai/a", "api_base": "notaurl"}}, "api_base"),
    "misspelt-api-base": (
        {"llm": {"model": "openai/a", "api_bse": "http://127.0.0.1:9/v1"}},
        "unknown key 'api_bse': did you mean 'api_base'?",
    ),
    "misspelt-fallback-field": (
        {"fallback_models": [{"model": "openai/a", "temprature": 0.2}]},
        "did you mean 'temperature'?",
    ),
    "blank-session-id": ({"session_id": " "}, "session_id"),
    "no-prompt": ({"instructions": "  "}, "instructions"),
    "zero-iterations": ({"max_iterations": 0}, "max_iterations"),
    "negative-output-retries": ({"output_retries": -1}, "output_retries"),
    "min-above-max-reflect": ({"min_reflect": 3, "max_reflect": 2}, "min_reflect"),
    "zero-max-reflect": ({"max_reflect": 0}, "max_reflect"),
    "memory-without-session": ({"memory": True}, "memory"),
    "unknown-hook-event": ({"hooks": {"before_everything": noop}}, "hooks"),
    "hook-without-argument": (
        {"hooks": {"before_tool": lambda: None}},
        "must take one argument, the HookContext: too many positional arguments "
        "(its parameters: ())",
    ),
    "hook-with-two-arguments": (
        {"hooks": {"after_tool": lambda ctx, agent: None}},
        "missing a required argument: 'agent' (its parameters: (ctx, agent))",
    ),
    "approver-with-one-argument": (
        {"approval": lambda name: True},
        "approval must take two arguments, the tool's name and its arguments",
    ),
    "negative-price": ({"model_prices": {"openai/a": {"input": -1.0}}}, "model_prices"),
}

WRONG_KINDS = {
    "fallback-number": ({"fallback_models": [42]}, "fallback_models[0]"),
    "fallbacks-as-one-string": ({"fallback_models": "openai/a"}, "fallback_models"),
    "reflect-llm-number": ({"reflect_llm": 42}, "reflect_llm"),
    "llm-number": ({"llm": 42}, "llm"),
    "llm-and-model": ({"llm": "openai/a", "model": "openai/b"}, "model"),
    "iterations-text": ({"max_iterations": "10"}, "max_iterations"),
    "iterations-bool": ({"max_iterations": True}, "max_iterations"),
    "output-retries-float": ({"output_retries": 1.5}, "output_retries"),
    "reflect-text": ({"min_reflect": "1"}, "min_reflect"),
    "guardrails-dict": ({"guardrails": {"input_keywords": ["x"]}}, "guardrails"),
    "context-text": ({"context": "yes"}, "context"),
    "memory-text": ({"memory": "yes", "session_id": "s"}, "memory"),
    "tool-number": ({"tools": [42]}, "tools"),
    "tools-as-one-string": ({"tools": "search"}, "tools"),
    "hook-not-callable": ({"hooks": {"before_llm": 42}}, "hooks"),
    "hooks-list": ({"hooks": [noop]}, "hooks"),
    "approval-number": ({"approval": 42}, "approval"),
    "execution-dict": ({"execution": {"max_retries": 1}}, "execution"),
    "usage-tracker": ({"usage_tracker": object()}, "usage_tracker"),
    "observer-number": ({"on_event": [noop, 42]}, "on_event"),
    "tracing-text": ({"tracing": "yes"}, "tracing"),
    "rule-number": ({"rules": [42]}, "rules"),
    "skills-number": ({"skills": 42}, "skills"),
    "verbose-text": ({"verbose": "yes"}, "verbose"),
    "self-reflect-none": ({"self_reflect": None}, "self_reflect"),
    "name-number": ({"name": 7}, "name"),
    "session-number": ({"session_id": 1234}, "session_id"),
}


@pytest.mark.parametrize(("kwargs", "parameter"), list(BAD_VALUES.values()), ids=list(BAD_VALUES))
def test_a_bad_value_is_a_configuration_error_naming_the_parameter(
    kwargs: dict[str, Any], parameter: str
) -> None:
    with pytest.raises(ConfigurationError) as raised:
        build(**kwargs)
    assert parameter in str(raised.value)
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize(("kwargs", "parameter"), list(WRONG_KINDS.values()), ids=list(WRONG_KINDS))
def test_a_wrong_kind_is_a_configuration_type_error_naming_the_parameter(
    kwargs: dict[str, Any], parameter: str
) -> None:
    with pytest.raises(ConfigurationTypeError) as raised:
        build(**kwargs)
    assert parameter in str(raised.value)
    assert isinstance(raised.value, TypeError) and isinstance(raised.value, ConfigurationError)


def test_a_bad_fallback_or_reflect_llm_fails_before_any_request(server: LocalLLMServer) -> None:
    llm = server.llm_config()
    with pytest.raises(ConfigurationError, match=r"fallback_models\[0\]"):
        Agent(instructions="Answer.", llm=llm, fallback_models=[{"model": ""}])
    with pytest.raises(ConfigurationError, match="reflect_llm"):
        Agent(instructions="Answer.", llm=llm, self_reflect=True, reflect_llm="")
    assert server.request_count == 0


def test_llmconfig_checks_its_fallback_entries() -> None:
    with pytest.raises(ConfigurationError, match=r"fallback_models\[1\]"):
        LLMConfig(model="openai/a", fallback_models=["openai/b", {"model": "  "}])
    config = LLMConfig(
        model="openai/a",
        fallback_models=[" openai/b ", {"model": "openai/c", "api_key": "sk-c", "top_p": 0.5}],
    )
    second = config.fallback_models[1]
    assert config.fallback_models[0] == "openai/b"
    assert isinstance(second, LLMConfig)
    assert (second.model, second.extra) == ("openai/c", {"top_p": 0.5})
    assert "sk-c" not in repr(config)


def test_provider_parameters_near_a_field_name_pass_through_to_litellm() -> None:
    config = LLMConfig.coerce(
        {"model": "openai/a", "prompt_cache_key": "k", "dd_api_key": "d", "top_k": 3}
    )
    assert config.extra == {"prompt_cache_key": "k", "dd_api_key": "d", "top_k": 3}
    assert config.prompt_cache is True and config.api_key is None
    explicit = LLMConfig.coerce({"model": "openai/a", "extra": {"api_bse": "x"}})
    assert explicit.extra == {"api_bse": "x"} and explicit.api_base is None


def test_no_parameter_of_the_installed_litellm_is_taken_for_a_misspelt_field() -> None:
    import inspect

    from praisonlike.models.litellm_backend import load_litellm

    litellm = load_litellm()
    from litellm.types.utils import all_litellm_params

    names = set(all_litellm_params) | set(inspect.signature(litellm.completion).parameters)
    names -= {f.name for f in dataclasses.fields(LLMConfig)} | {"kwargs", "args"}
    config = LLMConfig.coerce({"model": "openai/a", **dict.fromkeys(names, 1)})
    assert set(config.extra) == names


def test_valid_model_settings_are_kept_in_their_normalised_form() -> None:
    agent = build(
        fallback_models=["openai/b", {"model": "openai/c", "api_base": "http://127.0.0.1:9/v1"}],
        reflection=ReflectionConfig(llm={"model": "openai/judge"}),
        rules="RULES.md",
        on_event=noop,
    )
    assert agent.fallback_models[0] == "openai/b"
    assert agent.fallback_models[1] == LLMConfig(model="openai/c", api_base="http://127.0.0.1:9/v1")
    assert agent.reflection is not None
    assert agent.reflection.llm == LLMConfig(model="openai/judge")
    assert agent.rules == ("RULES.md",)
    assert agent.on_event == (noop,)


def test_config_objects_and_agent_on_raise_configuration_errors() -> None:
    from praisonlike import MemoryConfig
    from praisonlike.hooks import HookPoint

    with pytest.raises(ConfigurationError, match="MemoryConfig.history_rounds"):
        MemoryConfig(history_rounds=-1)
    with pytest.raises(ConfigurationError, match="MemoryConfig.history_tokens"):
        MemoryConfig(history_tokens=0)
    agent = build()
    with pytest.raises(ConfigurationTypeError, match="a hook must be callable"):
        agent.on(HookPoint.BEFORE_LLM)(42)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="unknown hook point 'before_everything'"):
        agent.on("before_everything")(noop)  # type: ignore[arg-type]
