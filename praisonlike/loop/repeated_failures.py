"""Ending tool use when the model keeps making a call that fails.

A small model given an error often makes the very same call again, round after
round, until the iteration limit (Qwen2.5-Coder-0.5B called a lookup tool that
raised ``KeyError`` ten times in a row). :class:`FailedCalls` counts each failed
call by its tool and arguments; once one has failed :data:`MAX_SAME_FAILURES`
times in a turn, that call's result ends with :data:`STOP_CALLING` and the turn's
next round offers no tools (a grammar-taking local model can then only write
text). A call that fails once and is retried (a flaky tool) runs again as usual;
so does the same tool with other arguments.
"""

from __future__ import annotations

import json
from collections import Counter

from praisonlike.loop.commands import ToolOutcome

MAX_SAME_FAILURES = 2
"""Failures of one call (same tool, same arguments) that end tool use for the turn."""

STOP_CALLING = (
    "This call fails every time; calling it again will not help. Now answer my original "
    "question in plain text, without JSON, and say what could not be done."
)
"""Added to the result of the call that failed once too often (in place of the usual
nudge of a ReAct observation)."""


class FailedCalls:
    """The failed calls of one turn, counted by tool name and arguments."""

    def __init__(self) -> None:
        self._counts: Counter[tuple[str, str]] = Counter()

    def record(self, outcome: ToolOutcome) -> bool:
        """Count ``outcome`` if it failed; True when its call has now failed
        :data:`MAX_SAME_FAILURES` times."""
        if not outcome.is_error:
            return False
        key = (outcome.call.name, _canonical(outcome.arguments))
        self._counts[key] += 1
        return self._counts[key] >= MAX_SAME_FAILURES


def _canonical(arguments: dict[str, object] | str) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, sort_keys=True, default=repr)
