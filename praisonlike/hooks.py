"""Hooks: user code that runs at fixed points of a turn and may change it.

Register with ``Agent(hooks={HookPoint.BEFORE_TOOL: fn})`` or
``@agent.on(HookPoint.BEFORE_TOOL)``. A hook receives a :class:`HookContext`
and may return a :class:`HookResult` (or ``None`` to change nothing). Sync and
async functions both work, under ``chat`` and ``achat`` alike: under ``achat``
an async hook is awaited on the caller's event loop, under ``chat`` on the
private bridge loop. Several hooks of one event run in registration order, each
seeing the previous one's changes.

What a result may do, per event:

- ``BEFORE_LLM``: replace ``messages`` (a copy of the request, so in-place
  edits count too and never reach the history); ``block=True`` stops the
  call (the turn answers ``output`` if given, else fails with :class:`HookError`).
- ``BEFORE_TOOL``: replace ``arguments``; ``deny=True`` answers the model with
  a "denied" tool error instead of running the tool.
- ``AFTER_TOOL``: replace ``result`` (the text the model sees).
- every other event: observe only.

A hook that raises fails the turn with :class:`HookError` naming the hook,
unless it was registered with ``fail_open=True`` (then it is logged and skipped).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from praisonlike._runtime.config_checks import positional_problem
from praisonlike._runtime.deprecation import renamed_attributes
from praisonlike._runtime.loggers import get_logger
from praisonlike.errors import (
    ConfigurationError,
    ConfigurationTypeError,
    HookError,
    RunCancelled,
    RunTimeout,
)
from praisonlike.loop.user_code import AwaitUserCode


class HookPoint(str, Enum):
    """The fixed points of a turn where hooks run.

    Formerly ``HookEvent``: that name still works, with a DeprecationWarning.
    """

    BEFORE_AGENT = "before_agent"
    AFTER_AGENT = "after_agent"
    BEFORE_LLM = "before_llm"
    AFTER_LLM = "after_llm"
    BEFORE_TOOL = "before_tool"
    AFTER_TOOL = "after_tool"
    ON_RETRY = "on_retry"
    MODEL_FALLBACK = "model_fallback"
    BEFORE_COMPACTION = "before_compaction"
    AFTER_COMPACTION = "after_compaction"
    ON_ERROR = "on_error"


@dataclass(frozen=True)
class HookContext:
    """What a hook sees. Fields not relevant to the event are None."""

    event: HookPoint
    run_id: str
    agent: Any = None
    prompt: str | None = None
    model: str | None = None
    messages: list[dict[str, Any]] | None = None
    response: Any = None
    tool_name: str | None = None
    tool_call_id: str | None = None
    arguments: dict[str, Any] | None = None
    result: str | None = None
    is_error: bool | None = None
    error: BaseException | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HookResult:
    """A hook's changes; unset fields change nothing."""

    messages: list[dict[str, Any]] | None = None
    arguments: dict[str, Any] | None = None
    result: str | None = None
    block: bool = False
    deny: bool = False
    reason: str | None = None
    output: str | None = None


NO_CHANGES = HookResult()
"""The result of no hooks, or of hooks that changed nothing (frozen, so shared)."""

_ACTED_ON: Mapping[HookPoint, frozenset[str]] = {
    HookPoint.BEFORE_LLM: frozenset({"messages", "block", "reason", "output"}),
    HookPoint.BEFORE_TOOL: frozenset({"arguments", "deny", "reason"}),
    HookPoint.AFTER_TOOL: frozenset({"result"}),
}
"""The :class:`HookResult` fields each point acts on; at the others hooks only observe."""

_KINDS: Mapping[str, tuple[type, ...]] = {
    "messages": (list,),
    "arguments": (dict,),
    "result": (str,),
    "block": (bool,),
    "deny": (bool,),
    "reason": (str,),
    "output": (str,),
}


def _unusable(event: HookPoint, result: HookResult) -> str | None:
    """Why ``result`` cannot be applied at ``event`` (a field the point ignores, so a
    block or a denial would silently not happen; or a value of the wrong kind)."""
    given = {name: value for name, value in vars(result).items() if value not in (None, False)}
    ignored = sorted(set(given) - _ACTED_ON.get(event, frozenset()))
    if ignored:
        acted = ", ".join(sorted(_ACTED_ON.get(event, ()))) or "nothing (it only observes)"
        return f"set {', '.join(ignored)}, which {event.name} does not act on (it acts on {acted})"
    for name, value in given.items():
        if not isinstance(value, _KINDS[name]):
            return f"set {name} to a {type(value).__name__}, not a {_KINDS[name][0].__name__}"
    messages = given.get("messages")
    if messages is not None and (not messages or not all(isinstance(m, dict) for m in messages)):
        return "set messages to something other than a non-empty list of message dicts"
    return None


