"""An in-process test model: a Python function plays the model, without a socket.

``Agent(llm=FunctionModel(answer))`` sends every model call of the agent to
``answer(messages, info)``, which returns what a
:class:`~praisonlike.testing.LocalLLMServer` script entry may be (``Text``,
``ToolCalls``, ``Fault``, ``Delay``, ``DropConnection``, ``MalformedBody``,
a ``(RecordedRequest) -> response`` callable) or a plain ``str``. The answer
is turned into the chat completion (or the stream of chunks, split by the
item's ``chunk_size``) the server would have sent, and read by the same code,
so the step machine, recovery, accounting, hooks and events all run as they
do against a real endpoint. Usage is the server's deterministic word count
(or the item's explicit ``Usage``); the price is zero.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import itertools
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from praisonlike.errors import ConfigurationTypeError, MalformedResponseError
from praisonlike.models.in_process import IN_PROCESS_PREFIX, InProcessModel
from praisonlike.testing.payloads import ChunkFactory, usage_for
from praisonlike.testing.script import (
    Delay,
    DropConnection,
    Fault,
    MalformedBody,
    RecordedRequest,
    Response,
    Text,
    ToolCalls,
)

if TYPE_CHECKING:
    from praisonlike.loop.commands import CallModel

_PATH = "/chat/completions"


@dataclass(frozen=True)
class ModelInfo:
    """What a :class:`FunctionModel`'s function is told about the call it answers.

    ``tools`` are the offered tools as OpenAI tool schemas; ``settings`` the
    model's configured call settings (``temperature``, ``max_tokens``,
    ``extra``, no secrets); ``params`` the turn's own request parameters
    (``response_format``, ``tool_choice``, ...); ``iteration`` is the turn's
    tool-loop round the call belongs to (1 for the first; a retry repeats it).
    """

    model: str
    tools: list[dict[str, Any]]
    settings: Mapping[str, Any]
    params: Mapping[str, Any]
    stream: bool
    iteration: int

    @property
    def tool_names(self) -> list[str]:
        """The names of the offered tools, in order."""
        return [tool["function"]["name"] for tool in self.tools if "function" in tool]


ModelReplyItem: TypeAlias = Response | str
ModelFunction: TypeAlias = Callable[
    [list[dict[str, Any]], ModelInfo], ModelReplyItem | Awaitable[ModelReplyItem]
]
"""``(messages, info) -> reply``, sync or async."""


class FunctionModelFault(Exception):
    """A :class:`~praisonlike.testing.Fault` answered by a function model.

    Carries the fault's ``status_code``, message, type, code and
    ``Retry-After`` header, so it is classified like the provider error it
    stands for (a 429 is retried, a 401 is an authentication error, ...).
    """

    def __init__(self, fault: Fault) -> None:
        super().__init__(f"Error code: {fault.status} - {fault.message}")
        self.status_code = fault.status
        self.message = fault.message
        self.type = fault.type
        self.code = fault.code
        self.headers = {} if fault.retry_after is None else {"retry-after": str(fault.retry_after)}


def _name_of(function: Callable[..., Any]) -> str:
    name = getattr(function, "__name__", None)
    return name if isinstance(name, str) and name != "<lambda>" else "model"


@dataclass(frozen=True, init=False)
class FunctionModel(InProcessModel):
    """A model whose answers come from ``function(messages, info)``.

    ``messages`` is a copy of what would be sent (the function may keep it);
    ``info`` is a :class:`ModelInfo`. The function may be sync or async; an
    async one used by a sync turn runs on its own event loop. It may return
    any script item (:class:`~praisonlike.testing.Text`,
    :class:`~praisonlike.testing.ToolCalls`, :class:`~praisonlike.testing.Fault`,
    ...) or a ``str`` (a :class:`~praisonlike.testing.Text`). An exception it
    raises, or a ``Fault`` it returns, fails the call like a provider error:
    retried or raised as a typed praisonlike error, history unchanged.

    The configuration's ``model`` is ``"function:<name>"`` (``name``
    defaults to the function's name); other :class:`LLMConfig` settings
    (``temperature``, ``max_tokens``, ``extra``, ``features``, ...) may be
    given as keywords and reach the function in ``info.settings``. Tool call
    ids the items leave out are ``call_<n>``, unique per model.
    """

    function: ModelFunction = field(default=None, repr=False)  # type: ignore[assignment]

    def __init__(
        self, function: ModelFunction, *, name: str | None = None, **settings: Any
    ) -> None:
        if not callable(function):
            raise ConfigurationTypeError(
                f"FunctionModel needs a callable (messages, info) -> reply, "
                f"not {type(function).__name__}"
            )
        object.__setattr__(self, "function", function)
        object.__setattr__(self, "_ids", itertools.count(1))
        object.__setattr__(self, "_ids_lock", threading.Lock())
        model = settings.pop("model", None) or f"{IN_PROCESS_PREFIX}{name or _name_of(function)}"
        super().__init__(model=model, **settings)

    # -- the call ------------------------------------------------------------------

    def respond(self, command: CallModel) -> Any:
        messages, info, body = self._request(command)
        item: Any = self.function(messages, info)
        if inspect.isawaitable(item):
            item = _run_coroutine(item)
        answer = self._answer(item, body)
        while isinstance(answer, Delay):
            time.sleep(answer.seconds)
            answer = self._answer(answer.then, body)
        if not command.stream:
            return self._completion(answer, body)
        return self._chunks(answer, body)

    async def arespond(self, command: CallModel) -> Any:
        messages, info, body = self._request(command)
        item: Any = self.function(messages, info)
        if inspect.isawaitable(item):
            item = await item
        answer = self._answer(item, body)
        while isinstance(answer, Delay):
            await asyncio.sleep(answer.seconds)
            answer = self._answer(answer.then, body)
        if not command.stream:
            return self._completion(answer, body)
        return self._achunks(answer, body)

    # -- helpers -------------------------------------------------------------------

    def _request(
        self, command: CallModel
    ) -> tuple[list[dict[str, Any]], ModelInfo, dict[str, Any]]:
        settings = self.call_params()
        settings.pop("api_key", None)
        tools = copy.deepcopy(command.tools or [])
        info = ModelInfo(
            model=self.model,
            tools=tools,
            settings=settings,
            params=dict(command.params),
            stream=command.stream,
            iteration=command.iteration,
        )
        body: dict[str, Any] = {"model": self.model, "messages": copy.deepcopy(command.messages)}
        if tools:
            body["tools"] = tools
        if command.stream:
            body["stream"] = True
        return copy.deepcopy(command.messages), info, body

    def _answer(self, item: Any, body: dict[str, Any]) -> Any:
        """The item as Text/ToolCalls/Delay/DropConnection/MalformedBody; raises a Fault."""
        if isinstance(item, str):
            return Text(item)
        if isinstance(item, Fault):
            raise FunctionModelFault(item)
        if isinstance(item, Text | ToolCalls | Delay | DropConnection | MalformedBody):
            return item
        if callable(item):
            request = RecordedRequest(_PATH, {}, body, time.monotonic())
            return self._answer(item(request), body)
        raise ConfigurationTypeError(
            f"{self.model}: the function must return a str or a praisonlike.testing "
            f"script item (Text, ToolCalls, Fault, ...), not {type(item).__name__}"
        )

    def _factory(self) -> ChunkFactory:
        with self._ids_lock:  # type: ignore[attr-defined]
            serial = next(self._ids)  # type: ignore[attr-defined]
        return ChunkFactory(f"chatcmpl-fn-{serial}", self.model, self._next_call_id)

    def _next_call_id(self) -> str:
        with self._ids_lock:  # type: ignore[attr-defined]
            return f"call_{next(self._ids)}"  # type: ignore[attr-defined]

    def _completion(self, answer: Any, body: dict[str, Any]) -> dict[str, Any]:
        if isinstance(answer, DropConnection):
            raise ConnectionResetError(f"{self.model}: connection dropped (DropConnection)")
        if isinstance(answer, MalformedBody):
            return {}
        return self._factory().completion(answer, usage_for(answer, body))

    def _chunk_plan(self, answer: Any, body: dict[str, Any]) -> tuple[list[Any], float]:
        """The chunks to stream, and the pause between them; raises at once for a bad body."""
        if isinstance(answer, MalformedBody):
            raise MalformedResponseError("the model's stream is not valid JSON", model=self.model)
        factory = self._factory()
        if isinstance(answer, DropConnection):
            deltas = list(factory.content_deltas(answer.then_content, 4))
            return [factory.chunk(d) for d in deltas[: answer.after_chunks + 1]] + [answer], 0.0
        delay = answer.chunk_delay if isinstance(answer, Text) else 0.0
        return list(factory.stream(answer, usage_for(answer, body), include_usage=True)), delay

    def _chunks(self, answer: Any, body: dict[str, Any]) -> Iterator[Any]:
        chunks, delay = self._chunk_plan(answer, body)

        def stream() -> Iterator[Any]:
            for index, chunk in enumerate(chunks):
                if isinstance(chunk, DropConnection):
                    raise ConnectionResetError(f"{self.model}: stream dropped (DropConnection)")
                if delay and index:
                    time.sleep(delay)
                yield chunk

        return stream()

    def _achunks(self, answer: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        chunks, delay = self._chunk_plan(answer, body)

        async def stream() -> AsyncIterator[Any]:
            for index, chunk in enumerate(chunks):
                if isinstance(chunk, DropConnection):
                    raise ConnectionResetError(f"{self.model}: stream dropped (DropConnection)")
                if delay and index:
                    await asyncio.sleep(delay)
                yield chunk

        return stream()


def _run_coroutine(awaitable: Awaitable[Any]) -> Any:
    """Run an async function's result from sync code, also under a running loop."""

    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    result: list[Any] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(asyncio.run(wait()))
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)

    worker = threading.Thread(target=run, name="praisonlike-function-model", daemon=True)
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return result[0]


__all__ = ["FunctionModel", "FunctionModelFault", "ModelFunction", "ModelInfo"]
