"""One rule for ``bool | XConfig | None`` parameters: ``reflection``, ``tracing``, ``context``;
the deprecated loose reflection parameters; ``ExecutionConfig.max_revisions``; the
errors and events ``praisonlike`` exports. Through the public API, on LocalLLMServer."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

import praisonlike
from praisonlike import (
    Agent,
    AuthenticationError,
    ConfigurationError,
    ConfigurationTypeError,
    ContextConfig,
    ExecutionConfig,
    GuardrailConfig,
    ReflectionConfig,
    ReflectionEvent,
    RunFinished,
    TextDelta,
)
from praisonlike.testing import LocalLLMServer, Text

RATE = "Rate the assistant's answer"


def never_satisfied(request: Any) -> Text:
    if RATE in request.messages[0]["content"]:
        return Text(json.dumps({"reflection": "add detail", "satisfactory": False}))
    return Text(f"answer {len(request.messages)}")


def reflect_run(server: LocalLLMServer, agent: Agent[Any]) -> tuple[Any, ...]:
    server.default = never_satisfied
    start = server.request_count
    events = list(agent.stream_events("explain"))
    rounds = [(e.round, e.satisfactory) for e in events if isinstance(e, ReflectionEvent)]
    models = [r.model for r in server.requests[start:]]
    return agent.last_result.output if agent.last_result else None, rounds, models


def test_reflection_config_behaves_as_the_loose_parameters(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    with pytest.warns(DeprecationWarning):
        old = Agent(instructions="x", llm=llm, self_reflect=True, min_reflect=1, max_reflect=2)
    new = Agent(instructions="x", llm=llm, reflection=ReflectionConfig(min_rounds=1, max_rounds=2))
    before, after = reflect_run(server, old), reflect_run(server, new)
    assert before == after
    assert after[1] == [(1, False), (2, False)]
    assert after[2] == ["test-model"] * 4  # answer, rate, answer, rate
    assert new.reflection == ReflectionConfig(min_rounds=1, max_rounds=2)
    assert (old.self_reflect, old.min_reflect, old.max_reflect) == (True, 1, 2)


def test_reflection_true_uses_the_default_rounds_and_the_judge_model_is_used(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    default = Agent(instructions="x", llm=llm, reflection=True)
    assert default.reflection == ReflectionConfig()
    assert len(reflect_run(server, default)[1]) == ReflectionConfig().max_rounds
    judged = Agent(
        instructions="x", llm=llm, reflection=ReflectionConfig(max_rounds=1, llm="openai/judge")
    )
    assert reflect_run(server, judged)[2] == ["test-model", "judge"]


@pytest.mark.parametrize("off", [None, False])
def test_reflection_none_or_false_is_off(
    server: LocalLLMServer, llm: dict[str, Any], off: bool | None
) -> None:
    agent = Agent(instructions="x", llm=llm, reflection=off)
    assert agent.reflection is None and not agent.self_reflect
    assert reflect_run(server, agent)[1:] == ([], ["test-model"])


@pytest.mark.parametrize(
    "loose", [{"self_reflect": True}, {"max_reflect": 2}, {"reflect_llm": "openai/judge"}]
)
def test_each_loose_reflection_parameter_warns_and_clashes_with_reflection(
    loose: dict[str, Any],
) -> None:
    name = next(iter(loose))
    with pytest.warns(DeprecationWarning, match=rf"Agent\({name}=.*reflection=ReflectionConfig"):
        Agent(instructions="x", llm="openai/test-model", **loose)
    with pytest.raises(ConfigurationError, match=rf"Agent\(reflection=...\).*{name}"):
        Agent(instructions="x", llm="openai/test-model", reflection=True, **loose)


def test_no_warning_without_loose_reflection_parameters() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Agent(instructions="x", llm="openai/test-model", reflection=ReflectionConfig())


@pytest.mark.parametrize(
    ("fields", "kind", "named"),
    [
        ({"min_rounds": 3, "max_rounds": 2}, ConfigurationError, "min_rounds"),
        ({"max_rounds": 0}, ConfigurationError, "max_rounds"),
        ({"min_rounds": -1}, ConfigurationError, "min_rounds"),
        ({"llm": "  "}, ConfigurationError, "llm"),
        ({"max_rounds": "3"}, ConfigurationTypeError, "max_rounds"),
        ({"llm": 42}, ConfigurationTypeError, "llm"),
    ],
)
def test_a_bad_reflection_config_names_the_field(
    fields: dict[str, Any], kind: type[Exception], named: str
) -> None:
    with pytest.raises(kind, match=named):
        ReflectionConfig(**fields)


@pytest.mark.parametrize(
    ("fields", "kind"),
    [
        ({"guardrail_retries": -1}, ConfigurationError),
        ({"guardrail_retries": "2"}, ConfigurationTypeError),
        ({"output": 42}, ConfigurationTypeError),
    ],
)
def test_a_bad_guardrail_config_is_a_configuration_error(
    fields: dict[str, Any], kind: type[Exception]
) -> None:
    with pytest.raises(kind, match="GuardrailConfig"):
        GuardrailConfig(**fields)


def test_reflection_of_the_wrong_kind_is_a_type_error_naming_it() -> None:
    with pytest.raises(ConfigurationTypeError, match=r"Agent\(reflection=...\)"):
        Agent(instructions="x", llm="openai/test-model", reflection={"max_rounds": 2})


@pytest.mark.parametrize("wrong", ["yes", 1, object()])
def test_a_wrong_tracing_fails_before_any_request(server: LocalLLMServer, wrong: object) -> None:
    with pytest.raises(ConfigurationTypeError, match=r"Agent\(tracing=...\).*OTelTracer"):
        Agent(instructions="x", llm=server.llm_config(), tracing=wrong)
    assert server.request_count == 0


def test_tracing_none_is_off_and_a_plain_callable_is_deprecated_but_still_sees_events(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    assert Agent(instructions="x", llm=llm, tracing=None).tracing is False
    seen: list[Any] = []
    with pytest.warns(DeprecationWarning, match="on_event"):
        agent = Agent(instructions="x", llm=llm, tracing=seen.append)  # type: ignore[arg-type]
    server.add(Text("hi"))
    assert agent.chat("hello") == "hi"
    assert isinstance(seen[-1], RunFinished)


def test_context_none_is_the_documented_default() -> None:
    on = Agent(instructions="x", llm="openai/test-model", context=None).context_config
    assert on == Agent(instructions="x", llm="openai/test-model").context_config == ContextConfig()
    assert Agent(instructions="x", llm="openai/test-model", context=False).context_config is None


def test_max_revisions_caps_the_revisions_of_a_turn(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    capped = Agent(
        instructions="x",
        llm=llm,
        reflection=ReflectionConfig(max_rounds=3),
        execution=ExecutionConfig(max_revisions=1),
    )
    output, rounds, models = reflect_run(server, capped)
    assert rounds == [(1, False)]
    assert len(models) == 3  # answer, rate, answer accepted unchecked
    assert output == "answer 4"
    with pytest.raises(ConfigurationError, match="max_revisions"):
        ExecutionConfig(max_revisions=-1)


def test_errors_and_events_are_exported_from_the_package() -> None:
    from praisonlike import errors, events

    assert AuthenticationError is errors.AuthenticationError
    assert TextDelta is events.TextDelta
    for name in [*errors.__all__, *events.__all__, "ReflectionConfig", "Tracer"]:
        assert name in praisonlike.__all__
        assert getattr(praisonlike, name) is not None


def test_importing_the_package_loads_neither_errors_nor_events() -> None:
    code = (
        "import sys, praisonlike; "
        "print([m for m in ('praisonlike.errors', 'praisonlike.events', 'litellm') "
        "if m in sys.modules])"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"