HookFunction = Callable[[HookContext], Any]


@dataclass(frozen=True)
class _Registered:
    function: HookFunction
    fail_open: bool

    @property
    def label(self) -> str:
        return getattr(self.function, "__qualname__", repr(self.function))


def _merge(base: HookResult, new: HookResult) -> HookResult:
    changes = {k: v for k, v in vars(new).items() if v not in (None, False)}
    return replace(base, **changes)


def _apply(context: HookContext, result: HookResult) -> HookContext:
    changes: dict[str, Any] = {}
    if result.messages is not None:
        changes["messages"] = result.messages
    if result.arguments is not None:
        changes["arguments"] = result.arguments
    if result.result is not None:
        changes["result"] = result.result
    return replace(context, **changes) if changes else context


def hook_point(value: HookPoint | str) -> HookPoint:
    """``value`` as a :class:`HookPoint` (its value, like ``"before_tool"``, works too).

    Raises :class:`ConfigurationError` listing the points for anything else.
    """
    if isinstance(value, HookPoint):
        return value
    try:
        return HookPoint(value)
    except ValueError:
        points = ", ".join(point.value for point in HookPoint)
        raise ConfigurationError(f"unknown hook point {value!r}; one of {points}") from None


class HookRunner:
    """The registered hooks of an agent; runs them for one event at a time."""

    def __init__(self) -> None:
        self._hooks: dict[HookPoint, list[_Registered]] = {}
        self.points: set[HookPoint] = set()
        """The points with at least one hook (the same set object for the runner's life)."""

    def register(
        self, event: HookPoint, function: HookFunction, *, fail_open: bool = False
    ) -> None:
        event = hook_point(event)
        if not callable(function):
            raise ConfigurationTypeError(f"a hook must be callable, not {type(function).__name__}")
        registered = _Registered(function, fail_open)
        problem = positional_problem(function, 1)
        if problem is not None:
            raise ConfigurationError(
                f"hook {registered.label} for {event.value} must take one argument, "
                f"the HookContext: {problem}"
            )
        self._hooks.setdefault(event, []).append(registered)
        self.points.add(event)

    def add_mapping(self, hooks: Mapping[Any, HookFunction | Sequence[HookFunction]]) -> None:
        for event, functions in hooks.items():
            point = hook_point(event)
            if not callable(functions) and not isinstance(functions, Sequence):
                raise ConfigurationTypeError(
                    f"hooks[{point.name}] must be a function or a list of functions, "
                    f"not {type(functions).__name__}"
                )
            for function in [functions] if callable(functions) else list(functions):
                self.register(point, function)

    def has(self, event: HookPoint) -> bool:
        return event in self.points

    def _failed(self, hook: _Registered, event: HookPoint, exc: BaseException) -> None:
        if hook.fail_open:
            get_logger("praisonlike.hooks").warning(
                "hook %s for %s failed (fail_open): %s", hook.label, event.value, exc
            )
            return
        raise HookError(
            f"hook {hook.label} for {event.value} raised {type(exc).__name__}: {exc}",
            hook=hook.label,
        ) from exc

    def steps(self, context: HookContext) -> Generator[AwaitUserCode, None, HookResult]:
        """Run the event's hooks; return their merged result.

        A generator for the tool loop to ``yield from``: a sync hook runs at
        once (under ``achat`` on the event loop: keep it quick); an async
        hook's awaitable is yielded as :class:`AwaitUserCode` for the driver to
        settle, awaited on the caller's loop under ``achat`` and on the bridge
        loop under ``chat``. Raises :class:`HookError` naming the hook that
        raised (unless it is ``fail_open``).
        """
        merged = NO_CHANGES
        for hook in self._hooks.get(context.event, ()):
            try:
                value = hook.function(context)
                if inspect.isawaitable(value):
                    pending = AwaitUserCode(value)
                    yield pending
                    value = pending.result()
            except (HookError, RunCancelled, RunTimeout):  # the run stopped waiting for it
                raise
            except Exception as exc:
                self._failed(hook, context.event, exc)
                continue
            merged, context = self._take(hook, context, merged, value)
        return merged

    def _take(
        self, hook: _Registered, context: HookContext, merged: HookResult, value: Any
    ) -> tuple[HookResult, HookContext]:
        if value is None:
            return merged, context
        if not isinstance(value, HookResult):
            self._failed(
                hook,
                context.event,
                TypeError(f"returned {type(value).__name__}, not HookResult or None"),
            )
            return merged, context
        problem = _unusable(context.event, value)
        if problem is not None:
            self._failed(hook, context.event, TypeError(problem))
            return merged, context
        return _merge(merged, value), _apply(context, value)


__getattr__ = renamed_attributes(__name__, {"HookEvent": ("HookPoint", HookPoint)})
