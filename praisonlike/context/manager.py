"""ContextManager: fits each request into the model's input budget."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from praisonlike.context.compaction_job import CompactionJob, finalise, unchanged
from praisonlike.context.config import ContextConfig
from praisonlike.context.memo import HistoryMemo
from praisonlike.context.messages import Message, role_of, text_length
from praisonlike.context.prepared import Prepared
from praisonlike.context.router import Route, choose_route
from praisonlike.context.strategies import (
    drop_oldest_tools,
    insurance_cut,
    sliding_window,
    truncate,
)
from praisonlike.context.summary import (
    SummaryPlan,
    apply_summary,
    build_summary_request,
    fit_summary,
    plan_conversation,
    summary_pair_tokens,
    with_summary,
)
from praisonlike.context.summary_cache import SummaryCache
from praisonlike.context.tokens import REPLY_PRIMING, TokenCounter
from praisonlike.context.truncation import truncate_oversize_tools
from praisonlike.context.turns import split_turns
from praisonlike.context.window import context_window
from praisonlike.errors import ConfigurationError
from praisonlike.models.config import LLMConfig

INSURANCE_RATIO = 0.80
SUMMARY_INPUT_RATIO = 0.60

StrategyFunction = Callable[[list[Message], int, TokenCounter, ContextConfig], list[Message]]

_STRATEGIES: dict[str, StrategyFunction] = {
    "truncate": lambda messages, budget, counter, _: truncate(messages, budget, counter),
    "sliding_window": lambda messages, _, __, config: sliding_window(
        messages, config.keep_last_turns
    ),
    "drop_oldest_tools": lambda messages, budget, counter, _: drop_oldest_tools(
        messages, budget, counter
    ),
}


@dataclass(frozen=True)
class Budgets:
    """The token thresholds of one manager (all include the tool schemas)."""

    window: int
    trigger: int
    target: int
    hard_cap: int
    insurance: int


class ContextManager:
    """Routes and compacts requests for one model.

    Thread-safe as far as its :class:`TokenCounter` is; keep one manager per
    model so token counts cached during one turn are reused by the next.
    Messages are never mutated; rewritten messages are shallow copies.

    With ``summarise`` the manager remembers its last summary: while the
    conversation starts with the turns it covered, the same summary is sent
    again (no summary call) as long as the request stays within ``trigger``,
    as if the compacted conversation had been kept; past that, only the turns
    dropped since are summarised, together with the previous summary.

    Between requests the manager remembers the token counts of the last
    message list, so a history that only grew is measured only at its end. A
    message changed in place is noticed and measured again, unless
    ``trust_identity=True``: then a message that is the same object as last
    time is taken as unchanged without comparing its content, which keeps the
    cost of a long history flat. Pass it only when messages, once sent, are
    never edited in place (build a new dict instead); an agent does so.

    No token is counted (and no encoding loaded) while an upper bound of the
    request (:meth:`TokenCounter.bound_message`, the UTF-8 length of its
    texts) is within ``trigger`` and no tool result is over the limit: such a
    request fits. From the first request the bound does not prove to fit,
    requests are counted exactly, until :meth:`forget_history`.
    """

    def __init__(
        self,
        model: str,
        config: ContextConfig,
        *,
        counter: TokenCounter | None = None,
        trust_identity: bool = False,
    ) -> None:
        self.model = model
        self.config = config
        self.counter = counter if counter is not None else TokenCounter(model)
        self._window: int | None = None
        self._budgets: tuple[ContextConfig, Budgets] | None = None
        self._trust_identity = trust_identity
        self._tools_memo: list[tuple[tuple[dict[str, Any], ...], int]] = [((), 0), ((), 0)]
        self._history = HistoryMemo(self._measure, width=2, trust_identity=trust_identity)
        self._bounds = HistoryMemo(self._measure_bound, width=2, trust_identity=trust_identity)
        self._exact = False
        self._summaries = SummaryCache()

    @property
    def window(self) -> int:
        """The input budget: the context window minus ``reserve_output_tokens``.

        Computed on first use (it may load LiteLLM's model map). Raises
        ConfigurationError when the reserve leaves no room for input.
        """
        if self._window is None:
            size = context_window(self.model, self.config)
            budget = size - self.config.reserve_output_tokens
            if budget <= 0:
                raise ConfigurationError(
                    f"reserve_output_tokens ({self.config.reserve_output_tokens}) leaves no "
                    f"input budget in the {size}-token window of {self.model!r}"
                )
            self._window = budget
        return self._window

    @property
    def budgets(self) -> Budgets:
        """The thresholds for :attr:`config` and :attr:`window` (built once per config)."""
        config = self.config
        if self._budgets is None or self._budgets[0] is not config:
            window = self.window
            budgets = Budgets(
                window=window,
                trigger=int(config.trigger * window),
                target=int(config.target * window),
                hard_cap=int(config.hard_cap * window),
                insurance=int(min(INSURANCE_RATIO, config.hard_cap) * window),
            )
            self._budgets = (config, budgets)
        return self._budgets[1]

    def route(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]] = ()) -> Route:
        """The route :meth:`prepare` would take for this request."""
        budgets = self.budgets
        if self._fits_by_bound(messages, tools):
            return Route.FITS
        return self._job(messages, tools, budgets.target, budgets.hard_cap, budgets.insurance).route

    def prepare(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]] = ()
    ) -> Prepared:
        """The request to send for ``messages`` and ``tools``.

        Never raises, except ConfigurationError from :attr:`window`: a failing
        strategy falls back to the insurance cut (``report.failed`` says why),
        and should even that fail the messages are returned unchanged.
        """
        budgets = self.budgets
        try:
            if self._fits_by_bound(messages, tools):
                return Prepared(messages=list(messages), report=None)
            job = self._job(messages, tools, budgets.target, budgets.hard_cap, budgets.insurance)
            if job.route is Route.FITS:
                return Prepared(messages=job.original, report=None)
            if job.route is Route.TRUNCATE_TOOLS:
                return finalise(self.counter, job, job.work, None)
            return self._compact(job, self.config.strategy)
        except Exception as exc:
            return unchanged(messages, exc)

    def emergency(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]] = (),
        *,
        ratio: float = 0.70,
    ) -> Prepared:
        """Compact to ``ratio`` of the budget whatever the estimate says.

        For a provider's context-length error: the estimate was too low, so the
        request is compacted and, if needed, cut hard to ``ratio * window``.
        Raises ValueError unless ``0 < ratio <= 1``; otherwise never raises.
        """
        if not 0 < ratio <= 1:
            raise ValueError(f"ratio must be in (0, 1], got {ratio}")
        budget = int(ratio * self.window)
        try:
            job = self._job(messages, tools, budget, budget, budget, forced=True)
            return self._compact(job, self.config.strategy)
        except Exception as exc:
            return unchanged(messages, exc)

    def forget_history(self, keep_counts: int = 64) -> None:
        """Let go of what the manager remembers about past requests.

        For a conversation that was cleared: the remembered history and
        summary are dropped, and the token counter keeps only its
        ``keep_counts`` most recently used message counts (the system prompt
        among them). The model's window and the tool-schema counts are kept.
        """
        self._history.reset()
        self._bounds.reset()
        self._exact = False
        self._summaries.clear()
        self.counter.trim(keep_counts)

    def _measure(self, message: Message) -> tuple[int, int]:
        return self.counter.count_message(message), self._oversize(message)

    def _measure_bound(self, message: Message) -> tuple[int, int]:
        return self.counter.bound_message(message), self._oversize(message)

    def _oversize(self, message: Message) -> int:
        """1 for a tool result longer than ``tool_output_limit``, else 0."""
        if role_of(message) != "tool":
            return 0
        return int(text_length(message) > self.config.tool_output_limit)

    def _fits_by_bound(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> bool:
        """True when the request's upper bound proves it fits (see the class docstring)."""
        if self._exact:
            return False
        bound, oversize = self._bounds.totals(messages)
        total = REPLY_PRIMING + bound + self._tools_tokens(tools, bound=True)
        if not oversize and total <= self.budgets.trigger:
            return True
        self._exact = True
        self._bounds.reset()
        return False

    def _tools_tokens(self, tools: Sequence[dict[str, Any]], *, bound: bool = False) -> int:
        """The schemas' tokens (or their upper bound); when trusting identity, the same
        schema objects as last time are not serialised again."""
        measure = self.counter.bound_tools if bound else self.counter.count_tools
        if not self._trust_identity:
            return measure(tools)
        known, tokens = self._tools_memo[bound]
        if len(known) == len(tools) and all(a is b for a, b in zip(known, tools, strict=True)):
            return tokens
        tokens = measure(tools)
        self._tools_memo[bound] = (tuple(tools), tokens)
        return tokens

    def _job(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        budget: int,
        cut_above: int,
        cut_to: int,
        *,
        forced: bool = False,
    ) -> CompactionJob:
        counter, config = self.counter, self.config
        tools_tokens = self._tools_tokens(tools)
        message_tokens, oversize_count = self._history.totals(messages)
        tokens = REPLY_PRIMING + message_tokens + tools_tokens
        oversize = oversize_count > 0
        original = list(messages)
        work, truncated = (
            truncate_oversize_tools(messages, config.tool_output_limit)
            if oversize
            else (original, 0)
        )
        work_tokens = (
            counter.count_messages(work) if oversize else REPLY_PRIMING + message_tokens
        )
        if forced:
            route = Route.COMPACT_THEN_TRUNCATE if oversize else Route.COMPACT
        else:
            route = choose_route(
                tokens,
                trigger_tokens=self.budgets.trigger,
                target_tokens=budget,
                has_oversize_tools=oversize,
                tokens_after_tool_cut=work_tokens + tools_tokens,
            )
        reuse_budget = budget if forced else self.budgets.trigger
        return CompactionJob(
            original,
            work,
            route,
            tools_tokens,
            tokens,
            truncated,
            budget,
            cut_above,
            cut_to,
            reuse_budget,
            work_tokens,
        )

    def _compact(self, job: CompactionJob, strategy: str, failed: str | None = None) -> Prepared:
        budget = job.budget - job.tools_tokens
        try:
            if strategy == "summarise":
                return self._start_summary(job)
            result = _STRATEGIES[strategy](job.work, budget, self.counter, self.config)
        except Exception as exc:
            error = f"{strategy} failed: {type(exc).__name__}: {exc}"
            failed = f"{failed}; {error}" if failed else error
            cut_budget = min(job.budget, job.cut_to) - job.tools_tokens
            result = insurance_cut(job.work, cut_budget, self.counter)
            return finalise(self.counter, job, result, strategy, failed=failed, insurance=True)
        return finalise(self.counter, job, result, strategy, failed=failed)

    def _start_summary(self, job: CompactionJob) -> Prepared:
        """Reuse the remembered summary if the request then fits
        ``reuse_budget``; else plan a summary to ``budget``, asking only about
        the turns the remembered one does not cover."""
        counter = self.counter
        budget = job.budget - job.tools_tokens
        conversation = split_turns(job.work)
        previous = self._summaries.lookup(conversation)
        if previous is not None:
            reused = with_summary(conversation.messages(previous.turns), previous.text)
            tokens = (
                job.work_tokens - previous.tokens + summary_pair_tokens(previous.text, counter)
            )
            if tokens + job.tools_tokens <= job.reuse_budget:
                reuse_job = dataclasses.replace(job, budget=job.reuse_budget)
                return finalise(self.counter, reuse_job, reused, "summarise", tokens=tokens)
        plan = plan_conversation(conversation, budget, counter)
        if not plan.dropped:
            return finalise(self.counter, job, plan.kept, "summarise")
        if previous is not None and len(plan.dropped) <= previous.covered:
            kept = conversation.messages(previous.turns)
            result = apply_summary(kept, previous.text, budget, counter)
            return finalise(self.counter, job, result, "summarise")
        new = plan.dropped[previous.covered :] if previous is not None else plan.dropped
        request = build_summary_request(
            new,
            counter,
            summary_tokens=plan.summary_tokens,
            max_tokens=self._summary_input_tokens(),
            previous_summary=previous.text if previous is not None else None,
        )
        pending = _PendingSummary(self, job, plan)
        return finalise(self.counter, job, plan.kept, "summarise", request=request, pending=pending)

    def _summary_input_tokens(self) -> int:
        summary = self.config.summary_model
        model = summary.model if isinstance(summary, LLMConfig) else summary
        if model is None or model == self.model:
            window = self.window
        else:
            unpinned = dataclasses.replace(self.config, max_context_tokens=None)
            window = context_window(model, unpinned)
        return int(SUMMARY_INPUT_RATIO * window)


@dataclass(frozen=True)
class _PendingSummary:
    manager: ContextManager
    job: CompactionJob
    plan: SummaryPlan

    def finish(self, summary_text: str) -> Prepared:
        if not summary_text or not summary_text.strip():
            return self.fallback("the summary model returned an empty summary")
        manager, plan = self.manager, self.plan
        try:
            text = fit_summary(
                plan.kept, summary_text, self.job.budget - self.job.tools_tokens, manager.counter
            )
        except Exception as exc:
            return self.fallback(f"{type(exc).__name__}: {exc}")
        if text is None:
            return finalise(manager.counter, self.job, list(plan.kept), "summarise")
        manager._summaries.remember(plan.dropped, text, manager.counter)
        return finalise(manager.counter, self.job, with_summary(plan.kept, text), "summarise")

    def fallback(self, error: str) -> Prepared:
        return self.manager._compact(self.job, "drop_oldest_tools", f"summarise failed: {error}")
