"""Turning a :class:`CallModel` command into LiteLLM arguments, and responses into replies.

The responses of both transports (:mod:`praisonlike.models.transport`) are read here.

Shared by the sync and async drivers, so both build identical requests and
read responses (streamed or not) the same way.
"""

from __future__ import annotations

from typing import Any

from praisonlike._runtime.text_safety import scrub_surrogates
from praisonlike.errors import MalformedResponseError
from praisonlike.loop.commands import CallModel, ModelReply, ToolCall
from praisonlike.models.capabilities import model_features
from praisonlike.models.config import LLMConfig
from praisonlike.models.pricing import usage_from_response
from praisonlike.models.prompt_cache import marks_breakpoints, with_breakpoints
from praisonlike.models.usage import Usage


def completion_kwargs(command: CallModel) -> dict[str, Any]:
    """LiteLLM keyword arguments for ``command``.

    The request is not checked here: the tool loop runs the pre-flight
    (:func:`~praisonlike.models.preflight.check_call`) first. ``max_retries=0`` turns off the OpenAI
    client's own retries: the loop owns retrying, so a 429 is never retried twice
    over. ``drop_params=True`` (unless the call sets it) lets LiteLLM drop a
    parameter the model does not support, for this call only; it is left out of
    a request with nothing LiteLLM could drop (only :data:`ALWAYS_TAKEN`
    arguments), where it would only cost LiteLLM time. Requests for a provider
    that caches only marked prompts get breakpoints
    (:mod:`praisonlike.models.prompt_cache`).
    """
    llm = command.llm
    kwargs: dict[str, Any] = llm.call_params()
    kwargs.update(command.params)
    kwargs["model"] = llm.model
    kwargs["max_retries"] = 0
    messages, tools = command.messages, command.tools or None
    if marks_breakpoints(llm):
        messages, tools = with_breakpoints(messages, tools)
    kwargs["messages"] = messages
    if tools:
        kwargs["tools"] = tools
    if command.stream:
        kwargs["stream"] = True
        kwargs["stream_options"] = {"include_usage": True}
    timeout = command.timeout if command.timeout is not None else llm.timeout
    if timeout is not None:
        kwargs["timeout"] = timeout
    if "drop_params" not in kwargs and not _nothing_to_drop(kwargs, llm):
        kwargs["drop_params"] = True
    return kwargs


ALWAYS_TAKEN = frozenset(
    {"model", "messages", "tools", "api_base", "api_key", "max_retries", "timeout"}
)
"""The arguments LiteLLM never drops from a request: the model, the messages and the
connection settings; and ``tools`` for a model the price map says takes them."""


def _nothing_to_drop(kwargs: dict[str, Any], llm: LLMConfig) -> bool:
    if not ALWAYS_TAKEN.issuperset(kwargs):
        return False
    return "tools" not in kwargs or model_features(llm.model, llm.features).known


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def reply_from_response(response: Any, *, model: str, latency: float) -> ModelReply:
    """Read a non-streamed chat completion. Raises MalformedResponseError when unreadable."""
    choices = _field(response, "choices")
    if not choices:
        raise MalformedResponseError("the model's response has no choices", model=model)
    message = _field(choices[0], "message")
    if message is None:
        raise MalformedResponseError("the model's response has no message", model=model)
    calls: list[ToolCall] = []
    for position, raw in enumerate(_field(message, "tool_calls") or []):
        function = _field(raw, "function")
        name = _field(function, "name") if function is not None else None
        if not isinstance(name, str):
            raise MalformedResponseError("a tool call in the response has no name", model=model)
        arguments = _field(function, "arguments")
        calls.append(
            ToolCall(
                id=str(_field(raw, "id") or f"call_{position}"),
                name=name,
                arguments=scrub_surrogates(arguments) if isinstance(arguments, str) else "",
            )
        )
    content = _field(message, "content")
    return ModelReply(
        content=scrub_surrogates(content) if isinstance(content, str) else "",
        tool_calls=tuple(calls),
        usage=usage_from_response(_field(response, "usage")),
        model=model,
        finish_reason=_field(choices[0], "finish_reason"),
        latency=latency,
    )


class _PartialCall:
    __slots__ = ("arguments", "id", "name")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.arguments: list[str] = []


class StreamAssembler:
    """Assembles streamed chunks into one :class:`ModelReply`.

    Tool-call fragments are grouped by their ``index``; the function name is
    *set* from the chunk that carries it (some servers repeat it in every
    chunk), and argument fragments are concatenated.
    """

    def __init__(self, model: str) -> None:
        self._model = model
        self._text: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self._usage: Usage | None = None
        self._finish_reason: str | None = None

    def add(self, chunk: Any) -> str:
        """Take one chunk; return its answer text ("" if none)."""
        usage = _field(chunk, "usage")
        if usage:
            self._usage = usage_from_response(usage)
        choices = _field(chunk, "choices") or []
        if not choices:
            return ""
        choice = choices[0]
        finish = _field(choice, "finish_reason")
        if finish:
            self._finish_reason = finish
        delta = _field(choice, "delta")
        if delta is None:
            return ""
        for position, fragment in enumerate(_field(delta, "tool_calls") or []):
            index = _field(fragment, "index")
            partial = self._calls.setdefault(
                index if isinstance(index, int) else position, _PartialCall()
            )
            call_id = _field(fragment, "id")
            if call_id:
                partial.id = call_id
            function = _field(fragment, "function")
            if function is not None:
                name = _field(function, "name")
                if name:
                    partial.name = name
                arguments = _field(function, "arguments")
                if isinstance(arguments, str):
                    partial.arguments.append(arguments)
        text = _field(delta, "content")
        if isinstance(text, str) and text:
            self._text.append(text)
            return text
        return ""

    def reply(self, latency: float, *, streamed_text: bool) -> ModelReply:
        """The streamed reply. Raises MalformedResponseError for a stream that carried
        nothing at all (no text, no tool call, no usage): what LiteLLM makes of a
        stream whose events it could not parse (it still adds a finish reason), not
        an empty answer."""
        if not self._text and not self._calls and self._usage is None:
            raise MalformedResponseError(
                "the model's stream ended with no text, tool call or usage", model=self._model
            )
        calls = []
        for index in sorted(self._calls):
            partial = self._calls[index]
            if not partial.name:
                raise MalformedResponseError(
                    "a streamed tool call never named its function", model=self._model
                )
            calls.append(
                ToolCall(
                    id=partial.id or f"call_{index}",
                    name=partial.name,
                    arguments=scrub_surrogates("".join(partial.arguments)),
                )
            )
        return ModelReply(
            content=scrub_surrogates("".join(self._text)),
            tool_calls=tuple(calls),
            usage=self._usage if self._usage is not None else Usage(requests=1),
            model=self._model,
            finish_reason=self._finish_reason,
            latency=latency,
            streamed_text=streamed_text,
        )
