"""Running the model's tool calls: one pipeline, written once, for every driver.

:class:`TurnTools` holds the tools of one turn; :meth:`TurnTools.steps` is the
pipeline of one call (validation, approval, ``BEFORE_TOOL`` hooks, the call,
``AFTER_TOOL`` hooks, result formatting) as a generator that makes every
decision and yields the I/O as commands its driver performs (see
:mod:`praisonlike.loop.tool_io` and :mod:`praisonlike.loop.user_code`).

Whatever goes wrong with a call (unknown tool, malformed or invalid arguments,
an exception, a timeout, a denial) becomes a tool message marked as an error,
which the model reads and can act on. Only a hook or an approver that raises
ends the turn, with a :class:`HookError` or :class:`ToolError` handed back to
the loop (a tool whose approver raised is not run). Sync tools and sync
approvers never block an event loop (they run in a worker thread under
``achat``), and async tools, hooks and approvers work under ``chat`` (on a
private loop) and are awaited on the caller's loop under ``achat``.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from pydantic_core import to_jsonable_python

from praisonlike._runtime.cancellation import CancelToken
from praisonlike.context.config import MIN_TOOL_OUTPUT_LIMIT as MIN_RESULT_LIMIT
from praisonlike.errors import ConfigurationError, HookError, RunCancelled, RunTimeout, ToolError
from praisonlike.hooks import HookContext, HookPoint, HookResult, HookRunner
from praisonlike.loop.commands import Invoked, InvokeTool, ToolCall, ToolOutcome
from praisonlike.loop.user_code import AwaitUserCode, CallBlocking
from praisonlike.tools.python_tool import ToolArgumentError
from praisonlike.tools.registry import ToolRegistry
from praisonlike.tools.results import (
    DEFAULT_RESULT_LIMIT,
    format_tool_result,
    tool_exception_message,
    unknown_tool_message,
)
from praisonlike.tools.run_context import RunContext

#: Decides whether a call may run: ``(tool_name, arguments) -> bool``.
Approver = Callable[[str, dict[str, Any]], "bool | Awaitable[bool]"]

#: One call's pipeline (see :meth:`TurnTools.steps`).
ToolSteps = Generator[Any, Any, "ToolOutcome | HookError | ToolError | RunCancelled"]


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

    # -- the pipeline ----------------------------------------------------------------

    def parallel_safe(self, calls: Sequence[ToolCall]) -> bool:
        """True when every call names a known tool marked parallel-safe."""
        for call in calls:
            tool = self._registry.get(call.name)
            if tool is None or not tool.parallel_safe:
                return False
        return True

    def steps(self, call: ToolCall, *, deadline: float | None) -> ToolSteps:
        """One call's pipeline: validation, approval, BEFORE_TOOL hooks, the call,
        AFTER_TOOL hooks, the result formatted for the model.

        A generator for a driver to drive (or the tool loop to ``yield from``):
        it yields :class:`~praisonlike.loop.commands.InvokeTool` for the call
        itself and :mod:`~praisonlike.loop.user_code` commands for the approver
        and async hooks, and returns the :class:`ToolOutcome`; a
        :class:`HookError` (a hook raised) or :class:`ToolError` (the approver
        raised) that must end the turn; or the ``RunCancelled`` of a call the
        driver abandoned. Raises ``RunCancelled`` when the driver stopped
        waiting for the approver or a hook.
        """
        started = time.monotonic()
        prepared = self._prepare(call, started)
        if isinstance(prepared, ToolOutcome):
            return prepared
        if prepared.tool.requires_approval:
            denied = yield from self._approval(prepared, started)
            if denied is not None:
                return denied
        hooks = self._hooks
        try:
            if hooks is not None and hooks.has(HookPoint.BEFORE_TOOL):
                context = self._hook_context(HookPoint.BEFORE_TOOL, prepared)
                prepared = self._apply_before(prepared, (yield from hooks.steps(context)))
                if isinstance(prepared, ToolOutcome):
                    return prepared
            timeout = self._timeout_for(prepared.tool, deadline)
            invoked = yield InvokeTool(
                function=partial(prepared.tool.call, prepared.arguments, prepared.context),
                is_async=prepared.tool.is_async,
                timeout=timeout,
            )
            if isinstance(invoked, RunCancelled):
                return invoked
            outcome = self._invoked(prepared, invoked, timeout, started)
            if hooks is not None and hooks.has(HookPoint.AFTER_TOOL):
                context = self._hook_context(HookPoint.AFTER_TOOL, prepared, outcome)
                outcome = self._apply_after(outcome, (yield from hooks.steps(context)))
        except HookError as exc:
            return exc
        return outcome

    def run(self, call: ToolCall, *, deadline: float | None) -> ToolOutcome | Exception:
        """Run one call's :meth:`steps` to the end in this thread, blocking.

        For callers outside a turn; a turn's driver drives :meth:`steps` itself.
        """
        from praisonlike.loop.tool_io import invoke_blocking

        steps = self.steps(call, deadline=deadline)
        reply: Any = None
        while True:
            try:
                command = steps.send(reply)
            except StopIteration as done:
                result: ToolOutcome | Exception = done.value
                return result
            reply = None
            if isinstance(command, InvokeTool):
                reply = invoke_blocking(command)
            elif isinstance(command, AwaitUserCode):
                command.settle_blocking(None, deadline)
            else:
                command.settle()

    # -- hooks ---------------------------------------------------------------------

    def _hook_context(
        self, event: HookPoint, prepared: _Prepared, outcome: ToolOutcome | None = None
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
            timed_out=outcome.timed_out,
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

    def _approval(
        self, prepared: _Prepared, started: float
    ) -> Generator[Any, Any, ToolOutcome | ToolError | None]:
        """For a tool that requires approval: ``None`` when the call may run; else the
        denial, or the error of an approver that raised.

        The approver may block (``input()``): it is a :class:`CallBlocking` the async
        driver makes on a worker thread. An awaitable it returns is awaited like any user code.
        """
        verdict: Any = False
        if self._approver is not None:
            try:
                asked = CallBlocking(self._approver, prepared.call.name, prepared.arguments)
                yield asked
                verdict = asked.result()
                if inspect.isawaitable(verdict):
                    pending = AwaitUserCode(verdict)
                    yield pending
                    verdict = pending.result()
            except (RunCancelled, RunTimeout):  # the run stopped waiting for the approver
                raise
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

    def _invoked(
        self, prepared: _Prepared, invoked: Invoked, timeout: float | None, started: float
    ) -> ToolOutcome:
        if invoked.timed_out:
            text = f"Error: tool '{prepared.call.name}' timed out after {timeout or 0:.3g}s"
            return self._error(prepared.call, prepared.arguments, text, started, timed_out=True)
        if invoked.error is not None:
            text = tool_exception_message(prepared.call.name, invoked.error)
            return self._error(prepared.call, prepared.arguments, text, started)
        return self._success(prepared, invoked.value, started)

    def _success(self, prepared: _Prepared, value: Any, started: float) -> ToolOutcome:
        return ToolOutcome(
            call=prepared.call,
            arguments=_jsonable(prepared.arguments),
            result=format_tool_result(value, limit=self._result_limit),
            is_error=False,
            latency=time.monotonic() - started,
        )

    def _error(
        self,
        call: ToolCall,
        arguments: dict[str, Any] | str,
        text: str,
        started: float,
        *,
        timed_out: bool = False,
    ) -> ToolOutcome:
        return ToolOutcome(
            call=call,
            arguments=_jsonable(arguments) if isinstance(arguments, dict) else arguments,
            result=text,
            is_error=True,
            latency=time.monotonic() - started,
            timed_out=timed_out,
        )

    def _denied(self, prepared: _Prepared, started: float) -> ToolOutcome:
        text = f"Error: the call to tool '{prepared.call.name}' was denied by the approver"
        return self._error(prepared.call, prepared.arguments, text, started)


def _approver_failed(name: str, exc: Exception) -> ToolError:
    """A broken approver fails the turn (the tool does not run) rather than deciding anything."""
    error = ToolError(f"the approver of tool '{name}' raised {type(exc).__name__}", tool_name=name)
    error.__cause__ = exc
    return error


def _jsonable(arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments as plain JSON values (validated models dumped), for records and events."""
    value = to_jsonable_python(arguments, fallback=str)
    return value if isinstance(value, dict) else {}
