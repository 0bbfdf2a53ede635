"""The typed errors praisonlike raises.

Every failure of a turn surfaces as a subclass of :class:`PraisonlikeError`;
no public call returns ``None`` or an empty string to mean failure. LLM errors
carry the model, the provider's status code and message, and whether the
turn retried before giving up, so callers can act without parsing text.
"""

from __future__ import annotations

from typing import Any


class PraisonlikeError(Exception):
    """Base class of every error raised by praisonlike."""


class ConfigurationError(PraisonlikeError, ValueError):
    """The agent or a call was configured in a way that cannot work."""


class ConfigurationTypeError(ConfigurationError, TypeError):
    """A configuration value is of the wrong kind; also a ``TypeError``, as raised before."""


class ModelRequestBlockedError(PraisonlikeError):
    """A model request to a non-loopback endpoint was refused before sending.

    Raised when ``PRAISONLIKE_ALLOW_MODEL_REQUESTS=0`` (the test suite's
    setting) and a call would leave the machine.
    """


class LLMError(PraisonlikeError):
    """A model call failed.

    Attributes:
        model: the model the failing call was sent to, when known.
        status_code: the provider's HTTP status, when there was one.
        provider_message: the provider's own error text, redacted of secrets.
        retried: how many times the turn retried the call before raising.
        endpoint: where the failing request went, as ``scheme://host:port`` (never
            credentials, path or query), when known.
        kind: the classification (see :class:`praisonlike.models.error_classification.ErrorKind`).
    """

    kind: str = "unknown"

    def __init__(
        self,
        message: str,
        *,
        model: str | None = None,
        status_code: int | None = None,
        provider_message: str | None = None,
        retried: int = 0,
        endpoint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.model = model
        self.status_code = status_code
        self.provider_message = provider_message
        self.retried = retried
        self.endpoint = endpoint

    def __str__(self) -> str:
        parts = [self.message]
        if self.model:
            parts.append(f"model={self.model}")
        if self.status_code is not None:
            parts.append(f"status={self.status_code}")
        if self.retried:
            parts.append(f"retried={self.retried}")
        return " | ".join(parts)


class AuthenticationError(LLMError):
    kind = "authentication"


class MissingCredentialsError(AuthenticationError, ConfigurationError):
    """The model's provider needs a key that is neither passed nor in the environment.

    Raised before any request is sent. ``missing_variables`` names the
    environment variables that would supply the key (any one of them is enough);
    ``hint`` says how to fix it in one line.
    """

    def __init__(
        self,
        message: str,
        *,
        model: str | None = None,
        missing_variables: tuple[str, ...] = (),
        hint: str | None = None,
    ) -> None:
        super().__init__(message, model=model)
        self.missing_variables = missing_variables
        self.hint = hint


class PermissionDeniedError(LLMError):
    kind = "permission_denied"


class RateLimitError(LLMError):
    kind = "rate_limit"


class ContextWindowExceededError(LLMError):
    kind = "context_window_exceeded"


class ModelNotFoundError(LLMError):
    kind = "model_not_found"


class UnknownModelError(ModelNotFoundError, ConfigurationError):
    """LiteLLM cannot tell which provider serves the model (``gpt-9-turbo``,
    ``nosuchprovider/foo``); raised before any request is sent.

    ``suggestions`` holds close model strings LiteLLM or the bundled local
    models know (possibly empty); ``hint`` says how a model is spelled.
    """

    def __init__(
        self,
        message: str,
        *,
        model: str | None = None,
        suggestions: tuple[str, ...] = (),
        hint: str | None = None,
    ) -> None:
        super().__init__(message, model=model)
        self.suggestions = suggestions
        self.hint = hint


class BadRequestError(LLMError):
    kind = "bad_request"


class ContentPolicyError(LLMError):
    kind = "content_policy"


class LLMTimeoutError(LLMError):
    kind = "timeout"


class ServiceUnavailableError(LLMError):
    kind = "service_unavailable"


class APIConnectionError(LLMError):
    """The endpoint could not be reached (refused, reset, DNS); ``endpoint`` names it."""

    kind = "connection"


class MalformedResponseError(LLMError):
    kind = "malformed_response"


class ToolError(PraisonlikeError):
    """A tool failed in a way that cannot be fed back to the model."""

    def __init__(self, message: str, *, tool_name: str | None = None) -> None:
        super().__init__(message)
        self.tool_name = tool_name


class BudgetExceededError(PraisonlikeError):
    """A configured cost or token budget would be (or was) passed."""

    def __init__(self, message: str, *, spent: float | None = None, limit: float | None = None):
        super().__init__(message)
        self.spent = spent
        self.limit = limit


class RunCancelled(PraisonlikeError):
    """The turn was cancelled by ``agent.cancel()`` or a ``CancelToken``."""


class RunTimeout(PraisonlikeError):
    """The turn passed its ``max_execution_time`` deadline."""


class OutputValidationError(PraisonlikeError):
    """The model's answer did not validate against the requested output type."""

    def __init__(self, message: str, *, raw_output: str, errors: Any = None) -> None:
        super().__init__(message)
        self.raw_output = raw_output
        self.errors = errors


class GuardrailError(PraisonlikeError):
    """The output guardrail kept failing after its retries."""


class HookError(PraisonlikeError):
    """A hook raised; the turn fails unless the hook was registered fail-open."""

    def __init__(self, message: str, *, hook: str) -> None:
        super().__init__(message)
        self.hook = hook


class InvalidInputError(PraisonlikeError, ValueError):
    """A prompt or argument is not acceptable input (wrong type, invalid text)."""


class UnsupportedInputError(PraisonlikeError, ValueError):
    """The input needs a capability the model lacks (images for a text model)."""


class SkillError(PraisonlikeError, ValueError):
    """A skill file is malformed, a skill name is invalid, or an invoked skill's
    ``allowed-tools`` names a tool the turn lacks; names the file."""


class StateVersionError(PraisonlikeError, ValueError):
    """A saved agent state has a version this release cannot load."""


class ConcurrentTurnError(PraisonlikeError, RuntimeError):
    """A turn was started from inside a running turn of the same agent.

    Turns of one agent run one at a time (a second one waits for the first),
    so a turn started by the running turn's own tool, hook or guardrail, or by
    the code consuming its events, would wait for itself: it raises this at once.
    """


__all__ = [
    "APIConnectionError",
    "AuthenticationError",
    "BadRequestError",
    "BudgetExceededError",
    "ConcurrentTurnError",
    "ConfigurationError",
    "ConfigurationTypeError",
    "ContentPolicyError",
    "ContextWindowExceededError",
    "GuardrailError",
    "HookError",
    "InvalidInputError",
    "LLMError",
    "LLMTimeoutError",
    "MalformedResponseError",
    "MissingCredentialsError",
    "ModelNotFoundError",
    "ModelRequestBlockedError",
    "OutputValidationError",
    "PermissionDeniedError",
    "PraisonlikeError",
    "RateLimitError",
    "RunCancelled",
    "RunTimeout",
    "ServiceUnavailableError",
    "SkillError",
    "StateVersionError",
    "ToolError",
    "UnknownModelError",
    "UnsupportedInputError",
]
