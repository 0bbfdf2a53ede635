"""Per-run accounting: cost of each call, totals, and the budget gate.

Every LLM call of a turn is recorded here (tool rounds, retries, summaries),
streamed or not, and a call stopped by a cancel or the deadline after its
request was sent (with the usage the server reported, else an estimate flagged
``Usage.estimated``, never 0); the agent-wide :class:`UsageTracker` is updated under its
lock at the same moment, so totals are exact under concurrency.

``max_tokens_per_run`` counts this run's tokens; ``max_budget`` counts the
cost on the tracker (every turn of the agent, or of all agents sharing it).
Both are checked before every call (the gate) and after it. ``"warn"`` emits
one warning per budget per run. A call to a model with no known price cannot
be held to ``max_budget``: the gate lets it through and warns once per run and
model, whatever ``on_budget_exceeded`` says, rather than counting it as free.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from praisonlike.loop.commands import CutShort
from praisonlike.models.config import ExecutionConfig
from praisonlike.models.pricing import cost_of, resolve_price
from praisonlike.models.usage import RunningUsage, Usage, UsageTracker

CountTokens = Callable[[Sequence[dict[str, Any]], Sequence[dict[str, Any]]], int]

#: Output tokens assumed by the budget gate when the call sets no ``max_tokens``.
OUTPUT_RESERVE_TOKENS = 16


@dataclass(frozen=True)
class BudgetVerdict:
    """What the loop must do about a budget: raise ``BudgetExceededError`` or warn."""

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
        self._warned: set[str] = set()
        self._limited = execution.max_budget is not None or execution.max_tokens_per_run is not None
        self._usage = RunningUsage()

    @property
    def usage(self) -> Usage:
        """The run's usage so far, priced."""
        return self._usage.value

    def record(self, model: str, usage: Usage) -> float | None:
        """Price ``usage`` for ``model`` and add it to the run and the tracker; return
        its cost (``None`` when the model's price is unknown)."""
        cost = cost_of(model, usage, self._prices)
        self._usage.add(usage, cost)
        self._tracker.add_priced(model, usage, cost)
        return cost

    def record_cut_short(
        self,
        model: str,
        cut: CutShort,
        *,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        count: CountTokens,
    ) -> None:
        """Record a call stopped after its request was sent.

        The server's usage when it reported one; else an estimate flagged
        ``estimated``: the request's ``messages`` and ``tools`` counted with
        ``count`` (the agent's token counter), and the text streamed until the
        stop as completion tokens.
        """
        usage = cut.usage
        if usage is None:
            prompt = count(messages, tools)
            completion = 0
            if cut.text:
                empty = count([{"role": "assistant", "content": ""}], [])
                completion = max(count([{"role": "assistant", "content": cut.text}], []) - empty, 0)
            usage = Usage(
                requests=1,
                prompt_tokens=prompt,
                completion_tokens=completion,
                total_tokens=prompt + completion,
                estimated=True,
            )
        self.record(model, usage)

    @property
    def has_limits(self) -> bool:
        """Whether a budget is set (the gate, which counts the request's tokens, is skipped
        otherwise)."""
        return self._limited

    def gate_before(
        self, model: str, prompt_tokens: int, max_output: int | None
    ) -> BudgetVerdict | None:
        """The hard gate before a call: refuse when the least it can cost passes a budget.

        The least cost is the prompt estimate at the input price plus ``max_output``
        (or :data:`OUTPUT_RESERVE_TOKENS`) at the output price. ``None`` lets the
        call through; a verdict's ``spent`` is what the run would have used.
        """
        verdicts = [self._tokens_before(prompt_tokens)]
        budget = self._execution.max_budget
        if budget is not None:
            verdicts.append(self._money_before(model, prompt_tokens, max_output, budget))
        return self._strongest(verdicts)

    def check_after(self) -> BudgetVerdict | None:
        """After a call: has spending passed a budget?"""
        if not self._limited:
            return None
        verdicts: list[BudgetVerdict | None] = []
        limit_tokens = self._execution.max_tokens_per_run
        used = self.usage.total_tokens
        if limit_tokens is not None and used > limit_tokens:
            verdicts.append(
                self._verdict(
                    "tokens",
                    float(used),
                    float(limit_tokens),
                    f"the run used {used} tokens, over max_tokens_per_run={limit_tokens}",
                )
            )
        budget = self._execution.max_budget
        spent = self._tracker.total.cost or 0.0
        if budget is not None and spent > budget:
            verdicts.append(
                self._verdict(
                    "money", spent, budget, f"${spent:.6f} spent, over max_budget ${budget:.6f}"
                )
            )
        return self._strongest(verdicts)

    def _tokens_before(self, prompt_tokens: int) -> BudgetVerdict | None:
        limit = self._execution.max_tokens_per_run
        used = self.usage.total_tokens
        if limit is None or used + prompt_tokens <= limit:
            return None
        return self._verdict(
            "tokens",
            float(used + prompt_tokens),
            float(limit),
            f"the next call needs about {prompt_tokens} prompt tokens; the run has used "
            f"{used} of max_tokens_per_run={limit}",
        )

    def _money_before(
        self, model: str, prompt_tokens: int, max_output: int | None, budget: float
    ) -> BudgetVerdict | None:
        price = resolve_price(model, self._prices)
        spent = self._tracker.total.cost or 0.0
        least = 0.0
        if price is not None:
            output = max_output if max_output is not None else OUTPUT_RESERVE_TOKENS
            least = (prompt_tokens * price.input_per_mtok + output * price.output_per_mtok) / 1e6
        if spent + least > budget:
            return self._verdict(
                "money",
                spent + least,
                budget,
                f"the next call would cost at least ${least:.6f}; ${spent:.6f} of the "
                f"max_budget ${budget:.6f} is spent",
            )
        if price is not None:
            return None
        return self._warn_once(
            f"unpriced:{model}",
            BudgetVerdict(
                "warn",
                spent,
                budget,
                f"the price of {model!r} is unknown, so max_budget ${budget:.6f} cannot be "
                "enforced for its calls; set Agent(model_prices=...) to enforce it",
            ),
        )

    def _verdict(self, key: str, spent: float, limit: float, message: str) -> BudgetVerdict | None:
        action = self._execution.on_budget_exceeded
        if callable(action):
            return None if action(spent, limit) else BudgetVerdict("stop", spent, limit, message)
        verdict = BudgetVerdict(action, spent, limit, message)
        return self._warn_once(key, verdict) if action == "warn" else verdict

    def _warn_once(self, key: str, verdict: BudgetVerdict) -> BudgetVerdict | None:
        if key in self._warned:
            return None
        self._warned.add(key)
        return verdict

    @staticmethod
    def _strongest(verdicts: list[BudgetVerdict | None]) -> BudgetVerdict | None:
        found = [v for v in verdicts if v is not None]
        stops = [v for v in found if v.action == "stop"]
        chosen = stops or found
        return chosen[0] if chosen else None
