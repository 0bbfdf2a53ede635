"""Classification of model-call failures into kinds, recovery hints and typed errors."""

from __future__ import annotations

import asyncio
import json
import socket
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from types import ModuleType
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from praisonlike import errors
from praisonlike.models import litellm_backend
from praisonlike.models.error_classification import (
    ErrorClass,
    ErrorKind,
    classify_llm_error,
    to_llm_error,
)
from praisonlike.models.network_guard import endpoint_label
from praisonlike.redaction import redact_secrets

K = ErrorKind
REQUEST = httpx.Request("POST", "https://api.example.invalid/v1/chat/completions")


@pytest.fixture(scope="module")
def litellm() -> ModuleType:
    return litellm_backend.load_litellm()


def response(status: int, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, headers=headers, request=REQUEST)


class StatusError(Exception):
    def __init__(self, message: str, status_code: Any) -> None:
        super().__init__(message)
        self.status_code = status_code


# -- LiteLLM's own exception classes --------------------------------------------------


def litellm_cases(litellm: ModuleType) -> dict[str, tuple[BaseException, ErrorKind]]:
    common = {"model": "gpt-4o-mini", "llm_provider": "openai"}
    return {
        "context": (
            litellm.ContextWindowExceededError("too long", **common),
            K.CONTEXT_WINDOW_EXCEEDED,
        ),
        "content_policy": (
            litellm.ContentPolicyViolationError("flagged", **common),
            K.CONTENT_POLICY,
        ),
        "bad_request": (litellm.BadRequestError("bad param", **common), K.BAD_REQUEST),
        "unprocessable": (
            litellm.UnprocessableEntityError("bad body", response=response(422), **common),
            K.BAD_REQUEST,
        ),
        "payment": (litellm.PaymentRequiredError("no credit", **common), K.PERMISSION_DENIED),
        "auth": (litellm.AuthenticationError("bad key", **common), K.AUTHENTICATION),
        "permission": (
            litellm.PermissionDeniedError("nope", response=response(403), **common),
            K.PERMISSION_DENIED,
        ),
        "not_found": (litellm.NotFoundError("no model", **common), K.MODEL_NOT_FOUND),
        "rate_limit": (litellm.RateLimitError("slow down", **common), K.RATE_LIMIT),
        "timeout": (litellm.Timeout("took too long", **common), K.TIMEOUT),
        "connection": (litellm.APIConnectionError("refused", **common), K.CONNECTION),
        "unavailable": (litellm.ServiceUnavailableError("down", **common), K.SERVICE_UNAVAILABLE),
        "internal": (litellm.InternalServerError("oops", **common), K.SERVICE_UNAVAILABLE),
        "bad_gateway": (litellm.BadGatewayError("proxy", **common), K.SERVICE_UNAVAILABLE),
        "invalid_response": (
            litellm.APIResponseValidationError("not json", **common),
            K.MALFORMED_RESPONSE,
        ),
        "api_error_529": (litellm.APIError(529, "Overloaded", **common), K.SERVICE_UNAVAILABLE),
    }


LITELLM_CASE_NAMES = [
    "context", "content_policy", "bad_request", "unprocessable", "payment", "auth",
    "permission", "not_found", "rate_limit", "timeout", "connection", "unavailable",
    "internal", "bad_gateway", "invalid_response", "api_error_529",
]


@pytest.mark.parametrize("case", LITELLM_CASE_NAMES)
def test_litellm_exception_classes(litellm: ModuleType, case: str) -> None:
    exc, kind = litellm_cases(litellm)[case]
    assert classify_llm_error(exc).kind is kind


# (retryable, should_compress_context, should_fallback_model) per kind: the documented policy.
POLICY = {
    K.AUTHENTICATION: (False, False, True),
    K.PERMISSION_DENIED: (False, False, True),
    K.RATE_LIMIT: (True, False, True),
    K.CONTEXT_WINDOW_EXCEEDED: (False, True, False),
    K.MODEL_NOT_FOUND: (False, False, True),
    K.BAD_REQUEST: (False, False, False),
    K.CONTENT_POLICY: (False, False, False),
    K.TIMEOUT: (True, False, True),
    K.SERVICE_UNAVAILABLE: (True, False, True),
    K.CONNECTION: (True, False, True),
    K.MALFORMED_RESPONSE: (True, False, True),
    K.UNKNOWN: (False, False, False),
}


