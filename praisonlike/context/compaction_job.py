"""One compaction in progress, and how its result becomes a :class:`Prepared` request.

The manager measures a request into a :class:`CompactionJob` (what was sent,
the working copy with oversize tool outputs cut, the route and the budgets);
a strategy rewrites the working copy; :func:`finalise` enforces the budget
and the hard cap on the result and writes the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from praisonlike.context.messages import Message, role_of
from praisonlike.context.prepared import CompactionReport, Prepared, SummaryContinuation
from praisonlike.context.router import Route
from praisonlike.context.strategies import PLACEHOLDER, insurance_cut, truncate
from praisonlike.context.summary import is_summary_message
from praisonlike.context.tokens import TokenCounter


@dataclass(frozen=True)
class CompactionJob:
    """A measured request. Token figures include the tool schemas unless named otherwise."""

    original: list[Message]
    work: list[Message]
    route: Route
    tools_tokens: int
    tokens_before: int
    truncated: int
    budget: int
    cut_above: int
    cut_to: int
    reuse_budget: int
    work_tokens: int


def finalise(
    counter: TokenCounter,
    job: CompactionJob,
    result: list[Message],
    strategy: str | None,
    *,
    failed: str | None = None,
    insurance: bool = False,
    request: list[Message] | None = None,
    pending: SummaryContinuation | None = None,
    tokens: int | None = None,
) -> Prepared:
    """The Prepared for ``result``; ``tokens`` is its message count if known.

    A result over the job's budget is truncated, and one still over its hard
    cap is cut hard (``insurance_applied``).
    """
    budget = job.budget - job.tools_tokens
    if tokens is None:
        tokens = counter.count_messages(result)
    if job.route is not Route.TRUNCATE_TOOLS and tokens > budget:
        result = truncate(result, budget, counter)
        tokens = counter.count_messages(result)
    total = tokens + job.tools_tokens
    if total > job.cut_above:
        result = insurance_cut(result, job.cut_to - job.tools_tokens, counter)
        total = counter.count_messages(result) + job.tools_tokens
        insurance = True
    originals = {id(message) for message in job.original}
    new = [message for message in result if id(message) not in originals]
    inserted = sum(1 for message in new if is_summary_message(message))
    removed = sum(1 for m in new if role_of(m) == "tool" and m.get("content") == PLACEHOLDER)
    report = CompactionReport(
        route=job.route,
        strategy=strategy,
        tokens_before=job.tokens_before,
        tokens_after=total,
        messages_dropped=len(job.original) - (len(result) - inserted),
        tool_outputs_truncated=job.truncated,
        failed=failed,
        tool_outputs_removed=removed,
        insurance_applied=insurance,
    )
    return Prepared(result, report, summary_request=request, continuation=pending)


def unchanged(messages: Sequence[Message], exc: Exception) -> Prepared:
    """The request as given, with a report saying why preparing it failed."""
    report = CompactionReport(
        route=Route.COMPACT,
        strategy=None,
        tokens_before=0,
        tokens_after=0,
        messages_dropped=0,
        tool_outputs_truncated=0,
        failed=f"context preparation failed, request left unchanged: {type(exc).__name__}: {exc}",
    )
    return Prepared(messages=list(messages), report=report)
