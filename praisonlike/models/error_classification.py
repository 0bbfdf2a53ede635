"""Classify any exception from a model call, and turn it into a typed praisonlike error.

:func:`classify_llm_error` never raises and never returns ``None``: whatever it is
given (a LiteLLM exception, an ``httpx``/``openai``/``aiohttp`` error, a plain
``TimeoutError``, an exception that only carries a status code or a message) it
answers with an :class:`ErrorClass` that tells the tool loop whether to retry,
how long the provider asked it to wait, whether compressing the context could
help, and whether a fallback model is worth trying. The stages, first match wins:

0. a praisonlike :class:`~praisonlike.errors.LLMError` keeps its own kind;
1. a message that says the key is missing (authentication) or that LiteLLM cannot
   route the model (model_not_found), whatever the class or status;
2. LiteLLM's exception classes (only once LiteLLM is loaded: an exception cannot
   be a LiteLLM one before that);
3. the HTTP status (``status_code``, ``status`` or ``response.status_code``);
4. well-known exception types, matched by class name so ``httpx`` and friends
   are never imported here;
5. patterns in the message;
6. the explicit cause (``raise ... from``), then ``unknown``.

A ``bad_request`` or ``service_unavailable`` verdict from stages 2-3 is refined by
the message (a 400 that says "maximum context length" is a context error). Three
verdicts are not retryable although their kind is: a 429 that says the quota is
used up, a connection refused by a loopback endpoint (no server listens there;
waiting will not start one, so the next fallback model is tried at once), and a
host name that does not resolve (a misspelt host, or no name service). The
tables each stage consults are in :mod:`praisonlike.models.error_rules`.

:func:`to_llm_error` names the endpoint the failed request went to (from the
transport's request in the exception chain, reduced to ``scheme://host:port``).
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

from praisonlike import errors
from praisonlike.models import litellm_backend
from praisonlike.models.error_chain import (
    exception_chain,
    name_not_found,
    refused_on_this_machine,
    request_endpoint,
    safe_attr,
    socket_reason,
)
from praisonlike.models.error_rules import (
    BUILTIN_TYPES,
    EXHAUSTED_QUOTA,
    LITELLM_CLASSES,
    LITELLM_SYNTHETIC_STATUS,
    LITELLM_WRAPPERS,
    MESSAGE_PATTERNS,
    OVERRIDES,
    REFINEMENTS,
    RULES,
    STATUS_KINDS,
    TRANSPORT_KINDS,
    TYPE_NAMES,
    ErrorKind,
)
from praisonlike.redaction import redact_secrets

_MAX_MESSAGE_CHARS = 2000
_MAX_CAUSE_DEPTH = 5


@dataclass(frozen=True)
class ErrorClass:
    """The verdict on one failed call.

    Attributes:
        kind: the classification.
        retryable: retrying the same request on the same model may succeed.
        retry_after: seconds the provider asked to wait (``Retry-After`` in seconds
            or as an HTTP date, or ``retry-after-ms``); ``None`` when it did not say.
        should_compress_context: the request is too large; shrink it and resend.
        should_fallback_model: once this model is given up on (at once when not
            retryable, after the retries otherwise), the next fallback model may work.
        status_code: the HTTP status the exception carries; ``None`` when it has
            none, or when LiteLLM made one up for a failure that had no response
            (connection errors, invalid responses).
        message: the provider's message, secrets redacted, at most 2000 characters.
    """

    kind: ErrorKind
    retryable: bool
    retry_after: float | None
    should_compress_context: bool
    should_fallback_model: bool
    status_code: int | None
    message: str


def classify_llm_error(exc: BaseException) -> ErrorClass:
    """Classify ``exc`` (see the module docstring for the stages); never raises."""
    verdict = _classify(exc, depth=0)
    if verdict is None:
        return _verdict(exc, ErrorKind.UNKNOWN, _status_of(exc))
    return verdict


def to_llm_error(exc: BaseException, *, model: str | None, retried: int = 0) -> errors.LLMError:
    """The praisonlike error for ``exc``: the :class:`~praisonlike.errors.LLMError`
    subclass of its kind (``LLMError`` itself for ``unknown``), with the status code,
    the redacted provider message, ``retried`` and the ``endpoint`` the request went
    to; a connection or timeout error names that endpoint in its message. ``model``
    falls back to the exception's own ``model`` attribute. A praisonlike ``LLMError``
    comes back as a copy of itself (same class, message and attributes) with
    ``retried`` set. Raise it with ``raise ... from exc``.
    """
    if isinstance(exc, errors.LLMError):
        same = copy.copy(exc)
        same.retried = retried
        same.model = exc.model or model
        return same
    verdict = classify_llm_error(exc)
    rule = RULES[verdict.kind]
    if model is None:
        exc_model = safe_attr(exc, "model")
        model = exc_model if isinstance(exc_model, str) and exc_model else None
    endpoint = request_endpoint(exc)
    return rule.error_type(
        _summary(verdict, rule.summary, endpoint, exc),
        model=model,
        status_code=verdict.status_code,
        provider_message=verdict.message or None,
        retried=retried,
        endpoint=endpoint,
    )


def _summary(verdict: ErrorClass, summary: str, endpoint: str | None, exc: BaseException) -> str:
    if endpoint is not None and verdict.kind is ErrorKind.CONNECTION:
        reason = socket_reason(exc) or verdict.message
        return f"{summary}: could not reach {endpoint}" + (f" ({reason})" if reason else "")
    if endpoint is not None and verdict.kind is ErrorKind.TIMEOUT:
        summary = f"{summary}: no answer from {endpoint} in time"
    return f"{summary}: {verdict.message}" if verdict.message else summary


def _wrapped_transport_kind(exc: BaseException) -> ErrorKind | None:
    """For LiteLLM's synthetic-500 wrappers: the transport failure inside, if any.

    An undecodable body anywhere in the chain wins over the connection error
    LiteLLM wraps it in.
    """
    if type(exc).__name__ not in LITELLM_WRAPPERS:
        return None
    found = [
        kind
        for inner in exception_chain(exc)[1:]
        if (kind := TRANSPORT_KINDS.get(type(inner).__name__)) is not None
    ]
    if ErrorKind.MALFORMED_RESPONSE in found:
        return ErrorKind.MALFORMED_RESPONSE
    return found[0] if found else None


def _classify(exc: BaseException, depth: int) -> ErrorClass | None:
    if isinstance(exc, errors.LLMError):
        return _from_praisonlike(exc)
    text = _raw_message(exc)
    for kind, pattern in OVERRIDES:
        if pattern.search(text):
            status = _status_of(exc)
            return _verdict(exc, kind, status if _kind_for_status(status) is kind else None, text)
    transport = _wrapped_transport_kind(exc)
    if transport is not None:
        return _verdict(exc, transport, None, text)
    litellm_kind = _litellm_kind(exc)
    if litellm_kind is not None:
        kind, synthetic = litellm_kind
        status = None if synthetic else _status_of(exc)
        return _verdict(exc, _refine(kind, text), status, text)
    status = _status_of(exc)
    status_kind = _kind_for_status(status)
    if status_kind is not None:
        return _verdict(exc, _refine(status_kind, text), status, text)
    type_kind = _kind_for_type(exc)
    if type_kind is not None:
        return _verdict(exc, type_kind, status, text)
    message_kind = _kind_for_message(text)
    if message_kind is not None:
        return _verdict(exc, message_kind, status, text)
    cause = exc.__cause__
    if cause is not None and depth < _MAX_CAUSE_DEPTH:
        return _classify(cause, depth + 1)
    return None


def _from_praisonlike(exc: errors.LLMError) -> ErrorClass:
    try:
        kind = ErrorKind(exc.kind)
    except ValueError:
        kind = ErrorKind.UNKNOWN
    text = exc.provider_message or exc.message
    verdict = _verdict(exc, kind, exc.status_code, text)
    if verdict.retry_after is None and exc.__cause__ is not None:
        return replace(verdict, retry_after=_retry_after(exc.__cause__))
    return verdict


def _verdict(
    exc: BaseException, kind: ErrorKind, status: int | None, text: str | None = None
) -> ErrorClass:
    raw = _raw_message(exc) if text is None else text
    rule = RULES[kind]
    retryable = rule.retryable
    retry_after = _retry_after(exc)
    if kind is ErrorKind.RATE_LIMIT and retry_after is None and EXHAUSTED_QUOTA.search(raw):
        retryable = False
    if kind is ErrorKind.CONNECTION and (refused_on_this_machine(exc) or name_not_found(exc)):
        retryable = False
    return ErrorClass(
        kind=kind,
        retryable=retryable,
        retry_after=retry_after,
        should_compress_context=rule.compress,
        should_fallback_model=rule.fallback,
        status_code=status,
        message=_provider_message(raw),
    )


def _litellm_kind(exc: BaseException) -> tuple[ErrorKind, bool] | None:
    if not litellm_backend.is_loaded():
        return None
    litellm = litellm_backend.load_litellm()
    for name, kind in LITELLM_CLASSES:
        cls = getattr(litellm, name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return kind, name in LITELLM_SYNTHETIC_STATUS
    return None


def _kind_for_status(status: int | None) -> ErrorKind | None:
    if status is None or not 400 <= status <= 599:
        return None
    if status in STATUS_KINDS:
        return STATUS_KINDS[status]
    return ErrorKind.BAD_REQUEST if status < 500 else ErrorKind.SERVICE_UNAVAILABLE


def _kind_for_type(exc: BaseException) -> ErrorKind | None:
    for types, kind in BUILTIN_TYPES:
        if isinstance(exc, types):
            return kind
    for cls in type(exc).__mro__:
        if cls.__name__ in TYPE_NAMES:
            return TYPE_NAMES[cls.__name__]
    return None


def _kind_for_message(text: str) -> ErrorKind | None:
    for kind, pattern in MESSAGE_PATTERNS:
        if pattern.search(text):
            return kind
    return None


def _refine(kind: ErrorKind, text: str) -> ErrorKind:
    allowed = REFINEMENTS.get(kind)
    if not allowed:
        return kind
    for candidate, pattern in MESSAGE_PATTERNS:
        if candidate in allowed and pattern.search(text):
            return candidate
    return kind


def _as_status(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _status_of(exc: BaseException) -> int | None:
    for value in (
        safe_attr(exc, "status_code"),
        safe_attr(exc, "status"),
        safe_attr(safe_attr(exc, "response"), "status_code"),
    ):
        status = _as_status(value)
        if status is not None:
            return status
    return None


def _raw_message(exc: BaseException) -> str:
    message = safe_attr(exc, "message")
    if isinstance(message, str) and message:
        return message
    try:
        return str(exc)
    except Exception:
        return type(exc).__name__


_LITELLM_PREFIX = re.compile(r"^(?:litellm\.\w+:\s*)+")


_URL_USERINFO = re.compile(r"(?<=://)[^/\s@]+@")


def _provider_message(raw: str) -> str:
    message = redact_secrets(_URL_USERINFO.sub("[REDACTED]@", _LITELLM_PREFIX.sub("", raw).strip()))
    if len(message) > _MAX_MESSAGE_CHARS:
        return message[: _MAX_MESSAGE_CHARS - 1] + "…"
    return message


def _retry_after(exc: BaseException) -> float | None:
    for headers in (
        safe_attr(exc, "headers"),
        safe_attr(safe_attr(exc, "response"), "headers"),
        safe_attr(exc, "litellm_response_headers"),
    ):
        seconds = _retry_after_from_headers(headers)
        if seconds is not None:
            return seconds
    return None


def _retry_after_from_headers(headers: object) -> float | None:
    items = safe_attr(headers, "items")
    if not callable(items):
        return None
    try:
        lowered = {str(key).lower(): str(value).strip() for key, value in items()}
    except Exception:
        return None
    millis = _non_negative_float(lowered.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    value = lowered.get("retry-after")
    if value is None:
        return None
    seconds = _non_negative_float(value)
    return seconds if seconds is not None else _seconds_until(value)


def _non_negative_float(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def _seconds_until(http_date: str) -> float | None:
    try:
        when = parsedate_to_datetime(http_date)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


__all__ = ["ErrorClass", "ErrorKind", "classify_llm_error", "to_llm_error"]
