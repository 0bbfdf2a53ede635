"""Per-run accounting: cost of each call, totals, and the budget gate.

Every LLM call of a turn is recorded here (tool rounds, retries, summaries),
streamed or not; the agent-wide :class:`UsageTracker` is updated under its
lock at the same moment, so totals are exact under concurrency.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from praisonlike.llm.config import ExecutionConfig
from praisonlike.llm.pricing import resolve_price, usage_with_cost
from praisonlike.llm.usage import Usage, UsageTracker

#: Output tokens assumed by the budget gate when the call sets no ``max_tokens``.
OUTPUT_RESERVE_TOKENS = 16


@dataclass(frozen=True)
class BudgetVerdict:
    action: Literal["stop", "warn"]
    spent: float
    limit: float
    message: str


class RunAccounting:
    """Usage and cost of one run, mirrored into the agent's tracker."""

    def __init__(
        self,
        tracker: UsageTracker,
        execution: ExecutionConfig,
        prices: Mapping[str, Mapping[str, float]] | None = None,
    ) -> None:
        self._tracker = tracker
        self._execution = execution
        self._prices = prices
        self.usage = Usage()

    def record(self, model: str, usage: Usage) -> Usage:
        """Price ``usage`` for ``model``, add it to the run and the tracker; return it priced."""
        priced = usage_with_cost(model, usage, self._prices)
        self.usage = self.usage + priced
        self._tracker.add(model, priced)
        return priced

    def _verdict(self, spent: float, limit: float, message: str) -> BudgetVerdict | None:
        action = self._execution.on_budget_exceeded
        if callable(action):
            return None if action(spent, limit) else BudgetVerdict("stop", spent, limit, message)
        return BudgetVerdict(action, spent, limit, message)

    def gate_before(
        self, model: str, prompt_tokens: int, max_output: int | None
    ) -> BudgetVerdict | None:
        """The hard gate before a call: refuse when the least it can cost passes a budget."""
        output = max_output if max_output is not None else OUTPUT_RESERVE_TOKENS
        limit_tokens = self._execution.max_tokens_per_run
        if limit_tokens is not None and self.usage.total_tokens + prompt_tokens > limit_tokens:
            used = float(self.usage.total_tokens)
            return self._verdict(
                used + prompt_tokens,
                float(limit_tokens),
                f"the next call needs about {prompt_tokens} prompt tokens; the run has used "
                f"{self.usage.total_tokens} of max_tokens_per_run={limit_tokens}",
            )
        budget = self._execution.max_budget
        if budget is None:
            return None
        price = resolve_price(model, self._prices)
        spent = self._tracker.total.cost or 0.0
        least = 0.0
        if price is not None:
            least = (prompt_tokens * price.input_per_mtok + output * price.output_per_mtok) / 1e6
        if spent + least > budget:
            return self._verdict(
                spent + least,
                budget,
                f"the next call would cost at least ${least:.6f}; ${spent:.6f} of the "
                f"max_budget ${budget:.6f} is spent",
            )
        return None

    def check_after(self) -> BudgetVerdict | None:
        """After a call: has spending passed a budget?"""
        limit_tokens = self._execution.max_tokens_per_run
        if limit_tokens is not None and self.usage.total_tokens > limit_tokens:
            return self._verdict(
                float(self.usage.total_tokens),
                float(limit_tokens),
                f"the run used {self.usage.total_tokens} tokens, over max_tokens_per_run",
            )
        budget = self._execution.max_budget
        spent = self._tracker.total.cost or 0.0
        if budget is not None and spent > budget:
            return self._verdict(spent, budget, f"${spent:.6f} spent, over max_budget ${budget}")
        return None