@pytest.mark.parametrize("kind", list(ErrorKind))
def test_policy_per_kind(kind: ErrorKind) -> None:
    exc = next(t for t in all_llm_error_types() if t.kind == kind.value)("boom")
    verdict = classify_llm_error(exc)
    assert verdict.kind is kind
    assert (
        verdict.retryable,
        verdict.should_compress_context,
        verdict.should_fallback_model,
    ) == POLICY[kind]


def all_llm_error_types() -> list[type[errors.LLMError]]:
    found: list[type[errors.LLMError]] = [errors.LLMError]
    for name in errors.__all__:
        obj = getattr(errors, name)
        if isinstance(obj, type) and issubclass(obj, errors.LLMError) and obj not in found:
            found.append(obj)
    return found


def test_error_kinds_match_the_typed_hierarchy() -> None:
    assert {t.kind for t in all_llm_error_types()} == {k.value for k in ErrorKind}


def test_litellm_status_codes_are_reported(litellm: ModuleType) -> None:
    cases = litellm_cases(litellm)
    assert classify_llm_error(cases["rate_limit"][0]).status_code == 429
    assert classify_llm_error(cases["auth"][0]).status_code == 401
    assert classify_llm_error(cases["api_error_529"][0]).status_code == 529
    assert classify_llm_error(cases["connection"][0]).status_code is None
    assert classify_llm_error(cases["invalid_response"][0]).status_code is None


def test_provider_message_drops_litellm_prefixes(litellm: ModuleType) -> None:
    exc = litellm.ContextWindowExceededError("prompt is 9000 tokens", model="m", llm_provider="x")
    assert classify_llm_error(exc).message == "prompt is 9000 tokens"


def test_generic_bad_request_with_context_message_is_a_context_error(litellm: ModuleType) -> None:
    exc = litellm.BadRequestError(
        "This model's maximum context length is 8192 tokens", model="m", llm_provider="openai"
    )
    verdict = classify_llm_error(exc)
    assert verdict.kind is K.CONTEXT_WINDOW_EXCEEDED
    assert verdict.should_compress_context


def test_litellm_stage_is_skipped_until_litellm_is_loaded(
    litellm: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    exc = litellm.ContextWindowExceededError(
        "maximum context length exceeded", model="m", llm_provider="openai"
    )
    plain_bad_request = litellm.BadRequestError("bad param", model="m", llm_provider="openai")

    def must_not_load() -> ModuleType:
        raise AssertionError("classification imported LiteLLM")

    monkeypatch.setattr(litellm_backend, "is_loaded", lambda: False)
    monkeypatch.setattr(litellm_backend, "load_litellm", must_not_load)
    assert classify_llm_error(exc).kind is K.CONTEXT_WINDOW_EXCEEDED
    assert classify_llm_error(plain_bad_request).kind is K.BAD_REQUEST


# -- Retry-After ----------------------------------------------------------------------


def test_retry_after_seconds_from_response_headers(litellm: ModuleType) -> None:
    exc = litellm.RateLimitError(
        "slow down", llm_provider="openai", model="m", response=response(429, {"Retry-After": "7"})
    )
    verdict = classify_llm_error(exc)
    assert verdict.retry_after == 7.0
    assert verdict.retryable


def test_retry_after_ms_wins_over_retry_after(litellm: ModuleType) -> None:
    headers = {"retry-after-ms": "1500", "retry-after": "9"}
    exc = litellm.RateLimitError(
        "x", llm_provider="openai", model="m", response=response(429, headers)
    )
    assert classify_llm_error(exc).retry_after == 1.5


def test_retry_after_http_date(litellm: ModuleType) -> None:
    when = datetime.now(timezone.utc) + timedelta(seconds=120)
    headers = {"Retry-After": format_datetime(when, usegmt=True)}
    exc = litellm.ServiceUnavailableError(
        "busy", llm_provider="anthropic", model="m", response=response(503, headers)
    )
    wait = classify_llm_error(exc).retry_after
    assert wait is not None
    assert 60 < wait <= 120


def test_retry_after_date_in_the_past_is_zero() -> None:
    exc = StatusError("busy", 503)
    exc.headers = {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}  # type: ignore[attr-defined]
    assert classify_llm_error(exc).retry_after == 0.0


def test_retry_after_from_exception_headers(litellm: ModuleType) -> None:
    exc = litellm.Timeout("slow", model="m", llm_provider="openai", headers={"Retry-After": "3"})
    assert classify_llm_error(exc).retry_after == 3.0


def test_retry_after_from_litellm_response_headers() -> None:
    exc = StatusError("Too Many Requests", 429)
    exc.litellm_response_headers = httpx.Headers({"retry-after": "2.5"})  # type: ignore[attr-defined]
    assert classify_llm_error(exc).retry_after == 2.5


@pytest.mark.parametrize("value", ["soon", "-4", "nan", "inf", ""])
def test_unusable_retry_after_is_none(value: str) -> None:
    exc = StatusError("Too Many Requests", 429)
    exc.headers = {"Retry-After": value}  # type: ignore[attr-defined]
    assert classify_llm_error(exc).retry_after is None


def test_no_headers_means_no_retry_after(litellm: ModuleType) -> None:
    exc = litellm.RateLimitError("x", llm_provider="openai", model="m")
    assert classify_llm_error(exc).retry_after is None


# -- status codes only ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, K.BAD_REQUEST),
        (401, K.AUTHENTICATION),
        (402, K.PERMISSION_DENIED),
        (403, K.PERMISSION_DENIED),
        (404, K.MODEL_NOT_FOUND),
        (408, K.TIMEOUT),
        (413, K.CONTEXT_WINDOW_EXCEEDED),
        (422, K.BAD_REQUEST),
        (429, K.RATE_LIMIT),
        (500, K.SERVICE_UNAVAILABLE),
        (502, K.SERVICE_UNAVAILABLE),
        (503, K.SERVICE_UNAVAILABLE),
        (504, K.SERVICE_UNAVAILABLE),
        (529, K.SERVICE_UNAVAILABLE),
        ("503", K.SERVICE_UNAVAILABLE),
    ],
)
def test_status_code_attribute(status: Any, kind: ErrorKind) -> None:
    verdict = classify_llm_error(StatusError("failed", status))
    assert verdict.kind is kind
    assert verdict.status_code == int(status)


