"""Checks of ``Agent(...)``'s arguments, so wrong configuration fails at construction.

Every check raises :class:`~praisonlike.errors.ConfigurationError` (a
``ValueError``) whose message starts ``Agent(<parameter>=...)``; a value of the
wrong kind raises :class:`~praisonlike.errors.ConfigurationTypeError`, which is
also a ``TypeError``. Nothing here imports, reads or connects anything.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from praisonlike.config_checks import is_int, is_number
from praisonlike.errors import ConfigurationError, ConfigurationTypeError
from praisonlike.llm.config import LLMConfig, model_entry


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


def named_model(parameter: str, value: object) -> str | LLMConfig | None:
    """Another model (``reflect_llm``): ``None`` or what :func:`model_entry` accepts."""
    return None if value is None else model_entry(value, parameter)


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


def check_tracing(parameter: str, value: object) -> None:
    """``False``, ``None``, ``True``, or a callable taking each event."""
    if value is not None and not isinstance(value, bool) and not callable(value):
        raise _wrong_kind(parameter, "True, False or a callable taking each event", value)


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


def check_reflection(min_reflect: object, max_reflect: object) -> None:
    """``0 <= min_reflect <= max_reflect`` and ``max_reflect >= 1``."""
    check_counts(min_reflect=(min_reflect, 0), max_reflect=(max_reflect, 1))
    if is_int(min_reflect) and is_int(max_reflect) and min_reflect > max_reflect:
        raise ConfigurationError(
            _problem("min_reflect", f"must be <= max_reflect ({max_reflect}), got {min_reflect}")
        )
