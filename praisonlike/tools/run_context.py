"""The context object a tool can ask for by annotating a parameter ``RunContext``."""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar, Union, get_args, get_origin

DepsT = TypeVar("DepsT")


@dataclass
class RunContext(Generic[DepsT]):
    """Handed to a tool that declares a parameter annotated ``RunContext`` (or ``RunContext[X]``).

    That parameter is left out of the tool's JSON schema, so the model never sees it,
    and the tool loop fills it in on every call.

    Attributes:
        run_id: the id of the agent run (one ``chat()`` turn) making the call.
        tool_call_id: the id the model gave this tool call.
        deps: whatever the caller passed as ``Agent(deps=...)`` or ``chat(deps=...)``;
            it is never put in any message sent to the model.
        agent: the agent running the tool, when there is one.
        cancel_token: the run's cancel token (has ``.cancelled: bool``), when there is one.
        attempt: 1 for the first execution of this tool call, 2 for the first retry, ...
    """

    run_id: str
    tool_call_id: str
    deps: DepsT
    agent: Any = None
    cancel_token: Any = None
    attempt: int = 1

    @property
    def idempotency_key(self) -> str:
        """``"{run_id}:{tool_call_id}"``: the same for every retry of one tool call."""
        return f"{self.run_id}:{self.tool_call_id}"


def is_run_context_annotation(annotation: Any) -> bool:
    """True if ``annotation`` is ``RunContext``, ``RunContext[X]``, or either of them
    wrapped in ``Annotated[...]`` or ``Optional[...]``."""
    if annotation is RunContext:
        return True
    origin = get_origin(annotation)
    if origin is RunContext:
        return True
    if origin is Annotated:
        return is_run_context_annotation(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        members = [arg for arg in get_args(annotation) if arg is not type(None)]
        return len(members) == 1 and is_run_context_annotation(members[0])
    return False
