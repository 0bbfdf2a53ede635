"""Token usage and cost: one value type, a running sum of it, and a thread-safe tracker.

A cost of ``None`` means "unknown" (the model has no known price), never 0.
Adding a known cost to an unknown one keeps the known part and records that
some of it is unknown in ``cost_complete``. Token counts are the provider's,
except for a call stopped (cancelled, or past its deadline) before the provider
reported its usage: its tokens are estimated and ``estimated`` is True.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens and cost of one or more LLM calls (``dataclasses.asdict`` gives plain data).

    ``cached_tokens`` (read from the provider's prompt cache) and
    ``cache_write_tokens`` (written to it, e.g. Anthropic's cache creation) are
    parts of ``prompt_tokens``, billed at their own rates where the model has them.

    ``estimated`` is True when some of the counts are estimates: a call stopped
    after its request was sent and before the provider reported its usage counts
    its prompt with the agent's token counter and its completion from the text
    streamed until the stop (its cost is priced from those estimates).
    """

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None
    cost_complete: bool = True
    estimated: bool = False

    def with_cost(self, cost: float | None) -> Usage:
        """This usage with ``cost`` (the rest as it is; ``dataclasses.replace`` is slower)."""
        return Usage(
            requests=self.requests,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            total_tokens=self.total_tokens,
            cached_tokens=self.cached_tokens,
            cache_write_tokens=self.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens,
            cost=cost,
            cost_complete=self.cost_complete,
            estimated=self.estimated,
        )

    def __add__(self, other: Usage) -> Usage:
        if self.cost is None and other.cost is None:
            cost = None
        else:
            cost = (self.cost or 0.0) + (other.cost or 0.0)
        complete = (
            self.cost_complete
            and other.cost_complete
            and (self.requests == 0 or self.cost is not None)
            and (other.requests == 0 or other.cost is not None)
        )
        return Usage(
            requests=self.requests + other.requests,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cost=cost,
            cost_complete=complete,
            estimated=self.estimated or other.estimated,
        )


_NOTHING = Usage()


Priced = tuple[Usage, float | None]
"""A usage and the cost it is counted at."""

_TRACKER_PENDING = 8
"""Usages each sum of a :class:`UsageTracker` keeps unsummed at most."""


def _folded(start: Usage, added: Iterable[Priced]) -> Usage:
    """``start`` plus each usage at its cost, in order: the same as adding
    ``usage.with_cost(cost)`` one by one with ``+``."""
    requests, prompt, completion = start.requests, start.prompt_tokens, start.completion_tokens
    total, cached, written = start.total_tokens, start.cached_tokens, start.cache_write_tokens
    reasoning, cost = start.reasoning_tokens, start.cost
    complete, estimated = start.cost_complete, start.estimated
    for usage, usage_cost in added:
        complete = (
            complete
            and usage.cost_complete
            and (requests == 0 or cost is not None)
            and (usage.requests == 0 or usage_cost is not None)
        )
        if cost is not None or usage_cost is not None:
            cost = (cost or 0.0) + (usage_cost or 0.0)
        requests += usage.requests
        prompt += usage.prompt_tokens
        completion += usage.completion_tokens
        total += usage.total_tokens
        cached += usage.cached_tokens
        written += usage.cache_write_tokens
        reasoning += usage.reasoning_tokens
        estimated = estimated or usage.estimated
    return Usage(
        requests=requests,
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        cached_tokens=cached,
        cache_write_tokens=written,
        reasoning_tokens=reasoning,
        cost=cost,
        cost_complete=complete,
        estimated=estimated,
    )


class RunningUsage:
    """A sum of usages, each counted at a cost given with it.

    ``add`` only notes the usage; :attr:`value` sums what was added since it
    was last read (:func:`_folded`), or ``add`` does once ``limit`` usages wait,
    so a run that reads its total once pays for one sum, not one per call.
    Not thread-safe on its own.
    """

    __slots__ = ("_limit", "_pending", "_value")

    def __init__(self, limit: int = 256) -> None:
        self._limit = limit
        self._pending: list[Priced] = []
        self._value = _NOTHING

    def add(self, usage: Usage, cost: float | None) -> None:
        """Count ``usage`` at ``cost`` (whatever its own ``cost`` says)."""
        self._pending.append((usage, cost))
        if len(self._pending) >= self._limit:
            self._settle()

    @property
    def value(self) -> Usage:
        """The sum so far (``Usage()`` before any ``add``)."""
        if self._pending:
            self._settle()
        return self._value

    def _settle(self) -> None:
        self._value = _folded(self._value, self._pending)
        self._pending = []


class UsageTracker:
    """Accumulates usage per model under a lock; safe from any thread or task.

    Several agents may share one tracker (``Agent(usage_tracker=...)``); totals
    stay exact under concurrent updates. It may live as long as the process,
    so it keeps only a few usages unsummed (:data:`_TRACKER_PENDING`).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._total = RunningUsage(_TRACKER_PENDING)
        self._by_model: dict[str, RunningUsage] = {}

    def add(self, model: str, usage: Usage) -> None:
        """Add ``usage`` (counted at its own ``cost``) to ``model`` and the total."""
        self.add_priced(model, usage, usage.cost)

    def add_priced(self, model: str, usage: Usage, cost: float | None) -> None:
        """Add ``usage`` counted at ``cost`` (whatever its own ``cost`` says)."""
        with self._lock:
            self._total.add(usage, cost)
            running = self._by_model.get(model)
            if running is None:
                running = self._by_model[model] = RunningUsage(_TRACKER_PENDING)
            running.add(usage, cost)

    @property
    def total(self) -> Usage:
        with self._lock:
            return self._total.value

    @property
    def by_model(self) -> Mapping[str, Usage]:
        with self._lock:
            return {model: running.value for model, running in self._by_model.items()}

    def reset(self) -> None:
        with self._lock:
            self._total = RunningUsage(_TRACKER_PENDING)
            self._by_model = {}
