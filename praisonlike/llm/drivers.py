"""The drivers of the tool loop, and the synchronous one.

A driver takes the loop's generator, performs each command it yields (a model
call, a batch of tool calls, a sleep), passes events through to its caller and
sends the outcome back. That is all a driver does: every decision is the
loop's, so ``chat``, ``achat``, ``iter_stream`` and ``stream_events`` behave
alike by construction. The asyncio driver is in
:mod:`praisonlike.llm.async_driver`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from typing import Any, Protocol, TypeVar, cast

from praisonlike.cancellation import CancelToken, iterate_cancellable
from praisonlike.errors import RunCancelled, RunTimeout
from praisonlike.events import TextDelta
from praisonlike.llm.model_call import StreamAssembler, reply_from_response
from praisonlike.llm.pricing import usage_from_response
from praisonlike.llm.protocol import (
    CallModel,
    CutShort,
    InvokeHook,
    ModelFailed,
    ModelReply,
    RunTools,
    Sleep,
    ToolCall,
    ToolOutcome,
)
from praisonlike.llm.transport import send
from praisonlike.llm.usage import Usage

T = TypeVar("T")
LoopSteps = Generator[Any, Any, T]


class HookSeam(Protocol):
    """How hook commands are performed (see :class:`praisonlike.hooks.HookRunner`)."""

    def run(self, context: Any) -> Any: ...

    async def arun(self, context: Any) -> Any: ...


class ToolRunner(Protocol):
    """The ``execute_tool`` seam: how the loop's tool calls are performed."""

    def run(self, call: ToolCall, *, deadline: float | None) -> ToolOutcome | Exception: ...

    async def arun(self, call: ToolCall, *, deadline: float | None) -> ToolOutcome | Exception: ...

    def parallel_safe(self, calls: tuple[ToolCall, ...]) -> bool: ...


_CALL_OPENERS = ("{", "[", "```", "<tool_call>")


class WholeAnswerHold:
    """Keeps a native model's tool call written as the whole answer out of its stream.

    A model with native tool calls sometimes writes its call as text instead;
    the loop runs it when the WHOLE answer is calls
    (:func:`~praisonlike.llm.react.is_whole_answer_a_call`, or
    :func:`~praisonlike.llm.react.unoffered_calls`). So an answer that starts,
    after whitespace, like a call (``{``, ``[``, a fence or ``<tool_call>``) is
    held to the end, then released unless it is such a call; any other answer
    passes through as it comes. Same interface as the ReAct
    ``StreamCallDetector``.
    """

    def __init__(self, offered: frozenset[str]) -> None:
        self._offered = offered
        self._text = ""
        self._holding: bool | None = None

    def feed(self, delta: str) -> str:
        """Add ``delta``; return the text that may be shown now (possibly ``""``)."""
        self._text += delta
        if self._holding is None:
            start = self._text.lstrip()[: len(_CALL_OPENERS[-1])]
            if any(start.startswith(opener) for opener in _CALL_OPENERS):
                self._holding = True
            elif not start or any(opener.startswith(start) for opener in _CALL_OPENERS):
                return ""
            else:
                self._holding = False
                return self._text
        return "" if self._holding else delta

    def finish(self) -> tuple[str, list[Any]]:
        """The text still held back (``""`` when it is a call) and the calls found."""
        if self._holding is False:
            return "", []
        from praisonlike.llm.react import is_whole_answer_a_call, unoffered_calls

        calls = is_whole_answer_a_call(self._text, self._offered) or unoffered_calls(
            self._text, self._offered
        )
        return ("" if calls else self._text), list(calls)


class StreamReader:
    """One streamed model call: its chunks in, the text to show out, then its reply.

    Text is held back while it may still be a tool call written as text: a
    ReAct call anywhere in the answer (when the command offers
    ``hold_back_calls``), or, when native tools are offered, an answer that is
    wholly a call (see :class:`WholeAnswerHold`). :attr:`streamed` says whether
    any text was released to the caller. :meth:`cut_short` tells what a call
    stopped mid-stream had produced.
    """

    def __init__(self, command: CallModel, started: float) -> None:
        self._assembler = StreamAssembler(command.llm.model)
        self._started = started
        self._text: list[str] = []
        self._usage: Usage | None = None
        self._detector: Any = None
        if command.hold_back_calls is not None:
            from praisonlike.llm.react import StreamCallDetector

            self._detector = StreamCallDetector(command.hold_back_calls)
        elif command.tools and command.params.get("tool_choice") != "none":
            self._detector = WholeAnswerHold(_tool_names(command.tools))
        self.streamed = False

    def take(self, chunk: Any) -> str:
        """Read one chunk; the text it releases ("" if none)."""
        text = self._assembler.add(chunk)
        if text:
            self._text.append(text)
        reported = chunk.get("usage") if isinstance(chunk, dict) else getattr(chunk, "usage", None)
        if reported:
            self._usage = usage_from_response(reported)
        return self._released(text if self._detector is None else self._detector.feed(text))

    def finish(self) -> str:
        """The text still held back once the stream has ended."""
        if self._detector is None:
            return ""
        released, _calls = self._detector.finish()
        return self._released(str(released))

    def cut_short(self) -> CutShort:
        """The text streamed so far (shown or held back) and the usage the server reported."""
        return CutShort(text="".join(self._text), usage=self._usage)

    def reply(self) -> ModelReply:
        return self._assembler.reply(time.monotonic() - self._started, streamed_text=self.streamed)

    def _released(self, text: str) -> str:
        if text:
            self.streamed = True
        return text


