"""Typed, immutable configuration of the model and of a run's execution.

Both are frozen dataclasses validated at construction: a bad value raises
:class:`~praisonlike.errors.ConfigurationError` (a ``ValueError``) naming
every invalid field. Use :func:`dataclasses.replace` to derive a changed copy.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from praisonlike._runtime.config_checks import is_int, is_number
from praisonlike.errors import ConfigurationError, ConfigurationTypeError

BudgetAction = Literal["stop", "warn"] | Callable[[float, float], bool]


class Secret:
    """A string kept out of ``repr``, ``str`` and serialised output.

    ``get_secret_value()`` returns the string itself; two secrets are equal
    when their values are.
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"a secret must be a str, not {type(value).__name__}")
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


def _as_secret(value: object) -> Secret | None:
    if value is None or isinstance(value, Secret):
        return value
    if isinstance(value, str):
        return Secret(value)
    reveal = getattr(value, "get_secret_value", None)
    if callable(reveal) and isinstance(revealed := reveal(), str):
        return Secret(revealed)
    raise ConfigurationError("invalid LLMConfig: api_key must be a str, a Secret or None")


@dataclass(frozen=True)
class LLMConfig:
    """Which model to call and how.

    ``extra`` holds further LiteLLM parameters passed through unchanged
    (``top_p``, ``seed``, provider-specific keys). The API key is a
    :class:`Secret` (a plain ``str`` is wrapped): it never appears in
    ``repr``, events, logs or stored steps.

    ``fallback_models`` entries are model strings or full configurations (a
    dict is made an ``LLMConfig``); :func:`model_entry` says what each form
    inherits from this configuration.

    ``transport="litellm"`` sends every call through LiteLLM, also on an
    OpenAI-compatible endpoint the SDK would otherwise call directly (see
    :mod:`praisonlike.models.transport`); ``"auto"`` (the default) lets it choose.

    ``prompt_cache`` (default True) marks prompt-cache breakpoints for providers
    that cache only what is marked (Anthropic): see
    :mod:`praisonlike.models.prompt_cache`. Other providers get no markers.
    """

    model: str
    api_base: str | None = None
    api_key: Secret | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    timeout: float | None = None
    fallback_models: tuple[str | LLMConfig, ...] = ()
    features: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    transport: Literal["auto", "litellm"] = "auto"
    prompt_cache: bool = True

    def __post_init__(self) -> None:
        set_field = object.__setattr__
        set_field(self, "api_key", _as_secret(self.api_key))
        if isinstance(self.model, str):
            set_field(self, "model", self.model.strip())
        problems: list[str] = []
        if isinstance(self.fallback_models, Sequence) and not isinstance(self.fallback_models, str):
            entries = []
            for index, entry in enumerate(self.fallback_models):
                try:
                    entries.append(model_entry(entry, f"fallback_models[{index}]"))
                except ConfigurationError as exc:
                    problems.append(str(exc))
            set_field(self, "fallback_models", tuple(entries))
        else:
            problems.append(
                "fallback_models must be a sequence of model strings, dicts or LLMConfigs, "
                f"got {self.fallback_models!r}"
            )
        if isinstance(self.extra, Mapping):
            set_field(self, "extra", dict(self.extra))
        problems[:0] = _llm_problems(self)
        if problems:
            raise ConfigurationError("invalid LLMConfig: " + "; ".join(problems))

    @classmethod
    def coerce(cls, value: str | Mapping[str, Any] | LLMConfig) -> LLMConfig:
        """Accept a model string, a dict of fields (unknown keys go to ``extra``) or a config."""
        if isinstance(value, LLMConfig):
            return value
        if isinstance(value, str):
            return cls(model=value)
        if isinstance(value, Mapping):
            known = {f.name for f in fields(cls)}
            settings = {k: v for k, v in value.items() if k in known}
            extra = {k: v for k, v in value.items() if k not in known}
            _refuse_misspelt_fields(extra, known)
            if "model" not in settings:
                raise ConfigurationError("invalid LLMConfig: model is required")
            if extra:
                settings["extra"] = {**dict(settings.get("extra") or {}), **extra}
            return cls(**settings)
        raise ConfigurationTypeError(
            f"llm must be a model string, a dict or an LLMConfig, not {type(value).__name__}"
        )

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

    def extra_body(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The extra request-body fields a call with ``params`` sends: the call's own
        ``extra_body`` (it replaces this configuration's), else the one in ``extra``;
        empty when neither sets one. A copy, for the caller to add to."""
        return dict(params.get("extra_body", self.extra.get("extra_body")) or {})


PROVIDER_PARAMS_NEAR_FIELDS = frozenset({"dd_api_key", "prompt_cache_key"})
"""The parameters of LiteLLM's ``completion`` spelt close to an :class:`LLMConfig`
field: passed through, never taken for a misspelt field."""


def _refuse_misspelt_fields(extra: Mapping[str, Any], fields_: set[str]) -> None:
    """Raise for a key of an ``llm=`` dict that is a misspelt field (``api_bse``): it
    would go to LiteLLM as a parameter and the field would silently keep its
    default (a request meant for a local server sent to the provider's own)."""
    for key in extra:
        near = difflib.get_close_matches(str(key), sorted(fields_), n=1, cutoff=0.8)
        if not near or key in PROVIDER_PARAMS_NEAR_FIELDS:
            continue
        raise ConfigurationError(
            f"invalid LLMConfig: unknown key {key!r}: did you mean {near[0]!r}? "
            "(other keys go to LiteLLM as parameters; to send a provider parameter of "
            f"this name, put it in extra={{{key!r}: ...}})"
        )


def _llm_problems(config: LLMConfig) -> list[str]:
    problems: list[str] = []
    if not isinstance(config.model, str) or not config.model:
        problems.append("model must be a non-empty LiteLLM model string")
    elif _empty_part(config.model):
        problems.append(
            f"model {config.model!r} has an empty provider or name: spell it provider/model, "
            "e.g. openai/gpt-4o-mini"
        )
    if config.api_base is not None and not isinstance(config.api_base, str):
        problems.append(f"api_base must be a str or None, got {config.api_base!r}")
    elif config.api_base is not None and not _is_http_url(config.api_base):
        problems.append(
            "api_base must be an http:// or https:// URL with a host, such as "
            f"http://127.0.0.1:8080/v1, got {config.api_base!r}"
        )
    elif config.api_base is not None and isinstance(config.model, str):
        problems.extend(_endpoint_as_base(config.model, config.api_base))
    if config.temperature is not None and not (
        is_number(config.temperature) and config.temperature >= 0
    ):
        problems.append(f"temperature must be a number >= 0 or None, got {config.temperature!r}")
    if config.max_tokens is not None and not (is_int(config.max_tokens) and config.max_tokens > 0):
        problems.append(f"max_tokens must be a positive int or None, got {config.max_tokens!r}")
    if config.timeout is not None and not (is_number(config.timeout) and config.timeout > 0):
        problems.append(f"timeout must be a number > 0 or None, got {config.timeout!r}")
    if config.features is not None and not isinstance(config.features, Mapping):
        problems.append(f"features must be a mapping or None, got {config.features!r}")
    if not isinstance(config.extra, Mapping):
        problems.append(f"extra must be a mapping, got {config.extra!r}")
    if config.transport not in ("auto", "litellm"):
        problems.append(f'transport must be "auto" or "litellm", got {config.transport!r}')
    if not isinstance(config.prompt_cache, bool):
        problems.append(f"prompt_cache must be True or False, got {config.prompt_cache!r}")
    return problems


def _empty_part(model: str) -> bool:
    """``openai/`` or ``/gpt-4o``: a provider prefix without a name, or the reverse
    (``local/`` is the local models' own, with its own message)."""
    prefix, slash, rest = model.partition("/")
    return bool(slash) and prefix != "local" and not (prefix.strip() and rest.strip())


_ENDPOINT_PATHS = ("/chat/completions", "/completions")


def _endpoint_as_base(model: str, api_base: str) -> list[str]:
    """An ``openai/...`` model's ``api_base`` that already ends with the endpoint's
    path: the client adds ``/chat/completions`` to it, so every request would 404."""
    if not model.startswith("openai/"):
        return []
    parts = urlsplit(api_base)
    path = parts.path.rstrip("/")
    endpoint = next((end for end in _ENDPOINT_PATHS if path.endswith(end)), None)
    if endpoint is None:
        return []
    root = urlunsplit(parts._replace(path=path[: -len(endpoint)]))
    return [
        f"api_base is the API's root, to which the client adds /chat/completions: "
        f"{root!r}, not {api_base!r}"
    ]


def _is_http_url(text: str) -> bool:
    try:
        parts = urlsplit(text)
        return parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:  # a port that is not a number or out of range
        return False


def model_entry(value: object, parameter: str) -> str | LLMConfig:
    """Normalise a value naming another model (a fallback, ``reflect_llm``).

    A string stays a (stripped) model string: it is called with the settings
    of the configuration it is named next to when LiteLLM resolves both to
    the same provider, and with its own provider's configuration (environment
    variables) otherwise. A dict or an :class:`LLMConfig` is a full
    configuration of its own and inherits nothing. Raises
    :class:`ConfigurationError` naming ``parameter`` (a
    :class:`ConfigurationTypeError` for a value of the wrong kind).
    """
    if isinstance(value, str):
        if not value.strip():
            raise ConfigurationError(f"{parameter} must be a non-empty LiteLLM model string")
        return value.strip()
    if not isinstance(value, LLMConfig | Mapping):
        raise ConfigurationTypeError(
            f"{parameter} must be a model string, a dict or an LLMConfig, "
            f"not {type(value).__name__}"
        )
    try:
        config = LLMConfig.coerce(value)
    except ConfigurationError as exc:
        raise type(exc)(f"{parameter}: {exc}") from exc
    if config.fallback_models:
        raise ConfigurationError(f"{parameter} cannot have fallback_models of its own")
    return config


@dataclass(frozen=True)
class ExecutionConfig:
    """Retries, timeouts and budgets of a run.

    Times are seconds and must be ``> 0`` (or ``None``: no limit); counts must
    be ``>= 0``. ``on_budget_exceeded`` is ``"stop"``, ``"warn"`` or a
    callable ``(spent, limit) -> bool`` returning whether to go on.

    ``interruptible_calls`` (default False) decides where the model calls of
    a sync turn (``chat``, ``iter_stream``, ``stream_events``) run. By default
    they run on the caller's thread: a cancellation then takes effect when
    the call in flight returns, or at the next streamed chunk, and
    ``timeout`` and ``max_execution_time`` bound the call through its HTTP
    timeout. With True each call runs on a worker thread, so that
    ``agent.cancel()`` or a ``CancelToken`` ends the turn at once even while
    a call is waiting for the model; the handoff costs a few milliseconds per
    call. Async turns are always interruptible.

    ``max_revisions`` (default 10) caps how many times one turn sends an
    answer back to the model because a check rejected it (structured output,
    output guardrail, reflection, each also bounded by its own setting); an
    answer reached past the cap is accepted unchecked.
    """

    max_retries: int = 3
    retry_base: float = 1.0
    retry_max: float = 30.0
    timeout: float | None = None
    tool_timeout: float | None = None
    max_execution_time: float | None = None
    max_budget: float | None = None
    on_budget_exceeded: Any = "stop"
    max_tokens_per_run: int | None = None
    max_context_retries: int = 2
    tool_result_limit: int | None = 100_000
    interruptible_calls: bool = False
    max_revisions: int = 10

    def __post_init__(self) -> None:
        problems = _execution_problems(self)
        if problems:
            raise ConfigurationError("invalid ExecutionConfig: " + "; ".join(problems))


def _execution_problems(config: ExecutionConfig) -> list[str]:
    problems: list[str] = []
    for name in ("max_retries", "max_context_retries", "max_revisions"):
        value = getattr(config, name)
        if not (is_int(value) and value >= 0):
            problems.append(f"{name} must be an int >= 0, got {value!r}")
    for name in ("retry_base", "retry_max"):
        value = getattr(config, name)
        if not (is_number(value) and value >= 0):
            problems.append(f"{name} must be a number >= 0, got {value!r}")
    for name in ("timeout", "tool_timeout", "max_execution_time"):
        value = getattr(config, name)
        if value is not None and not (is_number(value) and value > 0):
            problems.append(f"{name} must be a number > 0 or None, got {value!r}")
    budget = config.max_budget
    if budget is not None and not (is_number(budget) and budget >= 0):
        problems.append(f"max_budget must be a number >= 0 or None, got {budget!r}")
    tokens = config.max_tokens_per_run
    if tokens is not None and not (is_int(tokens) and tokens > 0):
        problems.append(f"max_tokens_per_run must be a positive int or None, got {tokens!r}")
    limit = config.tool_result_limit
    if limit is not None and not (is_int(limit) and limit >= 64):
        problems.append(f"tool_result_limit must be an int >= 64 or None, got {limit!r}")
    if not isinstance(config.interruptible_calls, bool):
        problems.append(f"interruptible_calls must be a bool, got {config.interruptible_calls!r}")
    action = config.on_budget_exceeded
    if action not in ("stop", "warn") and not callable(action):
        problems.append('on_budget_exceeded must be "stop", "warn" or a callable(spent, limit)')
    return problems
