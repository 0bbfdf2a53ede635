"""The tool side of a turn: reading a reply's calls, running them, feeding the results back.

:class:`ToolRounds` sits between :class:`~praisonlike.loop.model_round.ModelRounds`
and :class:`~praisonlike.loop.tool_loop.ToolLoop`, which decides when a round's
calls run. A round's calls are native ``tool_calls``, or calls written as text
(ReAct, or a native model's whole answer written as a call); they run in parallel
when every tool is parallel-safe, else in order, and each result goes back to
the model as a ``tool`` message or a ReAct observation. A call that keeps
failing or repeating itself ends the turn's tools
(:mod:`praisonlike.loop.repeated_calls`).
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from praisonlike.errors import RunCancelled, RunTimeout
from praisonlike.events import ToolCallEvent, ToolResultEvent
from praisonlike.loop.commands import ModelReply, RunTools, ToolCall, ToolOutcome
from praisonlike.loop.model_round import ModelRounds, Stop
from praisonlike.loop.repeated_calls import RepeatedCalls
from praisonlike.loop.stop import deadline_error, stop_error
from praisonlike.react.parse import (
    is_whole_answer_a_call,
    may_be_whole_call,
    parse_text_tool_calls,
    unoffered_calls,
)
from praisonlike.react.prompt import observation_message
from praisonlike.result import TerminationReason, ToolCallRecord, ToolMode

if TYPE_CHECKING:
    from praisonlike.loop.run import Run


class ToolRounds(ModelRounds):
    """The turn's tools, the calls made so far and their records."""

    def __init__(self, run: Run) -> None:
        super().__init__(run)
        if run.tools is None:
            raise ValueError("a turn's Run needs its tools (a TurnTools, even without tools)")
        self._tools = run.tools
        spec = run.spec
        self._messages = spec.new_messages
        self._offered = frozenset(t["function"]["name"] for t in spec.tools if "function" in t)
        self._tool_records: list[ToolCallRecord] = []
        self._repeated_calls = RepeatedCalls()
        self._iteration = 0

    def _tool_calls_of(self, reply: ModelReply) -> list[ToolCall]:
        if self.spec.tool_mode is ToolMode.REACT:
            found = parse_text_tool_calls(reply.content, self._offered) or unoffered_calls(
                reply.content, self._offered
            )
        elif reply.tool_calls:
            return list(reply.tool_calls)
        elif self._offered and may_be_whole_call(reply.content):
            found = is_whole_answer_a_call(reply.content, self._offered) or unoffered_calls(
                reply.content, self._offered
            )
        else:
            found = []
        return [
            ToolCall(
                id=f"call_{self.spec.run_id[:8]}_{self._iteration}_{n}",
                name=call.name,
                arguments=json.dumps(call.arguments, ensure_ascii=False),
            )
            for n, call in enumerate(found)
        ]

    def _tool_round(self, reply: ModelReply, calls: list[ToolCall]) -> Generator[Any, Any, bool]:
        """Run the round's calls; True when one of them has now failed or repeated
        itself too often (:mod:`praisonlike.loop.repeated_calls`): its result then
        says to stop calling, and the turn's tools end."""
        react = self.spec.tool_mode is ToolMode.REACT
        if react:
            self._messages.append({"role": "assistant", "content": reply.content})
        else:
            self._messages.append(
                {
                    "role": "assistant",
                    "content": reply.content if reply.tool_calls else "",
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": c.arguments},
                        }
                        for c in calls
                    ],
                }
            )
        if self._emits:
            for call in calls:
                yield ToolCallEvent(
                    run_id=self.spec.run_id,
                    iteration=self._iteration,
                    call_id=call.id,
                    name=call.name,
                    arguments=_decoded(call.arguments),
                )
        outcomes = yield from self._run_tools(calls)
        stuck = False
        for outcome in outcomes:
            if isinstance(outcome, RunCancelled):
                raise Stop(TerminationReason.CANCELLED, outcome)
            if isinstance(outcome, RunTimeout):
                raise Stop(TerminationReason.TIMEOUT, deadline_error())
            if isinstance(outcome, BaseException):
                raise outcome
            stop = self._repeated_calls.record(outcome)
            self._record_tool(outcome, react, stop=stop)
            stuck = stuck or stop is not None
            if self._emits:
                yield ToolResultEvent(
                    run_id=self.spec.run_id,
                    iteration=self._iteration,
                    call_id=outcome.call.id,
                    name=outcome.call.name,
                    result=outcome.result,
                    is_error=outcome.is_error,
                    latency=outcome.latency,
                )
        self._check_stop()
        return stuck

    def _run_tools(self, calls: list[ToolCall]) -> Generator[Any, Any, list[Any]]:
        """Each call's pipeline: all at once when every tool is parallel-safe, else in
        order, stopping before the next call once the run is cancelled or past its deadline."""
        deadline = self.spec.deadline
        if len(calls) > 1 and self._tools.parallel_safe(calls):
            pipelines = tuple(self._tools.steps(call, deadline=deadline) for call in calls)
            outcomes: list[Any] = yield RunTools(pipelines=pipelines, iteration=self._iteration)
            return outcomes
        outcomes = []
        for call in calls:
            stop = stop_error(self.spec.cancel, deadline)
            if stop is not None:
                outcomes.append(stop)
                break
            try:
                outcome = yield from self._tools.steps(call, deadline=deadline)
            except (RunCancelled, RunTimeout) as stopped:  # stopped waiting for user code
                outcomes.append(stopped)
                break
            outcomes.append(outcome)
            if isinstance(outcome, RunCancelled):
                break
        return outcomes

    def _record_tool(self, outcome: ToolOutcome, react: bool, *, stop: str | None) -> None:
        """Add the call's result to the messages, ending with ``stop`` when given."""
        call = outcome.call
        if react:
            self._messages.append(
                observation_message(
                    call.name, outcome.result, is_error=outcome.is_error, nudge=stop
                )
            )
        else:
            content = outcome.result if stop is None else f"{outcome.result}\n{stop}"
            self._messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        self._tool_records.append(
            ToolCallRecord(
                id=call.id,
                name=call.name,
                arguments=outcome.arguments,
                result=outcome.result,
                is_error=outcome.is_error,
                latency=outcome.latency,
            )
        )


def _decoded(arguments: str) -> dict[str, Any] | str:
    try:
        value = json.loads(arguments) if arguments else {}
    except (ValueError, RecursionError):
        return arguments
    return value if isinstance(value, dict) else arguments


__all__ = ["ToolRounds"]
