"""What a :class:`~praisonlike.testing.LocalLLMServer` can be scripted to answer.

Each value here is one response to one chat-completions request. They are
frozen, so a script can be built once and reused across servers. A plain
callable ``(RecordedRequest) -> Response`` is a response too: it is called when
its turn comes, with the request it answers, and may return any other response.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from praisonlike.errors import ConfigurationError

DEFAULT_CHUNK_SIZE = 4
"""Characters per streamed content delta unless a response says otherwise."""


@dataclass(frozen=True)
class RecordedRequest:
    """One chat-completions (or Anthropic Messages) request exactly as the server received it.

    ``headers`` has lower-cased names; ``body`` is the parsed JSON object;
    ``received_at`` is a :func:`time.monotonic` timestamp. On the Anthropic
    wire (:attr:`anthropic`) ``messages`` and ``tools`` are in Anthropic's
    shape (content blocks, ``input_schema``) and the system prompt is in
    ``body["system"]``.
    """

    path: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]
    received_at: float

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The request's ``messages`` (empty when absent)."""
        return list(self.body.get("messages") or [])

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The request's ``tools`` (empty when absent)."""
        return list(self.body.get("tools") or [])

    @property
    def model(self) -> str | None:
        """The model name as sent (LiteLLM strips its ``openai/`` prefix)."""
        model = self.body.get("model")
        return model if isinstance(model, str) else None

    @property
    def stream(self) -> bool:
        """True when the client asked for a server-sent-events stream."""
        return self.body.get("stream") is True

    @property
    def anthropic(self) -> bool:
        """True for a request on Anthropic's Messages wire (``POST /v1/messages``)."""
        return self.path.endswith("/messages")


@dataclass(frozen=True)
class ReportedUsage:
    """Explicit token usage to report instead of the server's word count.

    ``cached_tokens`` (read from the prompt cache) and ``cache_write_tokens``
    (written to it) are parts of ``prompt_tokens``. The OpenAI wire reports the
    first as ``prompt_tokens_details.cached_tokens`` (it has no cache writes);
    Anthropic's reports both, and ``input_tokens`` without them.
    """

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    cache_write_tokens: int = 0

    def __post_init__(self) -> None:
        counts = (
            self.prompt_tokens,
            self.completion_tokens,
            self.cached_tokens,
            self.cache_write_tokens,
        )
        if min(counts) < 0:
            raise ConfigurationError("ReportedUsage token counts cannot be negative")
        if self.cached_tokens + self.cache_write_tokens > self.prompt_tokens:
            raise ConfigurationError(
                "ReportedUsage: cached_tokens + cache_write_tokens are parts of prompt_tokens "
                "and cannot exceed it"
            )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def _check_chunk_size(chunk_size: int) -> None:
    if chunk_size < 1:
        raise ConfigurationError(f"chunk_size must be at least 1, got {chunk_size}")


@dataclass(frozen=True)
class Text:
    """A plain assistant answer.

    Streamed as content deltas of ``chunk_size`` characters; with
    ``chunk_delay`` > 0 the server waits that many seconds between deltas, so a
    test can act while a stream is in flight.
    """

    content: str
    usage: ReportedUsage | None = field(default=None, kw_only=True)
    finish_reason: str = field(default="stop", kw_only=True)
    chunk_size: int = field(default=DEFAULT_CHUNK_SIZE, kw_only=True)
    chunk_delay: float = field(default=0.0, kw_only=True)

    def __post_init__(self) -> None:
        _check_chunk_size(self.chunk_size)
        if self.chunk_delay < 0:
            raise ConfigurationError("chunk_delay cannot be negative")