def test_status_from_httpx_status_error() -> None:
    exc = httpx.HTTPStatusError("server said no", request=REQUEST, response=response(429))
    assert classify_llm_error(exc).kind is K.RATE_LIMIT


def test_status_attribute_like_aiohttp() -> None:
    exc = Exception("failed")
    exc.status = 401  # type: ignore[attr-defined]
    assert classify_llm_error(exc).kind is K.AUTHENTICATION


def test_status_wins_over_message() -> None:
    assert classify_llm_error(StatusError("connection reset", 401)).kind is K.AUTHENTICATION


def test_non_http_status_is_ignored() -> None:
    assert classify_llm_error(StatusError("weird", 200)).kind is K.UNKNOWN
    assert classify_llm_error(StatusError("weird", True)).kind is K.UNKNOWN


@pytest.mark.parametrize(
    ("status", "message", "kind"),
    [
        (400, "prompt is too long: 210000 tokens > 200000 maximum", K.CONTEXT_WINDOW_EXCEEDED),
        (400, "the request exceeds the available context size", K.CONTEXT_WINDOW_EXCEEDED),
        (400, "Your request was rejected by our safety system", K.CONTENT_POLICY),
        (400, "The model `gpt-9` does not exist", K.MODEL_NOT_FOUND),
        (400, "Invalid value for 'temperature'", K.BAD_REQUEST),
        (500, "context length exceeded", K.CONTEXT_WINDOW_EXCEEDED),
        (500, "rate limit", K.SERVICE_UNAVAILABLE),
        (429, "maximum context length", K.RATE_LIMIT),
    ],
)
def test_coarse_status_is_refined_by_message(status: int, message: str, kind: ErrorKind) -> None:
    assert classify_llm_error(StatusError(message, status)).kind is kind


def test_exhausted_quota_is_not_retried_but_falls_back() -> None:
    exc = StatusError("You exceeded your current quota (insufficient_quota)", 429)
    verdict = classify_llm_error(exc)
    assert verdict.kind is K.RATE_LIMIT
    assert not verdict.retryable
    assert verdict.should_fallback_model


