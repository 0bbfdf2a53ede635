"""Token usage and cost: one value type, one thread-safe accumulator.

A cost of ``None`` means "unknown" (the model has no known price), never 0.
Adding a known cost to an unknown one keeps the known part and records that
some of it is unknown in ``cost_complete``. Token counts are the provider's,
except for a call stopped (cancelled, or past its deadline) before the provider
reported its usage: its tokens are estimated and ``estimated`` is True.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
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


class UsageTracker:
    """Accumulates usage per model under a lock; safe from any thread or task.

    Several agents may share one tracker (``Agent(usage_tracker=...)``); totals
    stay exact under concurrent updates.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._total = Usage()
        self._by_model: dict[str, Usage] = {}

    def add(self, model: str, usage: Usage) -> None:
        with self._lock:
            self._total = self._total + usage
            self._by_model[model] = self._by_model.get(model, _NOTHING) + usage

    @property
    def total(self) -> Usage:
        return self._total

    @property
    def by_model(self) -> Mapping[str, Usage]:
        with self._lock:
            return dict(self._by_model)

    def reset(self) -> None:
        with self._lock:
            self._total = Usage()
            self._by_model = {}
