"""Typed, immutable configuration of the model and of a run's execution."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

BudgetAction = Literal["stop", "warn"] | Callable[[float, float], bool]


class LLMConfig(BaseModel):
    """Which model to call and how.

    ``extra`` holds further LiteLLM parameters passed through unchanged
    (``top_p``, ``seed``, provider-specific keys). The API key is a secret:
    it never appears in ``repr``, events, logs or stored steps.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    api_base: str | None = None
    api_key: SecretStr | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    timeout: float | None = None
    fallback_models: tuple[str, ...] = ()
    features: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = Field(default_factory=dict)

    @field_validator("model")
    @classmethod
    def _model_not_empty(cls, value: str) -> str:
        if not value or not value.strip():
            raise ValueError("model must be a non-empty LiteLLM model string")
        return value.strip()

    @classmethod
    def coerce(cls, value: str | Mapping[str, Any] | LLMConfig) -> LLMConfig:
        """Accept a model string, a dict of fields (unknown keys go to ``extra``) or a config."""
        if isinstance(value, LLMConfig):
            return value
        if isinstance(value, str):
            return cls(model=value)
        if isinstance(value, Mapping):
            known = set(cls.model_fields)
            fields = {k: v for k, v in value.items() if k in known}
            extra = {k: v for k, v in value.items() if k not in known}
            if "fallback_models" in fields:
                fields["fallback_models"] = tuple(fields["fallback_models"])
            if extra:
                fields["extra"] = {**dict(fields.get("extra", {})), **extra}
            return cls(**fields)
        raise TypeError(f"llm must be a model string, a dict or an LLMConfig, not {type(value)!r}")

    def call_params(self) -> dict[str, Any]:
        """The keyword arguments for a LiteLLM call, secrets unwrapped."""
        params: dict[str, Any] = dict(self.extra)
        if self.api_base is not None:
            params["api_base"] = self.api_base
        if self.api_key is not None:
            params["api_key"] = self.api_key.get_secret_value()
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        return params


class ExecutionConfig(BaseModel):
    """Retries, timeouts and budgets of a run."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    max_retries: int = Field(default=3, ge=0)
    retry_base: float = Field(default=1.0, ge=0)
    retry_max: float = Field(default=30.0, ge=0)
    timeout: float | None = Field(default=None, gt=0)
    tool_timeout: float | None = Field(default=None, gt=0)
    max_execution_time: float | None = Field(default=None, gt=0)
    max_budget: float | None = Field(default=None, ge=0)
    on_budget_exceeded: Any = "stop"
    max_tokens_per_run: int | None = Field(default=None, gt=0)
    max_context_retries: int = Field(default=2, ge=0)
    tool_result_limit: int | None = Field(default=100_000, ge=64)

    @field_validator("on_budget_exceeded")
    @classmethod
    def _budget_action(cls, value: Any) -> Any:
        if value in ("stop", "warn") or callable(value):
            return value
        raise ValueError('on_budget_exceeded must be "stop", "warn" or a callable(spent, limit)')