def test_exhausted_quota_with_retry_after_stays_retryable() -> None:
    exc = StatusError("insufficient_quota", 429)
    exc.headers = {"Retry-After": "30"}  # type: ignore[attr-defined]
    assert classify_llm_error(exc).retryable


# -- plain Python and transport exceptions ---------------------------------------------


class APIConnectionError(Exception):
    """Stands in for openai.APIConnectionError (matched by class name)."""


class APITimeoutError(APIConnectionError):
    """Stands in for openai.APITimeoutError, which subclasses APIConnectionError."""


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (TimeoutError("slow"), K.TIMEOUT),
        (asyncio.TimeoutError(), K.TIMEOUT),
        (ConnectionResetError("reset"), K.CONNECTION),
        (ConnectionRefusedError(), K.CONNECTION),
        (json.JSONDecodeError("Expecting value", "{", 0), K.MALFORMED_RESPONSE),
        (httpx.ReadTimeout("read timed out"), K.TIMEOUT),
        (httpx.ConnectTimeout("connect"), K.TIMEOUT),
        (httpx.ConnectError("refused"), K.CONNECTION),
        (httpx.RemoteProtocolError("peer closed"), K.CONNECTION),
        (httpx.DecodingError("bad gzip"), K.MALFORMED_RESPONSE),
        (APITimeoutError("x"), K.TIMEOUT),
        (APIConnectionError("x"), K.CONNECTION),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v),
)
def test_exception_types(exc: BaseException, kind: ErrorKind) -> None:
    verdict = classify_llm_error(exc)
    assert verdict.kind is kind
    assert verdict.status_code is None


# -- messages only --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("This model's maximum context length is 4096 tokens", K.CONTEXT_WINDOW_EXCEEDED),
        ("Too many tokens in the prompt", K.CONTEXT_WINDOW_EXCEEDED),
        ("Rate limit reached for requests", K.RATE_LIMIT),
        ("Rate limit reached on tokens per min: too many tokens", K.RATE_LIMIT),
        ("RESOURCE_EXHAUSTED", K.RATE_LIMIT),
        ("Overloaded", K.SERVICE_UNAVAILABLE),
        ("Request timed out.", K.TIMEOUT),
        ("[Errno 104] Connection reset by peer", K.CONNECTION),
        ("Incorrect API key provided", K.AUTHENTICATION),
        ("403 Forbidden", K.PERMISSION_DENIED),
        ("model 'llama9' not found, try pulling it first", K.MODEL_NOT_FOUND),
        ("content_policy_violation", K.CONTENT_POLICY),
        ("Invalid JSON in response body", K.MALFORMED_RESPONSE),
        ("something odd happened", K.UNKNOWN),
    ],
)
def test_message_patterns(message: str, kind: ErrorKind) -> None:
    assert classify_llm_error(RuntimeError(message)).kind is kind


# -- a missing key or an unroutable model, whatever the wrapper ------------------------

OPENAI_MISSING = (
    "InternalServerError: OpenAIException - Missing credentials. Please pass an `api_key`, "
    "`workload_identity`, `admin_api_key`, or set the `OPENAI_API_KEY` or `OPENAI_ADMIN_KEY` "
    "environment variable."
)
NOT_ROUTABLE = (
    "LLM Provider NOT provided. Pass in the LLM provider you are trying to call. "
    "You passed model=gpt-9-turbo"
)


def missing_key_cases(litellm: ModuleType) -> list[BaseException]:
    import openai

    common = {"model": "m", "llm_provider": "openai"}
    return [
        litellm.InternalServerError(OPENAI_MISSING, **common),
        litellm.APIConnectionError(
            "Missing Gemini API key. Set the GEMINI_API_KEY or GOOGLE_API_KEY environment "
            "variable.",
            **common,
        ),
        litellm.AuthenticationError(
            "Missing Anthropic API Key - A call is being made to anthropic but no key is set "
            "either in the environment variables or via params.",
            **common,
        ),
        litellm.ServiceUnavailableError("GroqException - No API key provided", **common),
        openai.OpenAIError(
            "The api_key client option must be set either by passing api_key to the client "
            "or by setting the OPENAI_API_KEY environment variable"
        ),
        RuntimeError(
            "Could not resolve authentication method. Expected either api_key or auth_token "
            "to be set."
        ),
        RuntimeError("Mistral API key not set"),
        StatusError("x-api-key header is required", 503),
    ]


