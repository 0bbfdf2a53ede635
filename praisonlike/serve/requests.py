"""Reading request bodies: a size limit, JSON, and the shape of each endpoint's body.

Every problem raises :class:`ApiError` before anything runs or is stored:
413 over the limit, 400 for malformed JSON or a wrong field (the message
names the field, never echoes the value).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, ValidationError

from praisonlike.serve.http_errors import ApiError

SESSION_ID_PATTERN = r"^[A-Za-z0-9._:-]{1,128}$"

Model = TypeVar("Model", bound=BaseModel)


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty or only whitespace")
    return text


Text = Annotated[str, AfterValidator(_not_blank)]
"""A text the agent acts on: at least one character that is not whitespace."""


class RunOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    timeout: float | None = Field(default=None, gt=0)


class RunRequest(BaseModel):
    """The body of ``POST /v1/runs``."""

    model_config = ConfigDict(extra="forbid")

    input: Text
    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)
    stream: StrictBool = True
    detach: StrictBool = False
    options: RunOptions = Field(default_factory=RunOptions)


class StopRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = ""
    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)


class SteerRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Text
    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)


class StreamOptions(BaseModel):
    """``stream_options`` of a chat-completions request; only ``include_usage`` is read."""

    model_config = ConfigDict(extra="allow")

    include_usage: StrictBool | None = None


def _no_client_tools(value: list[Any] | None) -> list[Any] | None:
    if value:
        raise ValueError(
            "this endpoint serves an agent that calls its own tools and answers in text; "
            "tools sent by the client are not supported"
        )
    return value


ClientTools = Annotated[list[Any] | None, AfterValidator(_no_client_tools)]


class ChatCompletionRequest(BaseModel):
    """The part of an OpenAI chat-completions request the server reads; the rest is ignored,
    except what it cannot honour, which is refused: ``n`` other than 1 (one answer per
    request) and client-side ``tools`` or ``functions`` (the agent runs its own).
    ``response_format`` is read by :func:`praisonlike.serve.openai_routes.answer_schema`."""

    model_config = ConfigDict(extra="allow")

    model: str | None = None
    messages: list[dict[str, Any]] = Field(min_length=1)
    stream: StrictBool | None = False
    user: str | None = None
    n: Literal[1] | None = None
    stream_options: StreamOptions | None = None
    tools: ClientTools = None
    functions: ClientTools = None
    response_format: dict[str, Any] | None = None

    @property
    def include_usage(self) -> bool:
        """Whether a streamed answer ends with a usage chunk (``stream_options.include_usage``)."""
        return self.stream_options is not None and bool(self.stream_options.include_usage)


async def read_body(request: Any, limit: int) -> bytes:
    """The raw body, refused with 413 as soon as it passes ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            too_big = int(declared) > limit
        except ValueError:
            raise ApiError(400, "the Content-Length header is not a number") from None
        if too_big:
            raise ApiError(413, f"the body is over the limit of {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, f"the body is over the limit of {limit} bytes")
    return bytes(body)


async def parse(request: Any, model: type[Model], limit: int, *, empty_ok: bool = False) -> Model:
    """The body as ``model``; an empty body is ``{}`` when ``empty_ok``."""
    body = await read_body(request, limit)
    if not body.strip() and empty_ok:
        data: Any = {}
    else:
        try:
            data = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ApiError(400, "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ApiError(400, "invalid request: " + describe(exc)) from None


def describe(error: ValidationError) -> str:
    """Each problem as ``field: message``, without the values sent."""
    parts = []
    for problem in error.errors(include_input=False, include_url=False):
        where = ".".join(str(p) for p in problem["loc"]) or "body"
        parts.append(f"{where}: {problem['msg']}")
    return "; ".join(parts)
