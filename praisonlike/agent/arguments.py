"""Checks of ``Agent(...)``'s arguments, so wrong configuration fails at construction.

Every check raises :class:`~praisonlike.errors.ConfigurationError` (a
``ValueError``) whose message starts ``Agent(<parameter>=...)``; a value of the
wrong kind raises :class:`~praisonlike.errors.ConfigurationTypeError`, which is
also a ``TypeError``. Nothing here imports, reads or connects anything.

A ``bool | XConfig | None`` parameter follows one rule (``*_setting``):
``None`` is its documented default, ``False`` off, ``True`` on with the default
configuration, a configuration object on with that configuration.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from praisonlike._runtime.config_checks import is_int, is_number
from praisonlike.agent.reflection import ReflectionConfig
from praisonlike.context.config import ContextConfig
from praisonlike.errors import ConfigurationError, ConfigurationTypeError
from praisonlike.models.config import LLMConfig, model_entry

if TYPE_CHECKING:
    from praisonlike.tracing import Tracer


def _problem(parameter: str, message: str) -> str:
    return f"Agent({parameter}=...): {message}"


@contextmanager
def argument(parameter: str) -> Iterator[None]:
    """Turn a ``ValueError``/``TypeError`` raised while normalising ``parameter``
    into a configuration error naming it."""
    try:
        yield
    except ConfigurationError as exc:
        if str(exc).startswith("Agent("):
            raise
        kind = ConfigurationTypeError if isinstance(exc, TypeError) else ConfigurationError
        raise kind(_problem(parameter, str(exc))) from exc
    except TypeError as exc:
        raise ConfigurationTypeError(_problem(parameter, str(exc))) from exc
    except ValueError as exc:
        raise ConfigurationError(_problem(parameter, str(exc))) from exc


def _wrong_kind(parameter: str, expected: str, value: object) -> ConfigurationTypeError:
    return ConfigurationTypeError(
        _problem(parameter, f"must be {expected}, not {type(value).__name__}")
    )


def check_texts(**values: object) -> None:
    """Each value is a ``str`` or ``None``."""
    for parameter, value in values.items():
        if value is not None and not isinstance(value, str):
            raise _wrong_kind(parameter, "a str or None", value)


def check_flags(**values: object) -> None:
    """Each value is a ``bool``."""
    for parameter, value in values.items():
        if not isinstance(value, bool):
            raise _wrong_kind(parameter, "True or False", value)


def check_counts(**values: tuple[object, int]) -> None:
    """Each ``(value, minimum)`` is an ``int`` (not a ``bool``) of at least ``minimum``."""
    for parameter, (value, minimum) in values.items():
        if not is_int(value):
            raise _wrong_kind(parameter, f"an int >= {minimum}", value)
        if value < minimum:
            raise ConfigurationError(_problem(parameter, f"must be >= {minimum}, got {value}"))


def check_instance(parameter: str, value: object, kind: type, expected: str) -> None:
    """``value`` is ``None`` or an instance of ``kind``."""
    if value is not None and not isinstance(value, kind):
        raise _wrong_kind(parameter, expected, value)


def model_setting(parameter: str, value: object) -> LLMConfig | None:
    """The agent's own model: ``None``, a model string, a dict or an :class:`LLMConfig`."""
    if value is None:
        return None
    if not isinstance(value, str | Mapping | LLMConfig):
        raise _wrong_kind(parameter, "a model string, a dict or an LLMConfig", value)
    with argument(parameter):
        return LLMConfig.coerce(value)


def model_entries(parameter: str, value: object) -> tuple[str | LLMConfig, ...]:
    """A list of models (``fallback_models``), each what :func:`model_entry` accepts."""
    if value is None:
        return ()
    if isinstance(value, str | Mapping | LLMConfig) or not isinstance(value, Sequence):
        raise _wrong_kind(parameter, "a list of model strings, dicts or LLMConfigs", value)
    return tuple(model_entry(entry, f"{parameter}[{index}]") for index, entry in enumerate(value))


def check_prices(parameter: str, value: object) -> None:
    """``{model: {"input": usd, "output": usd, ...}}`` with numbers >= 0."""
    if value is None:
        return
    if not isinstance(value, Mapping):
        raise _wrong_kind(parameter, "a mapping of model to prices", value)
    for model, prices in value.items():
        if not isinstance(prices, Mapping) or not all(
            is_number(p) and p >= 0 for p in prices.values()
        ):
            raise ConfigurationError(
                _problem(parameter, f"the prices of {model!r} must map names to numbers >= 0")
            )