@pytest.mark.parametrize("case", range(8))
def test_every_missing_key_wording_is_authentication(litellm: ModuleType, case: int) -> None:
    verdict = classify_llm_error(missing_key_cases(litellm)[case])
    assert verdict.kind is K.AUTHENTICATION
    assert not verdict.retryable


def test_a_missing_key_wrapped_as_a_500_has_no_made_up_status(litellm: ModuleType) -> None:
    exc = litellm.InternalServerError(OPENAI_MISSING, model="m", llm_provider="openai")
    error = to_llm_error(exc, model="m")
    assert isinstance(error, errors.AuthenticationError)
    assert error.status_code is None


@pytest.mark.parametrize(
    "wrapper", ["BadRequestError", "APIConnectionError", "InternalServerError"]
)
def test_an_unroutable_model_is_model_not_found(litellm: ModuleType, wrapper: str) -> None:
    exc = getattr(litellm, wrapper)(NOT_ROUTABLE, model="gpt-9-turbo", llm_provider="")
    verdict = classify_llm_error(exc)
    assert verdict.kind is K.MODEL_NOT_FOUND
    assert not verdict.retryable


def test_explicit_cause_is_classified_when_the_wrapper_says_nothing() -> None:
    try:
        try:
            raise httpx.ReadTimeout("read")
        except httpx.ReadTimeout as inner:
            raise RuntimeError("call failed") from inner
    except RuntimeError as outer:
        assert classify_llm_error(outer).kind is K.TIMEOUT


def test_unknown_errors_are_neither_retried_nor_fallen_back() -> None:
    verdict = classify_llm_error(ValueError("bug in a callback"))
    assert verdict == ErrorClass(
        kind=K.UNKNOWN,
        retryable=False,
        retry_after=None,
        should_compress_context=False,
        should_fallback_model=False,
        status_code=None,
        message="bug in a callback",
    )


def test_classification_survives_hostile_attributes() -> None:
    class Hostile(Exception):
        @property
        def response(self) -> Any:
            raise RuntimeError("no response")

        def __str__(self) -> str:
            raise RuntimeError("no text")

    verdict = classify_llm_error(Hostile())
    assert verdict.kind is K.UNKNOWN
    assert verdict.message == "Hostile"


def test_praisonlike_llm_error_keeps_its_kind() -> None:
    exc = errors.MalformedResponseError("a tool call has no name", model="m")
    verdict = classify_llm_error(exc)
    assert verdict.kind is K.MALFORMED_RESPONSE
    assert verdict.retryable
    assert verdict.message == "a tool call has no name"


def test_praisonlike_llm_error_takes_retry_after_from_its_cause() -> None:
    cause = StatusError("slow", 429)
    cause.headers = {"Retry-After": "4"}  # type: ignore[attr-defined]
    exc = errors.RateLimitError("rate limited", status_code=429)
    exc.__cause__ = cause
    assert classify_llm_error(exc).retry_after == 4.0


def test_long_messages_are_capped() -> None:
    verdict = classify_llm_error(RuntimeError("x" * 10_000))
    assert len(verdict.message) <= 2000


# -- typed praisonlike errors ----------------------------------------------------------


def test_to_llm_error_builds_the_typed_error(litellm: ModuleType) -> None:
    key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
    exc = litellm.RateLimitError(f"limit hit for key {key}", llm_provider="openai", model="x")
    error = to_llm_error(exc, model="openai/gpt-4o-mini", retried=3)
    assert isinstance(error, errors.RateLimitError)
    assert error.kind == "rate_limit"
    assert error.model == "openai/gpt-4o-mini"
    assert error.status_code == 429
    assert error.retried == 3
    assert error.provider_message is not None
    assert key not in error.provider_message
    assert key not in str(error)
    assert "[REDACTED]" in str(error)
    assert "model=openai/gpt-4o-mini" in str(error)


def test_to_llm_error_falls_back_to_the_exceptions_model(litellm: ModuleType) -> None:
    exc = litellm.NotFoundError("no such model", model="gpt-9", llm_provider="openai")
    error = to_llm_error(exc, model=None)
    assert isinstance(error, errors.ModelNotFoundError)
    assert error.model == "gpt-9"


