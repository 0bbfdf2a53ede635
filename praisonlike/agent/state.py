"""StateMixin: the agent's conversation state as versioned, JSON-serialisable data.

``save_state()`` returns history, usage and cost totals, the long-term summary
and pending steering messages; ``load_state(state)`` restores them on an agent
(``Agent.load_state(state, **agent_kwargs)`` builds the agent first). Write it
to disk with :func:`praisonlike.memory.atomic_write_json`. Runtime objects
(clients, stores, cancellation) are never part of the state.

An adapter over the agent's :class:`~praisonlike.agent.conversation.Conversation`
(history, summary, steering) and its usage tracker.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from praisonlike.agent.parts import HasParts
from praisonlike.errors import StateVersionError
from praisonlike.models.usage import Usage

STATE_VERSION = 1

T = TypeVar("T")


class _instance_or_class_method(Generic[T]):
    """A method callable on an instance, or on the class (then ``self`` is None)."""

    def __init__(self, func: Callable[..., T]) -> None:
        self._func = func
        functools.update_wrapper(self, func)  # type: ignore[arg-type]

    def __get__(self, instance: Any, owner: type) -> Callable[..., T]:
        return functools.partial(self._func, instance, owner)


class StateMixin(HasParts):
    @property
    def summary(self) -> str | None:
        """The conversation's long-term summary, as last loaded or updated."""
        return self._conversation.summary

    def save_state(self) -> dict[str, Any]:
        """The state as plain JSON data, with a ``version`` field."""
        conversation = self._conversation.save()
        return {
            "version": STATE_VERSION,
            "session_id": self.spec.session_id,
            "history": conversation["history"],
            "usage": {m: dataclasses.asdict(u) for m, u in self.usage_tracker.by_model.items()},
            "summary": conversation["summary"],
            "pending_steering": conversation["pending_steering"],
        }

    @_instance_or_class_method
    def load_state(self: Any, cls: type, state: Mapping[str, Any], **agent_kwargs: Any) -> Any:
        """Restore ``state`` onto this agent, or (called on the class) onto a new one.

        Restores history, usage, summary and pending steering; the saved
        ``session_id`` is not (pass ``session_id=`` to use a session). Raises
        :class:`StateVersionError` for a state of an unknown version or a
        malformed one (a message of an unknown role, a tool call without its
        result, steering that is not a list of strings).
        """
        if not isinstance(state, Mapping):
            raise StateVersionError("agent state must be a dict as returned by save_state()")
        version = state.get("version")
        if version != STATE_VERSION:
            raise StateVersionError(
                f"agent state version {version!r} is not supported (this release reads "
                f"version {STATE_VERSION})"
            )
        history = state.get("history") or []
        if not isinstance(history, list) or not all(isinstance(m, dict) for m in history):
            raise StateVersionError("agent state 'history' must be a list of message dicts")
        _check_history(history)
        steering = state.get("pending_steering") or []
        if not isinstance(steering, list) or not all(isinstance(t, str) for t in steering):
            raise StateVersionError("agent state 'pending_steering' must be a list of strings")
        summary = state.get("summary")
        if summary is not None and not isinstance(summary, str):
            raise StateVersionError("agent state 'summary' must be a string or null")
        stored = state.get("usage") or {}
        usage = [(model, _stored_usage(model, data)) for model, data in stored.items()]
        agent = cls(**agent_kwargs) if self is None else self
        agent.usage_tracker.reset()
        for model, record in usage:
            agent.usage_tracker.add(model, record)
        agent._conversation.load(history, summary, list(steering))
        return agent


_ROLES = frozenset({"system", "user", "assistant", "tool"})


def _check_history(history: list[dict[str, Any]]) -> None:
    """Every message has a known role, and every tool call its result (a call left
    without one would be sent, and refused by providers, on every later turn)."""
    waiting: set[str] = set()
    for position, message in enumerate(history):
        role = message.get("role")
        if role not in _ROLES:
            raise StateVersionError(f"agent state 'history'[{position}] has role {role!r}")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in waiting:
                raise StateVersionError(
                    f"agent state 'history'[{position}] answers no tool call ({call_id!r})"
                )
            waiting.discard(call_id)
            continue
        if waiting:
            break
        calls = message.get("tool_calls") or [] if role == "assistant" else []
        waiting = {str(call.get("id")) for call in calls if isinstance(call, dict)}
    if waiting:
        raise StateVersionError(
            f"agent state 'history' has tool calls without results: {', '.join(sorted(waiting))}"
        )


def _stored_usage(model: str, data: Any) -> Usage:
    names = {f.name for f in dataclasses.fields(Usage)}
    if not isinstance(data, dict) or not set(data) <= names:
        raise StateVersionError(f"agent state 'usage' of {model!r} is not a usage record")
    for name, value in data.items():
        if name == "cost_complete":
            valid = isinstance(value, bool)
        elif name == "cost":
            valid = value is None or isinstance(value, (int, float))
        else:
            valid = isinstance(value, int) and value >= 0
        if not valid:
            raise StateVersionError(f"agent state 'usage' of {model!r}: {name} is {value!r}")
    return Usage(**data)