def _tool_names(tools: list[dict[str, Any]]) -> frozenset[str]:
    names = (tool.get("function", {}).get("name") for tool in tools)
    return frozenset(name for name in names if isinstance(name, str))


class Driver:
    """What both drivers hold: the run, how its tools and hooks are run, and when it stops."""

    def __init__(
        self,
        run_id: str,
        tools: ToolRunner,
        hooks: HookSeam,
        *,
        cancel: CancelToken | None = None,
        deadline: float | None = None,
    ) -> None:
        self._run_id = run_id
        self._tools = tools
        self._hooks = hooks
        self._cancel = cancel
        self._deadline = deadline

    def _stop(self) -> BaseException | None:
        """The error that ends the run now (cancelled, or past its deadline), if any."""
        cancel = self._cancel
        if cancel is not None and cancel.cancelled:
            return RunCancelled(cancel.reason or "cancelled")
        if self._deadline is not None and time.monotonic() >= self._deadline:
            return RunTimeout("the run passed its max_execution_time deadline")
        return None

    def _delta(self, command: CallModel, text: str) -> TextDelta:
        return TextDelta(run_id=self._run_id, iteration=command.iteration, text=text)

    @staticmethod
    def _failed(error: BaseException, reader: StreamReader | None) -> ModelFailed:
        """The outcome of a call that raised ``error`` after its request was sent.

        A stop (cancel, deadline) carries what the call had produced, so its
        tokens are counted.
        """
        cut = None
        if isinstance(error, (RunCancelled, RunTimeout)):
            cut = reader.cut_short() if reader is not None else CutShort()
        return ModelFailed(
            error, streamed_text=reader is not None and reader.streamed, cut_short=cut
        )


class SyncDriver(Driver):
    """Performs the loop's commands with blocking calls; usable inside a running event loop.

    Model calls run in the caller's thread, and a cancellation is seen when
    the call returns or at its next chunk. With a cancel token and
    ``interruptible``, each call (and its stream) runs on a daemon thread
    instead, so cancellation abandons it at once. Tools run in the caller's
    thread.
    """

    def __init__(
        self,
        run_id: str,
        tools: ToolRunner,
        hooks: HookSeam,
        *,
        cancel: CancelToken | None = None,
        deadline: float | None = None,
        interruptible: bool = False,
    ) -> None:
        super().__init__(run_id, tools, hooks, cancel=cancel, deadline=deadline)
        self._interruptible = interruptible

    def drive(self, steps: LoopSteps[T]) -> Generator[Any, None, T]:
        reply: Any = None
        while True:
            try:
                item = steps.send(reply)
            except StopIteration as stop:
                return cast(T, stop.value)
            reply = None
            if isinstance(item, CallModel):
                reply = yield from self._call_model(item)
            elif isinstance(item, RunTools):
                reply = self._run_tools(item)
            elif isinstance(item, InvokeHook):
                reply = self._hooks.run(item.context)
            elif isinstance(item, Sleep):
                if self._cancel is not None:
                    self._cancel.wait(item.seconds)
                else:
                    time.sleep(item.seconds)
            else:
                yield item

    def _model_output(self, command: CallModel) -> Generator[Any, None, None]:
        """The response (non-streamed) or its chunks, abandoned at once on cancellation."""

        def produce() -> Generator[Any, None, None]:
            response = send(command)
            if command.stream:
                yield from response
            else:
                yield response

        if self._cancel is None or not self._interruptible:
            return produce()
        return iterate_cancellable(produce, self._cancel)

    def _call_model(self, command: CallModel) -> Generator[Any, None, ModelReply | ModelFailed]:
        started = time.monotonic()
        reader: StreamReader | None = None
        stop = self._stop()
        if stop is not None:  # nothing sent
            return ModelFailed(stop)
        output = self._model_output(command)
        try:
            if not command.stream:
                return reply_from_response(
                    next(output), model=command.llm.model, latency=time.monotonic() - started
                )
            reader = StreamReader(command, started)
            for chunk in output:
                stop = self._stop()
                if stop is not None:
                    reader.take(chunk)
                    return self._failed(stop, reader)
                text = reader.take(chunk)
                if text:
                    yield self._delta(command, text)
            tail = reader.finish()
            if tail:
                yield self._delta(command, tail)
            return reader.reply()
        except Exception as exc:  # classified by the loop
            return self._failed(exc, reader)
        finally:
            output.close()

    def _run_tools(self, command: RunTools) -> list[ToolOutcome | BaseException]:
        calls = command.calls
        if len(calls) > 1 and self._tools.parallel_safe(calls):
            with ThreadPoolExecutor(max_workers=min(8, len(calls))) as pool:
                futures = [
                    pool.submit(copy_context().run, self._tools.run, c, deadline=command.deadline)
                    for c in calls
                ]
                return [f.result() for f in futures]
        outcomes: list[ToolOutcome | BaseException] = []
        for call in calls:
            stop = self._stop()
            if stop is not None:
                outcomes.append(stop)
                break
            outcomes.append(self._tools.run(call, deadline=command.deadline))
        return outcomes


def iterate_sync(steps: Generator[Any, None, T], finish: Callable[[T], None]) -> Iterator[Any]:
    """Iterate a driver's events, handing the loop's return value to ``finish``."""
    outcome = yield from steps
    finish(outcome)