@pytest.mark.parametrize("kind", list(ErrorKind))
def test_to_llm_error_class_per_kind(kind: ErrorKind) -> None:
    source = next(t for t in all_llm_error_types() if t.kind == kind.value)
    error = to_llm_error(source("provider text"), model="m")
    assert type(error) is source
    assert error.kind == kind.value
    assert "provider text" in error.message


def test_to_llm_error_is_raised_from_the_original() -> None:
    original = TimeoutError("slow")
    with pytest.raises(errors.LLMTimeoutError) as caught:
        raise to_llm_error(original, model="m") from original
    assert caught.value.__cause__ is original


def test_a_praisonlike_error_keeps_its_class_and_details() -> None:
    original = errors.MissingCredentialsError(
        "no API key", model="gpt-4o-mini", missing_variables=("OPENAI_API_KEY",), hint="set it"
    )
    error = to_llm_error(original, model="other", retried=2)
    assert type(error) is errors.MissingCredentialsError
    assert error is not original
    assert (error.model, error.retried, error.hint) == ("gpt-4o-mini", 2, "set it")
    assert error.missing_variables == ("OPENAI_API_KEY",)


def failed_connection(cause: OSError, url: str, litellm: ModuleType | None) -> BaseException:
    """The chain a request to ``url`` raises when its socket fails with ``cause``: under
    httpx's ``ConnectError``, under LiteLLM's error when given (else under the openai
    SDK's, as on the direct transport)."""
    import openai

    request = httpx.Request("POST", url)
    try:
        try:
            try:
                raise cause
            except OSError as socket_error:
                raise httpx.ConnectError(
                    f"[Errno {cause.errno}] {cause.strerror}", request=request
                ) from socket_error
        except httpx.ConnectError as transport:
            if litellm is None:
                raise openai.APIConnectionError(request=request) from transport
            raise litellm.InternalServerError(
                "InternalServerError: OpenAIException - Connection error.",
                model="openai/x",
                llm_provider="openai",
            ) from transport
    except Exception as exc:
        return exc
    raise AssertionError("unreachable")


def connection_failure(litellm: ModuleType, url: str) -> BaseException:
    """The chain LiteLLM raises when nothing listens at ``url``."""
    return failed_connection(ConnectionRefusedError(111, "Connection refused"), url, litellm)


def test_a_connection_error_names_the_endpoint_without_secrets(litellm: ModuleType) -> None:
    url = "http://user:hunter2@127.0.0.1:9/v1/chat/completions?api-key=qsecret"
    error = to_llm_error(connection_failure(litellm, url), model="openai/x", retried=3)
    assert isinstance(error, errors.APIConnectionError)
    assert error.endpoint == "http://127.0.0.1:9"
    assert "could not reach http://127.0.0.1:9 (Connection refused)" in str(error)
    for secret in ("hunter2", "user", "qsecret", "/v1"):
        assert secret not in str(error) and secret not in repr(error)


def test_litellms_placeholder_request_is_not_taken_for_the_endpoint(litellm: ModuleType) -> None:
    exc = litellm.APIConnectionError("Connection error.", model="x", llm_provider="openai")
    assert to_llm_error(exc, model="x").endpoint is None


@pytest.mark.parametrize(
    ("url", "label"),
    [
        ("https://api.openai.com/v1", "https://api.openai.com:443"),
        ("http://u:p@[::1]:8080/v1?key=k", "http://[::1]:8080"),
        ("not a url", None),
    ],
)
def test_endpoint_label(url: str, label: str | None) -> None:
    assert endpoint_label(url) == label


def test_credentials_in_a_url_are_redacted_from_provider_messages() -> None:
    verdict = classify_llm_error(RuntimeError("cannot reach http://bob:s3cret@host:1/v1"))
    assert "s3cret" not in verdict.message and "bob" not in verdict.message


