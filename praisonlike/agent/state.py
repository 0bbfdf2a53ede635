"""StateMixin: the agent's conversation state as versioned, JSON-serialisable data.

``save_state()`` returns history, usage and cost totals, the long-term summary
and pending steering messages; ``load_state(state)`` restores them on an agent
(``Agent.load_state(state, **agent_kwargs)`` builds the agent first). Write it
to disk with :func:`praisonlike.memory.atomic_write_json`. Runtime objects
(clients, stores, cancellation) are never part of the state.

Uses from ``self``: ``session_id``, ``usage_tracker``, ``_history``, ``_summary``,
``_steering_queue``, ``_steering_lock``, ``_memory_lock``.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from praisonlike.errors import StateVersionError
from praisonlike.llm.usage import Usage, UsageTracker

STATE_VERSION = 1

T = TypeVar("T")


class _instance_or_class_method(Generic[T]):
    """A method callable on an instance, or on the class (then ``self`` is None)."""

    def __init__(self, func: Callable[..., T]) -> None:
        self._func = func
        functools.update_wrapper(self, func)  # type: ignore[arg-type]

    def __get__(self, instance: Any, owner: type) -> Callable[..., T]:
        return functools.partial(self._func, instance, owner)


class StateMixin:
    session_id: str | None
    usage_tracker: UsageTracker
    _history: list[dict[str, Any]]
    _summary: str | None
    _steering_queue: deque[str]
    _steering_lock: threading.Lock
    _memory_lock: threading.Lock

    def save_state(self) -> dict[str, Any]:
        """The state as plain JSON data, with a ``version`` field."""
        with self._steering_lock:
            steering = list(self._steering_queue)
        with self._memory_lock:
            summary = self._summary
        return {
            "version": STATE_VERSION,
            "session_id": self.session_id,
            "history": copy.deepcopy(self._history),
            "usage": {m: dataclasses.asdict(u) for m, u in self.usage_tracker.by_model.items()},
            "summary": summary,
            "pending_steering": steering,
        }

    @_instance_or_class_method
    def load_state(self: Any, cls: type, state: Mapping[str, Any], **agent_kwargs: Any) -> Any:
        """Restore ``state`` onto this agent, or (called on the class) onto a new one.

        Raises :class:`StateVersionError` for a state of an unknown version.
        """
        if not isinstance(state, Mapping):
            raise StateVersionError("agent state must be a dict as returned by save_state()")
        version = state.get("version")
        if version != STATE_VERSION:
            raise StateVersionError(
                f"agent state version {version!r} is not supported (this release reads "
                f"version {STATE_VERSION})"
            )
        agent = cls(**agent_kwargs) if self is None else self
        history = state.get("history") or []
        if not isinstance(history, list) or not all(isinstance(m, dict) for m in history):
            raise StateVersionError("agent state 'history' must be a list of message dicts")
        agent._history = copy.deepcopy(history)
        agent.usage_tracker.reset()
        for model, usage in (state.get("usage") or {}).items():
            agent.usage_tracker.add(model, _stored_usage(model, usage))
        with agent._memory_lock:
            agent._summary = state.get("summary")
        with agent._steering_lock:
            agent._steering_queue.clear()
            agent._steering_queue.extend(str(t) for t in state.get("pending_steering") or [])
        return agent


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
