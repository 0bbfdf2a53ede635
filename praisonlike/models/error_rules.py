"""The kinds of model-call failure and the lookup tables that classify them.

:class:`ErrorKind` names each kind of failure; :data:`RULES` says how each kind is
handled (retry, compress, fall back) and which praisonlike error it becomes. The
other tables map LiteLLM class names, HTTP statuses, exception types and message
patterns to a kind; they are data only, the order of the stages that consult them
is in :mod:`praisonlike.models.error_classification`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
from enum import Enum
from typing import NamedTuple

from praisonlike import errors


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


class Rule(NamedTuple):
    """How one kind is handled: retried, context compressed, fallback model tried;
    the praisonlike error it is raised as, and the summary that starts its message."""

    retryable: bool
    compress: bool
    fallback: bool
    error_type: type[errors.LLMError]
    summary: str


RULES: dict[ErrorKind, Rule] = {
    ErrorKind.AUTHENTICATION: Rule(
        False, False, True, errors.AuthenticationError, "Credentials rejected"
    ),
    ErrorKind.PERMISSION_DENIED: Rule(
        False, False, True, errors.PermissionDeniedError, "Not allowed to use this model"
    ),
    ErrorKind.RATE_LIMIT: Rule(True, False, True, errors.RateLimitError, "Rate limited"),
    ErrorKind.CONTEXT_WINDOW_EXCEEDED: Rule(
        False, True, False, errors.ContextWindowExceededError, "Context window exceeded"
    ),
    ErrorKind.MODEL_NOT_FOUND: Rule(
        False, False, True, errors.ModelNotFoundError, "Model not found"
    ),
    ErrorKind.BAD_REQUEST: Rule(False, False, False, errors.BadRequestError, "Bad request"),
    ErrorKind.CONTENT_POLICY: Rule(
        False, False, False, errors.ContentPolicyError, "Refused by the content policy"
    ),
    ErrorKind.TIMEOUT: Rule(True, False, True, errors.LLMTimeoutError, "Timed out"),
    ErrorKind.SERVICE_UNAVAILABLE: Rule(
        True, False, True, errors.ServiceUnavailableError, "Provider unavailable"
    ),
    ErrorKind.CONNECTION: Rule(True, False, True, errors.APIConnectionError, "Connection failed"),
    ErrorKind.MALFORMED_RESPONSE: Rule(
        True, False, True, errors.MalformedResponseError, "Malformed response"
    ),
    ErrorKind.UNKNOWN: Rule(False, False, False, errors.LLMError, "Model call failed"),
}

# Checked in this order; ContextWindowExceededError, ContentPolicyViolationError and
# PaymentRequiredError subclass BadRequestError, so they come before it.
LITELLM_CLASSES: tuple[tuple[str, ErrorKind], ...] = (
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
LITELLM_SYNTHETIC_STATUS = ("APIConnectionError", "APIResponseValidationError")

STATUS_KINDS: dict[int, ErrorKind] = {
    401: ErrorKind.AUTHENTICATION,
    402: ErrorKind.PERMISSION_DENIED,
    403: ErrorKind.PERMISSION_DENIED,
    404: ErrorKind.MODEL_NOT_FOUND,
    408: ErrorKind.TIMEOUT,
    413: ErrorKind.CONTEXT_WINDOW_EXCEEDED,
    429: ErrorKind.RATE_LIMIT,
}

BUILTIN_TYPES: tuple[tuple[tuple[type[BaseException], ...], ErrorKind], ...] = (
    ((TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError), ErrorKind.TIMEOUT),
    ((ConnectionError,), ErrorKind.CONNECTION),
    ((json.JSONDecodeError,), ErrorKind.MALFORMED_RESPONSE),
)

# Class names of httpx, openai, aiohttp, requests and socket errors; the most
# derived class in the MRO decides (openai.APITimeoutError subclasses its
# APIConnectionError, httpx.ConnectTimeout is a TransportError).
TYPE_NAMES: dict[str, ErrorKind] = {
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


MESSAGE_PATTERNS: tuple[tuple[ErrorKind, re.Pattern[str]], ...] = (
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

# Messages that decide the kind whatever the class or status says, checked before
# them: a key that was never set is not an outage to retry (LiteLLM raises OpenAI's
# "Missing credentials" as a 500, Gemini's missing key as a connection error), and
# a model LiteLLM cannot route to any provider will not route on a retry.
OVERRIDES: tuple[tuple[ErrorKind, re.Pattern[str]], ...] = (
    (
        ErrorKind.AUTHENTICATION,
        _pattern(
            r"missing credentials",
            r"missing\b[\w ]{0,40}?\b(?:api[ _-]?key|access[ _]token|auth(?:entication)? token)",
            r"\bno (?:api[ _-]?)?key (?:is |was )?(?:set|provided|found|given)",
            r"\bno api[ _-]?key\b",
            r"api[ _-]?key client option must be set",
            r"api[ _-]?key (?:header )?(?:is |was )?(?:missing|required|not (?:set|found|given))",
            r"could not resolve authentication method",
            r"set the `?\w+_API_(?:KEY|TOKEN)`?(?: or `?\w+`?)* environment variable",
        ),
    ),
    (ErrorKind.MODEL_NOT_FOUND, _pattern(r"llm provider not provided")),
)

# Which message verdicts may override a coarse verdict from the class or status.
REFINEMENTS: dict[ErrorKind, frozenset[ErrorKind]] = {
    ErrorKind.BAD_REQUEST: frozenset(
        {ErrorKind.CONTEXT_WINDOW_EXCEEDED, ErrorKind.CONTENT_POLICY, ErrorKind.MODEL_NOT_FOUND}
    ),
    ErrorKind.SERVICE_UNAVAILABLE: frozenset({ErrorKind.CONTEXT_WINDOW_EXCEEDED}),
}

# A 429 that says the account is out of quota will not clear by waiting.
EXHAUSTED_QUOTA = _pattern(r"insufficient_quota")

# LiteLLM wraps a dropped connection or an undecodable body in these, with a made-up 500.
LITELLM_WRAPPERS = ("InternalServerError", "MidStreamFallbackError")
TRANSPORT_KINDS: dict[str, ErrorKind] = {
    "APIConnectionError": ErrorKind.CONNECTION,
    "RemoteProtocolError": ErrorKind.CONNECTION,
    "ReadError": ErrorKind.CONNECTION,
    "ConnectError": ErrorKind.CONNECTION,
    "JSONDecodeError": ErrorKind.MALFORMED_RESPONSE,
}


__all__ = [
    "BUILTIN_TYPES",
    "EXHAUSTED_QUOTA",
    "LITELLM_CLASSES",
    "LITELLM_SYNTHETIC_STATUS",
    "LITELLM_WRAPPERS",
    "MESSAGE_PATTERNS",
    "OVERRIDES",
    "REFINEMENTS",
    "RULES",
    "STATUS_KINDS",
    "TRANSPORT_KINDS",
    "TYPE_NAMES",
    "ErrorKind",
    "Rule",
]
