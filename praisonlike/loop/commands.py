"""The messages between the tool loop (a step machine) and its drivers.

The loop yields *commands* (call a model, call a tool, run a batch of tool
pipelines at once, sleep; and the user-code commands of
:mod:`praisonlike.loop.user_code`) and events; a driver performs each command's
I/O and sends the outcome back. The loop itself
does no I/O, so the sync and async drivers cannot disagree about behaviour.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from praisonlike.models.config import LLMConfig
from praisonlike.models.usage import Usage


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model asked for. ``arguments`` is the raw JSON text."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ModelReply:
    """One model response, assembled (streamed or not). ``usage`` has no cost yet."""

    content: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    model: str
    finish_reason: str | None
    latency: float
    streamed_text: bool = False


@dataclass(frozen=True)
class CutShort:
    """What a call stopped (cancelled, or past its deadline) after its request was sent
    had produced: the answer text streamed so far, and the usage the server reported
    (``None`` when it reported none before the stop)."""

    text: str = ""
    usage: Usage | None = None


@dataclass(frozen=True)
class ModelFailed:
    """A model call raised; ``streamed_text`` tells if the caller already saw text.

    ``cut_short`` is set when the driver stopped the call after sending it, so
    the tokens it used can still be counted.
    """

    error: BaseException
    streamed_text: bool = False
    cut_short: CutShort | None = None


@dataclass(frozen=True)
class CallModel:
    """Command: send ``messages`` to ``llm`` and return a ModelReply or ModelFailed."""

    llm: LLMConfig
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    stream: bool
    iteration: int
    timeout: float | None = None
    params: dict[str, Any] = field(default_factory=dict)
    hold_back_calls: frozenset[str] | None = None


@dataclass(frozen=True)
class ToolOutcome:
    """What running one tool call produced, formatted for the model."""

    call: ToolCall
    arguments: dict[str, Any] | str
    result: str
    is_error: bool
    latency: float
    timed_out: bool = False
    """The tool did not return within its timeout (an error too)."""


@dataclass(frozen=True)
class RunTools:
    """Command: drive these tool pipelines concurrently; returns their outcomes in order.

    Each pipeline is one call's steps (see :meth:`praisonlike.tools.executor.TurnTools.steps`),
    yielding only :class:`InvokeTool`, :class:`~praisonlike.loop.user_code.AwaitUserCode` and
    :class:`~praisonlike.loop.user_code.CallBlocking`. The loop yields it only for a batch of
    parallel-safe calls; it runs other calls' steps itself, one after the other.
    """

    pipelines: tuple[Generator[Any, Any, Any], ...]
    iteration: int


@dataclass(frozen=True)
class InvokeTool:
    """Command: call a tool (``function()``, awaited when ``is_async``) within ``timeout``.

    The driver answers with an :class:`Invoked`, or with ``RunCancelled`` when
    it abandoned the call on cancellation.
    """

    function: Callable[[], Any]
    is_async: bool
    timeout: float | None


@dataclass(frozen=True)
class Invoked:
    """What a tool call returned (``value``), raised (``error``), or that it timed out."""

    value: Any = None
    error: Exception | None = None
    timed_out: bool = False


@dataclass(frozen=True)
class Sleep:
    """Command: wait, waking early on cancellation."""

    seconds: float


Command = CallModel | RunTools | InvokeTool | Sleep