@dataclass(frozen=True)
class Call:
    """One tool call inside a :class:`ToolCalls` message.

    Dict ``arguments`` are sent JSON-encoded; a string is sent verbatim, so a
    test can send malformed JSON. Without ``id`` the server assigns
    ``call_<n>``, unique per server.
    """

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ConfigurationError("a tool Call needs a name")

    @property
    def arguments_json(self) -> str:
        """The arguments exactly as they go on the wire."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(dict(self.arguments))


@dataclass(frozen=True)
class ToolCalls:
    """An assistant message asking for one or several tool calls.

    Streamed the way OpenAI does: per call a first delta with index, id, type,
    name and empty arguments, then argument fragments of ``chunk_size``
    characters. With ``repeat_name_in_chunks`` every fragment repeats
    ``function.name`` (some servers do; clients must not concatenate it).
    """

    calls: Sequence[Call]
    content: str = field(default="", kw_only=True)
    usage: ReportedUsage | None = field(default=None, kw_only=True)
    repeat_name_in_chunks: bool = field(default=False, kw_only=True)
    chunk_size: int = field(default=DEFAULT_CHUNK_SIZE, kw_only=True)

    def __post_init__(self) -> None:
        if not self.calls:
            raise ConfigurationError("ToolCalls needs at least one Call")
        object.__setattr__(self, "calls", tuple(self.calls))
        _check_chunk_size(self.chunk_size)


@dataclass(frozen=True)
class Fault:
    """An OpenAI-style error: ``status`` with ``{"error": {...}}`` as the body.

    ``retry_after`` (seconds) is sent as a ``Retry-After`` header when set. The
    classmethods build the errors real providers send, with the status, type,
    code and wording LiteLLM uses to pick its exception class.
    """

    status: int
    message: str
    type: str = field(default="api_error", kw_only=True)
    code: str | None = field(default=None, kw_only=True)
    retry_after: float | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if not 400 <= self.status <= 599:
            raise ConfigurationError(f"a Fault status must be 4xx or 5xx, got {self.status}")
        if self.retry_after is not None and self.retry_after < 0:
            raise ConfigurationError("retry_after cannot be negative")

    @classmethod
    def rate_limit(cls, retry_after: float | None = None) -> Fault:
        """429 ``rate_limit_exceeded``."""
        return cls(
            429,
            "Rate limit reached for requests. Please try again later.",
            type="requests",
            code="rate_limit_exceeded",
            retry_after=retry_after,
        )

    @classmethod
    def server_error(cls) -> Fault:
        """500, OpenAI's generic server error."""
        return cls(
            500,
            "The server had an error while processing your request. Sorry about that!",
            type="server_error",
        )

    @classmethod
    def unavailable(cls) -> Fault:
        """503, the engine is overloaded."""
        return cls(
            503,
            "The engine is currently overloaded, please try again later.",
            type="server_error",
            code="overloaded",
        )

    @classmethod
    def context_length_exceeded(cls, limit: int = 8192, requested: int | None = None) -> Fault:
        """400 ``context_length_exceeded`` with OpenAI's message text."""
        tokens = limit + 1 if requested is None else requested
        return cls(
            400,
            f"This model's maximum context length is {limit} tokens. However, your "
            f"messages resulted in {tokens} tokens. Please reduce the length of the messages.",
            type="invalid_request_error",
            code="context_length_exceeded",
        )

    @classmethod
    def authentication(cls) -> Fault:
        """401 ``invalid_api_key``."""
        return cls(
            401,
            "Incorrect API key provided. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            type="invalid_request_error",
            code="invalid_api_key",
        )

    @classmethod
    def model_not_found(cls, model: str = "test-model") -> Fault:
        """404 ``model_not_found`` for ``model``."""
        return cls(
            404,
            f"The model `{model}` does not exist or you do not have access to it.",
            type="invalid_request_error",
            code="model_not_found",
        )

    @classmethod
    def bad_request(cls, message: str) -> Fault:
        """400 ``invalid_request_error`` with ``message``."""
        return cls(400, message, type="invalid_request_error")


@dataclass(frozen=True)
class Delay:
    """Wait ``seconds`` (other connections keep being served), then answer ``then``."""

    seconds: float
    then: Response

    def __post_init__(self) -> None:
        if self.seconds < 0:
            raise ConfigurationError("Delay seconds cannot be negative")


@dataclass(frozen=True)
class DropConnection:
    """Close the connection mid-answer.

    For a streaming request: send the headers, the role delta and the first
    ``after_chunks`` content deltas of ``then_content``, then close the socket
    (no final chunk, no ``[DONE]``). For a non-streaming request: close the
    socket without sending anything.
    """

    after_chunks: int = 2
    then_content: str = "partial answer that never finishes"

    def __post_init__(self) -> None:
        if self.after_chunks < 0:
            raise ConfigurationError("after_chunks cannot be negative")


@dataclass(frozen=True)
class MalformedBody:
    """200 with a body that is not valid JSON (streaming: one broken ``data:`` event)."""


ResponseFactory: TypeAlias = Callable[[RecordedRequest], "Response"]
"""A response computed when served, from the request it answers."""

Response: TypeAlias = (
    Text | ToolCalls | Fault | Delay | DropConnection | MalformedBody | ResponseFactory
)
"""Anything a script entry (or the server's ``default``) may be."""

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "Call",
    "Delay",
    "DropConnection",
    "Fault",
    "MalformedBody",
    "RecordedRequest",
    "Response",
    "ResponseFactory",
    "Text",
    "ToolCalls",
    "ReportedUsage",
]
