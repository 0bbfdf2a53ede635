"""Running the model's tool calls: validation, timeouts, sync and async tools.

:class:`TurnTools` is the ``execute_tool`` handed to the dispatcher for one
turn. Whatever goes wrong with a call (unknown tool, malformed or invalid
arguments, an exception, a timeout, a denial) becomes a tool message marked as
an error, which the model reads and can act on. Only a hook or an approver that
raises ends the turn, with a :class:`HookError` or :class:`ToolError` handed back
to the loop (a tool whose approver raised is not run). Sync tools never block an
event loop (they run in a worker thread under ``achat``), and async tools work
under ``chat`` (on a private loop).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from pydantic_core import to_jsonable_python

from praisonlike.cancellation import CancelToken
from praisonlike.context.config import MIN_TOOL_OUTPUT_LIMIT as MIN_RESULT_LIMIT
from praisonlike.errors import ConfigurationError, HookError, ToolError
from praisonlike.hooks import HookContext, HookEvent, HookResult, HookRunner
from praisonlike.llm.protocol import ToolCall, ToolOutcome
from praisonlike.tools.async_bridge import in_worker_thread, submit_coroutine
from praisonlike.tools.python_tool import ToolArgumentError
from praisonlike.tools.registry import ToolRegistry
from praisonlike.tools.results import (
    DEFAULT_RESULT_LIMIT,
    format_tool_result,
    tool_exception_message,
    unknown_tool_message,
)
from praisonlike.tools.run_context import RunContext
from praisonlike.worker_threads import start_in_thread

#: Decides whether a call may run: ``(tool_name, arguments) -> bool``.
Approver = Callable[[str, dict[str, Any]], "bool | Awaitable[bool]"]


@dataclass(frozen=True)
class _Prepared:
    call: ToolCall
    tool: Any
    arguments: dict[str, Any]
    context: RunContext[Any]


class TurnTools:
    """The tools of one turn, bound to its run id, deps and cancellation.

    A tool's result is cut to ``result_limit`` characters (head and tail, see
    :func:`~praisonlike.tools.results.format_tool_result`) before it reaches the
    history, the events or the model; ``None`` keeps results whole.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        run_id: str,
        deps: Any = None,
        agent: Any = None,
        cancel: CancelToken | None = None,
        tool_timeout: float | None = None,
        approver: Approver | None = None,
        hooks: HookRunner | None = None,
        result_limit: int | None = DEFAULT_RESULT_LIMIT,
    ) -> None:
        if result_limit is not None and result_limit < MIN_RESULT_LIMIT:
            raise ConfigurationError(
                f"result_limit must be None or at least {MIN_RESULT_LIMIT} characters, "
                f"got {result_limit}"
            )
        self._registry = registry
        self._run_id = run_id
        self._deps = deps
        self._agent = agent
        self._cancel = cancel
        self._tool_timeout = tool_timeout
        self._approver = approver
        self._hooks = hooks
        self._result_limit = result_limit

    # -- the ToolRunner protocol -------------------------------------------------------

    def parallel_safe(self, calls: tuple[ToolCall, ...]) -> bool:
        for call in calls:
            tool = self._registry.get(call.name)
            if tool is None or not tool.parallel_safe:
                return False
        return True

    def run(self, call: ToolCall, *, deadline: float | None) -> ToolOutcome | HookError | ToolError:
        started = time.monotonic()
        prepared = self._prepare(call, started)
        if isinstance(prepared, ToolOutcome):
            return prepared
        denied = self._check_approval_sync(prepared, started)
        if denied is not None:
            return denied
        try:
            if self._hooks is not None and self._hooks.has(HookEvent.BEFORE_TOOL):
                before = self._hooks.run(self._hook_context(HookEvent.BEFORE_TOOL, prepared))
                prepared = self._apply_before(prepared, before)
            if isinstance(prepared, ToolOutcome):
                return prepared
            outcome = self._invoke_sync(prepared, deadline, started)
            if self._hooks is not None and self._hooks.has(HookEvent.AFTER_TOOL):
                after = self._hooks.run(self._hook_context(HookEvent.AFTER_TOOL, prepared, outcome))
                outcome = self._apply_after(outcome, after)
        except HookError as exc:
            return exc
        return outcome

    def _invoke_sync(
        self, prepared: _Prepared, deadline: float | None, started: float
    ) -> ToolOutcome:
        call = prepared.call
        timeout = self._timeout_for(prepared.tool, deadline)
        try:
            if prepared.tool.is_async:
                future = submit_coroutine(self._invoke_async(prepared))
                try:
                    value = future.result(timeout)
                except FutureTimeout:
                    future.cancel()
                    raise
            elif timeout is None:
                value = prepared.tool.call(prepared.arguments, prepared.context)
            else:
                job = start_in_thread(prepared.tool.call, prepared.arguments, prepared.context)
                value = job.result(timeout)
        except FutureTimeout:
            return self._timed_out(prepared, timeout, started)
        except Exception as exc:
            return self._error(
                prepared.call, prepared.arguments, tool_exception_message(call.name, exc), started
            )
        return self._success(prepared, value, started)

    async def arun(
        self, call: ToolCall, *, deadline: float | None
    ) -> ToolOutcome | HookError | ToolError:
        started = time.monotonic()
        prepared = self._prepare(call, started)
        if isinstance(prepared, ToolOutcome):
            return prepared
        denied = await self._check_approval_async(prepared, started)
        if denied is not None:
            return denied
        try:
            if self._hooks is not None and self._hooks.has(HookEvent.BEFORE_TOOL):
                before = await self._hooks.arun(self._hook_context(HookEvent.BEFORE_TOOL, prepared))
                prepared = self._apply_before(prepared, before)
            if isinstance(prepared, ToolOutcome):
                return prepared
            outcome = await self._invoke_async_tool(prepared, deadline, started)
            if self._hooks is not None and self._hooks.has(HookEvent.AFTER_TOOL):
                context = self._hook_context(HookEvent.AFTER_TOOL, prepared, outcome)
                outcome = self._apply_after(outcome, await self._hooks.arun(context))
        except HookError as exc:
            return exc
        return outcome

    async def _invoke_async_tool(
        self, prepared: _Prepared, deadline: float | None, started: float
    ) -> ToolOutcome:
        call = prepared.call
        timeout = self._timeout_for(prepared.tool, deadline)
        try:
            if prepared.tool.is_async:
                work: Awaitable[Any] = self._invoke_async(prepared)
            else:
                work = in_worker_thread(prepared.tool.call, prepared.arguments, prepared.context)
            value = await asyncio.wait_for(work, timeout) if timeout is not None else await work
        except asyncio.TimeoutError:
            return self._timed_out(prepared, timeout, started)
        except Exception as exc:
            return self._error(
                prepared.call, prepared.arguments, tool_exception_message(call.name, exc), started
            )
        return self._success(prepared, value, started)

    # -- hooks ---------------------------------------------------------------------

    def _hook_context(
        self, event: HookEvent, prepared: _Prepared, outcome: ToolOutcome | None = None
    ) -> HookContext:
        return HookContext(
            event=event,
            run_id=self._run_id,
            agent=self._agent,
            tool_name=prepared.call.name,
            tool_call_id=prepared.call.id,
            arguments=dict(prepared.arguments),
            result=outcome.result if outcome is not None else None,
            is_error=outcome.is_error if outcome is not None else None,
        )

    def _apply_before(self, prepared: _Prepared, result: HookResult) -> _Prepared | ToolOutcome:
        if result.deny:
            reason = f": {result.reason}" if result.reason else ""
            text = f"Error: the call to tool '{prepared.call.name}' was denied by a hook{reason}"
            return self._error(prepared.call, prepared.arguments, text, time.monotonic())
        if result.arguments is None:
            return prepared
        try:
            arguments = prepared.tool.validate(result.arguments)
        except ToolArgumentError as exc:
            raise HookError(
                f"a BEFORE_TOOL hook gave invalid arguments: {exc}", hook="BEFORE_TOOL"
            ) from exc
        return _Prepared(prepared.call, prepared.tool, arguments, prepared.context)

    def _apply_after(self, outcome: ToolOutcome, result: HookResult) -> ToolOutcome:
        if result.result is None:
            return outcome
        return ToolOutcome(
            call=outcome.call,
            arguments=outcome.arguments,
            result=result.result,
            is_error=outcome.is_error,
            latency=outcome.latency,
        )

    # -- steps ---------------------------------------------------------------------

    def _prepare(self, call: ToolCall, started: float) -> _Prepared | ToolOutcome:
        tool = self._registry.get(call.name)
        if tool is None:
            return self._error(
                call, call.arguments, unknown_tool_message(call.name, self._registry.names), started
            )
        try:
            arguments = tool.validate(call.arguments)
        except ToolArgumentError as exc:
            return self._error(call, call.arguments, f"Error: {exc}", started)
        context = RunContext(
            run_id=self._run_id,
            tool_call_id=call.id,
            deps=self._deps,
            agent=self._agent,
            cancel_token=self._cancel,
        )
        return _Prepared(call=call, tool=tool, arguments=arguments, context=context)

    async def _invoke_async(self, prepared: _Prepared) -> Any:
        result = prepared.tool.call(prepared.arguments, prepared.context)
        if inspect.isawaitable(result):
            result = await result
        return result

    def _check_approval_sync(
        self, prepared: _Prepared, started: float
    ) -> ToolOutcome | ToolError | None:
        if not prepared.tool.requires_approval:
            return None
        verdict: Any = False
        if self._approver is not None:
            try:
                verdict = self._approver(prepared.call.name, prepared.arguments)
                if inspect.isawaitable(verdict):
                    verdict = submit_coroutine(_awaited(verdict)).result()
            except Exception as exc:
                return _approver_failed(prepared.call.name, exc)
        return None if verdict is True else self._denied(prepared, started)

    async def _check_approval_async(
        self, prepared: _Prepared, started: float
    ) -> ToolOutcome | ToolError | None:
        if not prepared.tool.requires_approval:
            return None
        verdict: Any = False
        if self._approver is not None:
            try:
                verdict = await in_worker_thread(
                    self._approver, prepared.call.name, prepared.arguments
                )
                if inspect.isawaitable(verdict):
                    verdict = await verdict
            except Exception as exc:
                return _approver_failed(prepared.call.name, exc)
        return None if verdict is True else self._denied(prepared, started)

    def _timeout_for(self, tool: Any, deadline: float | None) -> float | None:
        timeout = tool.timeout if tool.timeout is not None else self._tool_timeout
        if deadline is not None:
            remaining = max(0.0, deadline - time.monotonic())
            timeout = remaining if timeout is None else min(timeout, remaining)
        return timeout

    # -- outcomes -----------------------------------------------------------------

    def _success(self, prepared: _Prepared, value: Any, started: float) -> ToolOutcome:
        return ToolOutcome(
            call=prepared.call,
            arguments=_jsonable(prepared.arguments),
            result=format_tool_result(value, limit=self._result_limit),
            is_error=False,
            latency=time.monotonic() - started,
        )

    def _error(
        self, call: ToolCall, arguments: dict[str, Any] | str, text: str, started: float
    ) -> ToolOutcome:
        return ToolOutcome(
            call=call,
            arguments=_jsonable(arguments) if isinstance(arguments, dict) else arguments,
            result=text,
            is_error=True,
            latency=time.monotonic() - started,
        )

    def _timed_out(self, prepared: _Prepared, timeout: float | None, started: float) -> ToolOutcome:
        text = f"Error: tool '{prepared.call.name}' timed out after {timeout or 0:.3g}s"
        return self._error(prepared.call, prepared.arguments, text, started)

    def _denied(self, prepared: _Prepared, started: float) -> ToolOutcome:
        text = f"Error: the call to tool '{prepared.call.name}' was denied by the approver"
        return self._error(prepared.call, prepared.arguments, text, started)


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _approver_failed(name: str, exc: Exception) -> ToolError:
    """A broken approver fails the turn (the tool does not run) rather than deciding anything."""
    error = ToolError(f"the approver of tool '{name}' raised {type(exc).__name__}", tool_name=name)
    error.__cause__ = exc
    return error


def _jsonable(arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments as plain JSON values (validated models dumped), for records and events."""
    value = to_jsonable_python(arguments, fallback=str)
    return value if isinstance(value, dict) else {}
