from __future__ import annotations

import pytest

from praisonlike import ExecutionConfig
from praisonlike.errors import ConfigurationError


def test_defaults_are_valid_and_run_calls_on_the_callers_thread() -> None:
    config = ExecutionConfig()
    assert config.interruptible_calls is False
    assert config.max_retries == 3


def test_every_bad_field_is_named_in_one_error() -> None:
    with pytest.raises(ConfigurationError) as caught:
        ExecutionConfig(max_retries=-1, timeout=0, interruptible_calls="no")  # type: ignore[arg-type]
    message = str(caught.value)
    for field in ("max_retries", "timeout", "interruptible_calls"):
        assert field in message


@pytest.mark.parametrize(
    "field, value",
    [
        ("retry_base", -0.5),
        ("tool_timeout", -1),
        ("max_budget", "lots"),
        ("max_tokens_per_run", 0),
        ("tool_result_limit", 10),
        ("on_budget_exceeded", "ignore"),
        ("interruptible_calls", 1),
    ],
)
def test_a_bad_value_is_refused(field: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=field.split("_")[0]):
        ExecutionConfig(**{field: value})  # type: ignore[arg-type]
