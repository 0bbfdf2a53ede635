"""Classify any exception from a model call, and turn it into a typed praisonlike error.

:func:`classify_llm_error` never raises and never returns ``None``: whatever it is
given (a LiteLLM exception, an ``httpx``/``openai``/``aiohttp`` error, a plain
``TimeoutError``, an exception that only carries a status code or a message) it
answers with an :class:`ErrorClass` that tells the dispatcher whether to retry,
how long the provider asked it to wait, whether compressing the context could
help, and whether a fallback model is worth trying. The stages, first match wins:

1. a praisonlike :class:`~praisonlike.errors.LLMError` keeps its own kind;
2. LiteLLM's exception classes (only once LiteLLM is loaded: an exception cannot
   be a LiteLLM one before that);
3. the HTTP status (``status_code``, ``status`` or ``response.status_code``);
4. well-known exception types, matched by class name so ``httpx`` and friends
   are never imported here;
5. patterns in the message;
6. the explicit cause (``raise ... from``), then ``unknown``.

A ``bad_request`` or ``service_unavailable`` verdict from stages 2-3 is refined by
the message (a 400 that says "maximum context length" is a context error).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import math
import re
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from enum import Enum
from typing import Any, NamedTuple

from praisonlike import errors
from praisonlike.llm import backend

_MAX_MESSAGE_CHARS = 2000
_MAX_CAUSE_DEPTH = 5


class ErrorKind(str, Enum):
    """What went wrong; each value equals the ``kind`` of a praisonlike LLM error."""

    AUTHENTICATION = "authentication"
    PERMISSION_DENIED = "permission_denied"
    RATE_LIMIT = "rate_limit"
    CONTEXT_WINDOW_EXCEEDED = "context_window_exceeded"
    MODEL_NOT_FOUND = "model_not_found"
    BAD_REQUEST = "bad_request"
    CONTENT_POLICY = "content_policy"
    TIMEOUT = "timeout"
    SERVICE_UNAVAILABLE = "service_unavailable"
    CONNECTION = "connection"
    MALFORMED_RESPONSE = "malformed_response"
    UNKNOWN = "unknown"


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


class _Rule(NamedTuple):
    retryable: bool
    compress: bool
    fallback: bool
    error_type: type[errors.LLMError]
    summary: str


# (retryable, compress context, fall back, praisonlike error type, summary)
_RULES: dict[ErrorKind, _Rule] = {
    ErrorKind.AUTHENTICATION: _Rule(
        False, False, True, errors.AuthenticationError, "Credentials rejected"
    ),
    ErrorKind.PERMISSION_DENIED: _Rule(
        False, False, True, errors.PermissionDeniedError, "Not allowed to use this model"
    ),
    ErrorKind.RATE_LIMIT: _Rule(True, False, True, errors.RateLimitError, "Rate limited"),
    ErrorKind.CONTEXT_WINDOW_EXCEEDED: _Rule(
        False, True, False, errors.ContextWindowExceededError, "Context window exceeded"
    ),
    ErrorKind.MODEL_NOT_FOUND: _Rule(
        False, False, True, errors.ModelNotFoundError, "Model not found"
    ),
    ErrorKind.BAD_REQUEST: _Rule(False, False, False, errors.BadRequestError, "Bad request"),
    ErrorKind.CONTENT_POLICY: _Rule(
        False, False, False, errors.ContentPolicyError, "Refused by the content policy"
    ),
    ErrorKind.TIMEOUT: _Rule(True, False, True, errors.LLMTimeoutError, "Timed out"),
    ErrorKind.SERVICE_UNAVAILABLE: _Rule(
        True, False, True, errors.ServiceUnavailableError, "Provider unavailable"
    ),
    ErrorKind.CONNECTION: _Rule(True, False, True, errors.APIConnectionError, "Connection failed"),
    ErrorKind.MALFORMED_RESPONSE: _Rule(
        True, False, True, errors.MalformedResponseError, "Malformed response"
    ),
    ErrorKind.UNKNOWN: _Rule(False, False, False, errors.LLMError, "Model call failed"),
}

# Checked in this order; ContextWindowExceededError, ContentPolicyViolationError and
# PaymentRequiredError subclass BadRequestError, so they come before it.
_LITELLM_CLASSES: tuple[tuple[str, ErrorKind], ...] = (
    ("ContextWindowExceededError", ErrorKind.CONTEXT_WINDOW_EXCEEDED),
    ("ContentPolicyViolationError", ErrorKind.CONTENT_POLICY),
    ("PaymentRequiredError", ErrorKind.PERMISSION_DENIED),
    ("AuthenticationError", ErrorKind.AUTHENTICATION),
    ("PermissionDeniedError", ErrorKind.PERMISSION_DENIED),
    ("NotFoundError", ErrorKind.MODEL_NOT_FOUND),
    ("RateLimitError", ErrorKind.RATE_LIMIT),
    ("Timeout", ErrorKind.TIMEOUT),
    ("APIConnectionError", ErrorKind.CONNECTION),
    ("ServiceUnavailableError", ErrorKind.SERVICE_UNAVAILABLE),
    ("InternalServerError", ErrorKind.SERVICE_UNAVAILABLE),
    ("BadGatewayError", ErrorKind.SERVICE_UNAVAILABLE),
    ("APIResponseValidationError", ErrorKind.MALFORMED_RESPONSE),
    ("BadRequestError", ErrorKind.BAD_REQUEST),
    ("UnprocessableEntityError", ErrorKind.BAD_REQUEST),
)
# LiteLLM gives these a made-up status (500) without any HTTP response behind it.
_LITELLM_SYNTHETIC_STATUS = ("APIConnectionError", "APIResponseValidationError")

_STATUS_KINDS: dict[int, ErrorKind] = {
    401: ErrorKind.AUTHENTICATION,
    402: ErrorKind.PERMISSION_DENIED,
    403: ErrorKind.PERMISSION_DENIED,
    404: ErrorKind.MODEL_NOT_FOUND,
    408: ErrorKind.TIMEOUT,
    413: ErrorKind.CONTEXT_WINDOW_EXCEEDED,
    429: ErrorKind.RATE_LIMIT,
}

_BUILTIN_TYPES: tuple[tuple[tuple[type[BaseException], ...], ErrorKind], ...] = (
    ((TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError), ErrorKind.TIMEOUT),
    ((ConnectionError,), ErrorKind.CONNECTION),
    ((json.JSONDecodeError,), ErrorKind.MALFORMED_RESPONSE),
)

# Class names of httpx, openai, aiohttp, requests and socket errors; the most
# derived class in the MRO decides (openai.APITimeoutError subclasses its
# APIConnectionError, httpx.ConnectTimeout is a TransportError).
_TYPE_NAMES: dict[str, ErrorKind] = {
    **dict.fromkeys(
        (
            "TimeoutException",
            "ConnectTimeout",
            "ReadTimeout",
            "WriteTimeout",
            "PoolTimeout",
            "APITimeoutError",
            "ServerTimeoutError",
            "ConnectionTimeoutError",
            "SocketTimeoutError",
        ),
        ErrorKind.TIMEOUT,
    ),
    **dict.fromkeys(
        (
            "ConnectError",
            "ReadError",
            "WriteError",
            "CloseError",
            "NetworkError",
            "ProtocolError",
            "RemoteProtocolError",
            "LocalProtocolError",
            "ProxyError",
            "TransportError",
            "APIConnectionError",
            "ClientConnectionError",
            "ClientConnectorError",
            "ServerDisconnectedError",
            "ClientOSError",
            "ConnectionError",
            "gaierror",
        ),
        ErrorKind.CONNECTION,
    ),
    **dict.fromkeys(
        ("DecodingError", "APIResponseValidationError", "ContentTypeError"),
        ErrorKind.MALFORMED_RESPONSE,
    ),
}


def _pattern(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(alternatives), re.IGNORECASE)


_MESSAGE_PATTERNS: tuple[tuple[ErrorKind, re.Pattern[str]], ...] = (
    (
        ErrorKind.RATE_LIMIT,
        _pattern(
            r"rate[ _-]?limit",
            r"too many requests",
            r"resource[ _]exhausted",
            r"\bquota\b",
            r"throttl",
        ),
    ),
    (
        ErrorKind.CONTEXT_WINDOW_EXCEEDED,
        _pattern(
            r"context[ _]length",
            r"maximum context",
            r"context[ _]window",
            r"context size",
            r"too many tokens",
            r"prompt is too long",
            r"input is too long",
            r"reduce the length of the messages",
            r"exceeds? the (?:maximum|max) (?:number of )?tokens",
        ),
    ),
    (
        ErrorKind.CONTENT_POLICY,
        _pattern(
            r"content[ _]policy",
            r"content[ _]filter",
            r"safety system",
            r"content management policy",
            r"responsibleaipolicyviolation",
        ),
    ),
    (
        ErrorKind.AUTHENTICATION,
        _pattern(
            r"(?:invalid|incorrect|missing|no) (?:x-)?api[ _-]?key",
            r"api key not valid",
            r"authentication",
            r"unauthori[sz]ed",
        ),
    ),
    (
        ErrorKind.MODEL_NOT_FOUND,
        _pattern(
            r"model_not_found",
            r"no such model",
            r"unknown model",
            r"\bmodel\b[^\n.]{0,80}\b(?:not found|does not exist)",
        ),
    ),
    (
        ErrorKind.PERMISSION_DENIED,
        _pattern(
            r"permission denied",
            r"\bforbidden\b",
            r"access denied",
            r"insufficient (?:credits|balance)",
        ),
    ),
    (
        ErrorKind.SERVICE_UNAVAILABLE,
        _pattern(
            r"overloaded",
            r"service unavailable",
            r"temporarily unavailable",
            r"bad gateway",
            r"internal server error",
            r"\bserver error\b",
        ),
    ),
    (ErrorKind.TIMEOUT, _pattern(r"timed out", r"\btimeout\b", r"deadline exceeded")),
    (
        ErrorKind.CONNECTION,
        _pattern(
            r"connection (?:reset|refused|error|aborted|closed)",
            r"remote end closed",
            r"server disconnected",
            r"name or service not known",
            r"name resolution",
            r"network is unreachable",
            r"broken pipe",
        ),
    ),
    (
        ErrorKind.MALFORMED_RESPONSE,
        _pattern(
            r"invalid json",
            r"json ?decode",
            r"expecting value",
            r"malformed",
            r"unterminated string",
        ),
    ),
)

# Which message verdicts may override a coarse verdict from the class or status.
_REFINEMENTS: dict[ErrorKind, frozenset[ErrorKind]] = {
    ErrorKind.BAD_REQUEST: frozenset(
        {ErrorKind.CONTEXT_WINDOW_EXCEEDED, ErrorKind.CONTENT_POLICY, ErrorKind.MODEL_NOT_FOUND}
    ),
    ErrorKind.SERVICE_UNAVAILABLE: frozenset({ErrorKind.CONTEXT_WINDOW_EXCEEDED}),
}

# A 429 that says the account is out of quota will not clear by waiting.
_EXHAUSTED_QUOTA = _pattern(r"insufficient_quota")

_REDACTED = "[REDACTED]"
_ASSIGNED_SECRET = re.compile(
    r"""(?P<name>\b(?:x[-_])?api[-_]?key|\baccess[-_]?token|\bauth[-_]?token"""
    r"""|\bclient[-_]?secret|\bsecret[-_]?key|\bpassword)"""
    r"""(?P<sep>["']?\s*[=:]\s*["']?)(?!\[REDACTED\])(?P<value>[^\s"'&,;)}\]]+)""",
    re.IGNORECASE,
)
_BEARER = re.compile(r"\b(?P<scheme>Bearer)\s+(?!\[REDACTED\])[A-Za-z0-9._~+/=-]+", re.IGNORECASE)
_TOKENS = re.compile(
    r"\bsk-[A-Za-z0-9_*-]{8,}"
    r"|\bAIza[0-9A-Za-z_-]{20,}"
    r"|\bgsk_[A-Za-z0-9]{16,}"
    r"|\bxai-[A-Za-z0-9]{16,}"
    r"|\bhf_[A-Za-z0-9]{16,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
)


def redact_secrets(text: str) -> str:
    """Replace API-key-like tokens in ``text`` with ``[REDACTED]``.

    Covers OpenAI/Anthropic ``sk-...`` keys (also masked ones like ``sk-proj-****abcd``),
    Google ``AIza...``, Groq ``gsk_...``, xAI, Hugging Face and AWS access key ids,
    ``Bearer <token>`` and ``api_key=...``-style assignments (also ``"api_key": "..."``,
    ``x-api-key:``, ``access_token=``, ``client_secret=``, ``password=``). The rest of
    the text is unchanged; applying it twice gives the same result as once.
    """
    text = _ASSIGNED_SECRET.sub(lambda m: f"{m['name']}{m['sep']}{_REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m['scheme']} {_REDACTED}", text)
    return _TOKENS.sub(_REDACTED, text)


def classify_llm_error(exc: BaseException) -> ErrorClass:
    """Classify ``exc`` (see the module docstring for the stages); never raises."""
    verdict = _classify(exc, depth=0)
    if verdict is None:
        return _verdict(exc, ErrorKind.UNKNOWN, _status_of(exc))
    return verdict


def to_llm_error(exc: BaseException, *, model: str | None, retried: int = 0) -> errors.LLMError:
    """The praisonlike error for ``exc``: the :class:`~praisonlike.errors.LLMError`
    subclass of its kind (``LLMError`` itself for ``unknown``), with the status code,
    the redacted provider message and ``retried``. ``model`` falls back to the
    exception's own ``model`` attribute. Raise it with ``raise ... from exc``.
    """
    verdict = classify_llm_error(exc)
    rule = _RULES[verdict.kind]
    if model is None:
        exc_model = _safe_attr(exc, "model")
        model = exc_model if isinstance(exc_model, str) and exc_model else None
    return rule.error_type(
        f"{rule.summary}: {verdict.message}" if verdict.message else rule.summary,
        model=model,
        status_code=verdict.status_code,
        provider_message=verdict.message or None,
        retried=retried,
    )


# LiteLLM wraps a dropped connection or an undecodable body in these, with a made-up 500.
_LITELLM_WRAPPERS = ("InternalServerError", "MidStreamFallbackError")
_TRANSPORT_KINDS: dict[str, ErrorKind] = {
    "APIConnectionError": ErrorKind.CONNECTION,
    "RemoteProtocolError": ErrorKind.CONNECTION,
    "ReadError": ErrorKind.CONNECTION,
    "ConnectError": ErrorKind.CONNECTION,
    "JSONDecodeError": ErrorKind.MALFORMED_RESPONSE,
}


def _wrapped_transport_kind(exc: BaseException) -> ErrorKind | None:
    """For LiteLLM's synthetic-500 wrappers: the transport failure inside, if any.

    An undecodable body anywhere in the chain wins over the connection error
    LiteLLM wraps it in.
    """
    if type(exc).__name__ not in _LITELLM_WRAPPERS:
        return None
    found: list[ErrorKind] = []
    inner: BaseException | None = exc
    for _ in range(_MAX_CAUSE_DEPTH + 4):
        if inner is None:
            break
        kind = _TRANSPORT_KINDS.get(type(inner).__name__)
        if kind is not None and inner is not exc:
            found.append(kind)
        nested = _safe_attr(inner, "original_exception")
        inner = (
            nested if isinstance(nested, BaseException) else (inner.__cause__ or inner.__context__)
        )
    if ErrorKind.MALFORMED_RESPONSE in found:
        return ErrorKind.MALFORMED_RESPONSE
    return found[0] if found else None


def _classify(exc: BaseException, depth: int) -> ErrorClass | None:
    if isinstance(exc, errors.LLMError):
        return _from_praisonlike(exc)
    text = _raw_message(exc)
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
    rule = _RULES[kind]
    retryable = rule.retryable
    retry_after = _retry_after(exc)
    if kind is ErrorKind.RATE_LIMIT and retry_after is None and _EXHAUSTED_QUOTA.search(raw):
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
    if not backend.is_loaded():
        return None
    litellm = backend.load_litellm()
    for name, kind in _LITELLM_CLASSES:
        cls = getattr(litellm, name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return kind, name in _LITELLM_SYNTHETIC_STATUS
    return None


def _kind_for_status(status: int | None) -> ErrorKind | None:
    if status is None or not 400 <= status <= 599:
        return None
    if status in _STATUS_KINDS:
        return _STATUS_KINDS[status]
    return ErrorKind.BAD_REQUEST if status < 500 else ErrorKind.SERVICE_UNAVAILABLE


def _kind_for_type(exc: BaseException) -> ErrorKind | None:
    for types, kind in _BUILTIN_TYPES:
        if isinstance(exc, types):
            return kind
    for cls in type(exc).__mro__:
        if cls.__name__ in _TYPE_NAMES:
            return _TYPE_NAMES[cls.__name__]
    return None


def _kind_for_message(text: str) -> ErrorKind | None:
    for kind, pattern in _MESSAGE_PATTERNS:
        if pattern.search(text):
            return kind
    return None


def _refine(kind: ErrorKind, text: str) -> ErrorKind:
    allowed = _REFINEMENTS.get(kind)
    if not allowed:
        return kind
    for candidate, pattern in _MESSAGE_PATTERNS:
        if candidate in allowed and pattern.search(text):
            return candidate
    return kind


def _safe_attr(obj: object, name: str) -> Any:
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


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
        _safe_attr(exc, "status_code"),
        _safe_attr(exc, "status"),
        _safe_attr(_safe_attr(exc, "response"), "status_code"),
    ):
        status = _as_status(value)
        if status is not None:
            return status
    return None


def _raw_message(exc: BaseException) -> str:
    message = _safe_attr(exc, "message")
    if isinstance(message, str) and message:
        return message
    try:
        return str(exc)
    except Exception:
        return type(exc).__name__


_LITELLM_PREFIX = re.compile(r"^(?:litellm\.\w+:\s*)+")


def _provider_message(raw: str) -> str:
    message = redact_secrets(_LITELLM_PREFIX.sub("", raw).strip())
    if len(message) > _MAX_MESSAGE_CHARS:
        return message[: _MAX_MESSAGE_CHARS - 1] + "…"
    return message


def _retry_after(exc: BaseException) -> float | None:
    for headers in (
        _safe_attr(exc, "headers"),
        _safe_attr(_safe_attr(exc, "response"), "headers"),
        _safe_attr(exc, "litellm_response_headers"),
    ):
        seconds = _retry_after_from_headers(headers)
        if seconds is not None:
            return seconds
    return None


def _retry_after_from_headers(headers: object) -> float | None:
    items = _safe_attr(headers, "items")
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


__all__ = ["ErrorClass", "ErrorKind", "classify_llm_error", "redact_secrets", "to_llm_error"]
