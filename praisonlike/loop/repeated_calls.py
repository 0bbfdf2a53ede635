"""Ending tool use when the model keeps making a call that cannot tell it more.

A small model often makes the very same call again, round after round, until
the iteration limit: Qwen2.5-Coder-0.5B called a lookup tool that raised
``KeyError`` ten times in a row and, when each result restated the question,
called the tool that had answered it ten times too; given a lookup that timed
out, it called it for one city after another (six timeouts in a turn).
:class:`RepeatedCalls` counts each call by its tool and arguments. Once one
has failed :data:`MAX_SAME_FAILURES` times in a turn, or has returned the same
result :data:`MAX_SAME_RESULTS` times running, or a tool has timed out
:data:`MAX_TOOL_TIMEOUTS` times in a turn whatever its arguments, that call's
result ends with a line saying so (:data:`STOP_CALLING`, :data:`SAME_RESULT`,
:data:`TIMING_OUT`) and the turn's next round offers no tools (a
grammar-taking local model can then only write text). A call that fails once
and is retried (a flaky tool) runs again as usual; so do the same tool with
other arguments (unless it keeps timing out: each try costs the whole
timeout) and a call whose result changes (a status that moves on).
"""

from __future__ import annotations

import json
from collections import Counter

from praisonlike.loop.commands import ToolOutcome

MAX_SAME_FAILURES = 2
"""Failures of one call (same tool, same arguments) that end tool use for the turn."""

MAX_SAME_RESULTS = 3
"""Successes of one call in a row with the same result that end tool use for the turn."""

MAX_TOOL_TIMEOUTS = 2
"""Timeouts of one tool, with any arguments, that end tool use for the turn."""

STOP_CALLING = (
    "This call fails every time; calling it again will not help. Now answer my original "
    "question in plain text, without JSON, and say what could not be done."
)
"""Added to the result of the call that failed once too often (in place of the usual
nudge of a ReAct observation)."""

SAME_RESULT = (
    "This call has returned the same result every time; calling it again will not change "
    "it. Now answer my original question in plain text, without JSON."
)
"""Added to the result of the call that returned the same result once too often."""

TIMING_OUT = (
    "This tool keeps timing out; calling it again, with any arguments, will not help. Now "
    "answer my original question in plain text, without JSON, and say what could not be done."
)
"""Added to the result of the call whose tool timed out once too often."""


class RepeatedCalls:
    """The calls of one turn, counted by tool name and arguments."""

    def __init__(self) -> None:
        self._failures: Counter[tuple[str, str]] = Counter()
        self._timeouts: Counter[str] = Counter()
        self._results: dict[tuple[str, str], tuple[str, int]] = {}

    def record(self, outcome: ToolOutcome) -> str | None:
        """Count ``outcome``; the line its result should end with when its call has
        now failed or repeated itself too often, or its tool timed out too often
        (tool use then ends), else None."""
        key = (outcome.call.name, _canonical(outcome.arguments))
        if outcome.is_error:
            self._failures[key] += 1
            if self._failures[key] >= MAX_SAME_FAILURES:
                return STOP_CALLING
            if outcome.timed_out:
                self._timeouts[outcome.call.name] += 1
                if self._timeouts[outcome.call.name] >= MAX_TOOL_TIMEOUTS:
                    return TIMING_OUT
            return None
        previous, times = self._results.get(key, (None, 0))
        times = times + 1 if outcome.result == previous else 1
        self._results[key] = (outcome.result, times)
        return SAME_RESULT if times >= MAX_SAME_RESULTS else None


def _canonical(arguments: dict[str, object] | str) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, sort_keys=True, default=repr)