def observer_list(parameter: str, value: object) -> tuple[Any, ...]:
    """``None``, a callable, or a list of callables."""
    if value is None:
        return ()
    if callable(value):
        return (value,)
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise _wrong_kind(parameter, "a callable or a list of callables", value)
    for observer in value:
        if not callable(observer):
            raise _wrong_kind(parameter, "a list of callables", observer)
    return tuple(value)


def context_setting(parameter: str, value: object) -> ContextConfig | None:
    """``None`` or ``True`` (the default, ``ContextConfig()``), ``False`` (off) or a
    :class:`ContextConfig`."""
    if value is None or isinstance(value, bool):
        return None if value is False else ContextConfig()
    if not isinstance(value, ContextConfig):
        raise _wrong_kind(parameter, "True, False, None or a ContextConfig", value)
    return value


def tracing_setting(parameter: str, value: object) -> bool | Tracer | Callable[[Any], None]:
    """``None`` or ``False`` (off), ``True`` (an :class:`OTelTracer` made at the first
    turn) or a :class:`~praisonlike.tracing.Tracer`. Any other callable still works
    as an observer, with a ``DeprecationWarning`` (pass it as ``on_event=``)."""
    if value is None or isinstance(value, bool):
        return bool(value)
    from praisonlike.tracing import Tracer

    if isinstance(value, Tracer):
        return value
    if callable(value):
        warnings.warn(
            f"Agent({parameter}=<callable>) is deprecated: tracing= takes True, False or an "
            "OTelTracer; pass other callables as on_event=",
            DeprecationWarning,
            stacklevel=3,
        )
        return value
    raise _wrong_kind(parameter, "True, False, None or an OTelTracer", value)


def path_list(parameter: str, value: object) -> tuple[str | Path, ...]:
    """``None``, one path, or a list of paths (``str`` or ``Path``)."""
    if value is None:
        return ()
    if isinstance(value, str | Path):
        return (value,)
    if not isinstance(value, Sequence) or not all(isinstance(p, str | Path) for p in value):
        raise _wrong_kind(parameter, "a path or a list of paths", value)
    return tuple(value)


def check_iterable(parameter: str, value: object) -> None:
    """``None`` or a list (not a single string or mapping)."""
    if value is None:
        return
    if isinstance(value, str | Mapping) or not hasattr(value, "__iter__"):
        raise _wrong_kind(parameter, "a list", value)


_LOOSE_REFLECTION = {"self_reflect": False, "min_reflect": 1, "max_reflect": 3, "reflect_llm": None}


def reflection_setting(
    value: object,
    self_reflect: bool,
    min_reflect: int,
    max_reflect: int,
    reflect_llm: object,
) -> ReflectionConfig | None:
    """``reflection=`` under the one rule (``None``/``False`` off, ``True`` the defaults,
    a :class:`ReflectionConfig` as given), or the deprecated loose parameters.

    A loose parameter given a value other than its default warns
    (``DeprecationWarning``); giving one together with ``reflection`` is an error.
    """
    loose = {
        "self_reflect": self_reflect,
        "min_reflect": min_reflect,
        "max_reflect": max_reflect,
        "reflect_llm": reflect_llm,
    }
    given = [
        name
        for name, default in _LOOSE_REFLECTION.items()
        if type(loose[name]) is not type(default) or loose[name] != default
    ]
    if not given:
        if value is None or isinstance(value, bool):
            return ReflectionConfig() if value else None
        if not isinstance(value, ReflectionConfig):
            raise _wrong_kind("reflection", "True, False, None or a ReflectionConfig", value)
        return value
    if value is not None:
        raise ConfigurationError(
            _problem("reflection", f"pass reflection= or the deprecated {given[0]}=, not both")
        )
    check_flags(self_reflect=self_reflect)
    check_counts(min_reflect=(min_reflect, 0), max_reflect=(max_reflect, 1))
    if min_reflect > max_reflect:
        raise ConfigurationError(
            _problem("min_reflect", f"must be <= max_reflect ({max_reflect}), got {min_reflect}")
        )
    judge = None if reflect_llm is None else model_entry(reflect_llm, "reflect_llm")
    warnings.warn(
        f"Agent({given[0]}=...) is deprecated: pass reflection=ReflectionConfig(min_rounds=..., "
        "max_rounds=..., llm=...) or reflection=True",
        DeprecationWarning,
        stacklevel=3,
    )
    if not self_reflect:
        return None
    return ReflectionConfig(min_rounds=min_reflect, max_rounds=max_reflect, llm=judge)