# -- redaction ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Incorrect API key provided: sk-abcdefghijklmnop1234.", "sk-abcdefghijklmnop1234"),
        ("key sk-proj-********************abcd was rejected", "sk-proj-********************abcd"),
        ("anthropic key sk-ant-api03-AbCdEf_gh-ijklmnop", "sk-ant-api03-AbCdEf_gh-ijklmnop"),
        ("https://x.invalid/v1?key=AIzaSyA1234567890abcdefghijklmnopq", "AIzaSyA1234567890abc"),
        ("groq gsk_abcdefghijklmnopqrstuvwx failed", "gsk_abcdefghijklmnopqrstuvwx"),
        ("Authorization: Bearer eyJhbGciOi.JIUzI1NiJ9-abc", "eyJhbGciOi.JIUzI1NiJ9-abc"),
        ("api_key=hunter2hunter2&model=x", "hunter2hunter2"),
        ('{"api_key": "plain-secret-value"}', "plain-secret-value"),
        ("x-api-key: abc123def456", "abc123def456"),
        ("password=correcthorse", "correcthorse"),
    ],
)
def test_redact_secrets(text: str, secret: str) -> None:
    redacted = redact_secrets(text)
    assert secret not in redacted
    assert "[REDACTED]" in redacted


@pytest.mark.parametrize(
    "text",
    ["scikit sk-learn is a library", "Rate limit reached for requests", "the task-skipped flag"],
)
def test_redact_secrets_leaves_ordinary_text(text: str) -> None:
    assert redact_secrets(text) == text


def test_redaction_keeps_the_surrounding_text() -> None:
    assert redact_secrets("api_key=abc123, model=gpt") == "api_key=[REDACTED], model=gpt"
    assert redact_secrets("Bearer tok.en-123 sent") == "Bearer [REDACTED] sent"


KEY_BODY = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=20
)


@given(prefix=st.text(max_size=30), body=KEY_BODY, suffix=st.text(max_size=30))
def test_any_openai_style_key_is_removed(prefix: str, body: str, suffix: str) -> None:
    redacted = redact_secrets(f"{prefix} sk-{body} {suffix}")
    assert f"sk-{body}" not in redacted


@given(st.text(max_size=200))
def test_redaction_is_idempotent(text: str) -> None:
    once = redact_secrets(text)
    assert redact_secrets(once) == once


@pytest.mark.parametrize(
    ("url", "retryable"),
    [
        ("http://127.0.0.1:9/v1/chat/completions", False),
        ("http://localhost:9/v1/chat/completions", False),
        ("http://[::1]:9/v1/chat/completions", False),
        ("http://10.1.2.3:8000/v1/chat/completions", True),
        ("https://api.example.invalid/v1/chat/completions", True),
    ],
)
def test_a_refused_connection_is_retried_only_off_this_machine(
    litellm: ModuleType, url: str, retryable: bool
) -> None:
    verdict = classify_llm_error(connection_failure(litellm, url))
    assert verdict.kind is K.CONNECTION
    assert verdict.retryable is retryable
    assert verdict.should_fallback_model


def test_a_reset_connection_on_this_machine_is_still_retried() -> None:
    try:
        try:
            raise ConnectionResetError(104, "Connection reset by peer")
        except ConnectionResetError as reset:
            raise httpx.ReadError(
                "reset", request=httpx.Request("POST", "http://127.0.0.1:9/v1")
            ) from reset
    except httpx.ReadError as exc:
        verdict = classify_llm_error(exc)
    assert (verdict.kind, verdict.retryable) == (K.CONNECTION, True)


def unresolved_host(litellm: ModuleType | None, code: int, words: str) -> BaseException:
    """The chain a request to a host name that does not resolve raises."""
    url = "http://no-such-host.invalid:8000/v1/chat/completions"
    return failed_connection(socket.gaierror(code, words), url, litellm)


@pytest.mark.parametrize("through_litellm", [True, False], ids=["litellm", "openai SDK"])
def test_a_host_name_that_does_not_resolve_is_not_retried(
    litellm: ModuleType, through_litellm: bool
) -> None:
    failure = unresolved_host(
        litellm if through_litellm else None, socket.EAI_NONAME, "Name or service not known"
    )
    verdict = classify_llm_error(failure)
    assert (verdict.kind, verdict.retryable, verdict.should_fallback_model) == (
        K.CONNECTION,
        False,
        True,
    )
    error = to_llm_error(failure, model="openai/x")
    assert "could not reach http://no-such-host.invalid:8000 (Name or service not known)" in str(
        error
    )


def test_a_name_server_that_does_not_answer_is_retried(litellm: ModuleType) -> None:
    failure = unresolved_host(
        litellm, socket.EAI_AGAIN, "Temporary failure in name resolution"
    )
    verdict = classify_llm_error(failure)
    assert (verdict.kind, verdict.retryable) == (K.CONNECTION, True)
