"""MemoryMixin: sessions that survive the process, and a long-term summary.

With a ``session_id`` each turn is stored (query, answer, status, figures,
and one step per tool call, tool result, model response, compaction, retry,
fallback and reflection). The first turn of a session loads its recent
successful turns as history. After an answered turn the conversation summary
is updated on a background thread; it never delays or breaks the answer, and
the next turn's system prompt carries it. ``close()`` waits for it. A summary
cut at the model's ``max_tokens``, looping on a phrase, echoing its request or
over twice the length asked for is not kept (the previous one stays, and a
non-fatal ``error`` event says why).

The session itself (store, loading, recording, background work) is the
:class:`~praisonlike.agent.session.SessionBinding` part; this module holds
the summary call (:func:`update_summary`) and
:class:`MemoryMixin`, the agent's adapter over the session.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from praisonlike._runtime.loggers import get_logger
from praisonlike.agent.parts import HasParts
from praisonlike.context.summary import loops_on_a_phrase
from praisonlike.memory.config import MemoryConfig as MemoryConfig
from praisonlike.run_enums import ToolMode

if TYPE_CHECKING:
    from praisonlike.agent.conversation import Conversation
    from praisonlike.agent.parts import AgentParts
    from praisonlike.agent.spec import AgentSpec
    from praisonlike.loop.turn_spec import TurnSpec
    from praisonlike.memory.store import SessionStore
    from praisonlike.models.usage import UsageTracker


SUMMARY_WORDS = 200
"""The length the summary model is asked to keep to; a summary over twice as long is not kept."""

SUMMARY_INSTRUCTIONS = (
    "You maintain the long-term memory of a conversation between a user and an assistant. "
    "Update the summary with the new exchange: keep facts about the user, decisions, open "
    "tasks and anything needed later; drop small talk. Answer with the updated summary only, "
    f"at most {SUMMARY_WORDS} words."
)
CURRENT_LABEL = "Current summary:"
EXCHANGE_LABEL = "New exchange:"


def summary_spec(
    spec: AgentSpec, parts: AgentParts, usage_tracker: UsageTracker, run_id: str
) -> TurnSpec:
    """The summary call as a one-call turn: the summary model (if any) first, then the
    agent's models, with the agent's retries, fallbacks, budgets and usage tracker."""
    from praisonlike.loop.accounting import RunAccounting
    from praisonlike.loop.turn_spec import TurnSpec

    config = spec.memory_config
    assert config is not None
    models = parts.models.for_turn(spec.llm_config, spec.fallback_models)
    if config.summary_model:
        from praisonlike.agent.model_resolution import named_llm

        summary = named_llm(spec.llm_config, config.summary_model, "summary_model")
        models = [summary, *(m for m in models if m.model != summary.model)]
    limit = spec.execution.max_execution_time
    return TurnSpec(
        run_id=run_id,
        models=models,
        prefix=[],
        new_messages=[],
        tools=[],
        tool_mode=ToolMode.NATIVE,
        stream=False,
        max_iterations=1,
        execution=spec.execution,
        accounting=RunAccounting(usage_tracker, spec.execution, spec.model_prices),
        context=parts.contexts.for_model(spec.context_config, models[0]),
        deadline=None if limit is None else time.monotonic() + limit,
    )


def update_summary(
    spec: AgentSpec,
    parts: AgentParts,
    usage_tracker: UsageTracker,
    conversation: Conversation,
    exchange: tuple[str, str, str],
) -> None:
    """Fold the ``(query, answer, run_id)`` exchange into the long-term summary.

    Stores the new summary and sets it on ``conversation``; a failure is
    logged and reported to the observers as a non-fatal ``error`` event,
    never raised.
    """
    query, answer, run_id = exchange
    old = conversation.summary or "(empty)"
    messages = [
        {"role": "system", "content": SUMMARY_INSTRUCTIONS},
        {
            "role": "user",
            "content": f"{CURRENT_LABEL}\n{old}\n\n{EXCHANGE_LABEL}\n"
            f"User: {query}\nAssistant: {answer}",
        },
    ]
    from praisonlike.events import ErrorEvent, LLMRequest
    from praisonlike.loop.side_call import call_outside_turn

    def notify(event: Any) -> None:
        if not isinstance(event, LLMRequest):
            parts.observers.notify(spec, event)

    try:
        reply = call_outside_turn(
            summary_spec(spec, parts, usage_tracker, run_id),
            messages,
            purpose="summary",
            on_event=notify,
        )
        text = reply.content.strip()
        if reply.finish_reason == "length":
            raise ValueError("the summary was cut at its token limit; the previous one is kept")
        unusable = _unusable(text)
        if unusable:
            raise ValueError(unusable)
        parts.session.save_summary(text)
        conversation.set_summary(text)
    except Exception as exc:
        get_logger("praisonlike.memory").warning("long-term summary update failed: %s", exc)
        parts.observers.notify(
            spec,
            ErrorEvent(
                run_id=run_id,
                error_type=type(exc).__name__,
                message=f"summary update failed: {exc}",
                fatal=False,
            ),
        )


def _unusable(text: str) -> str | None:
    """Why ``text`` from the summary model is not kept as the summary; None to keep it.

    Empty, looping on a phrase, echoing the request (its labels: a small model
    copying its input, which then grows by one exchange a turn), or more than
    twice :data:`SUMMARY_WORDS` long: each would put into every later prompt
    text that is not a summary."""
    if not text:
        return "the summary model returned an empty summary"
    if loops_on_a_phrase(text):
        return "the summary model repeated itself; the previous summary is kept"
    if CURRENT_LABEL in text or EXCHANGE_LABEL in text:
        return "the summary model echoed its request; the previous summary is kept"
    words = len(text.split())
    if words > 2 * SUMMARY_WORDS:
        return (
            f"the summary is {words} words, over twice the {SUMMARY_WORDS} asked for; "
            "the previous one is kept"
        )
    return None


def summary_prompt(config: MemoryConfig | None, summary: str | None) -> str:
    """The system prompt's long-term memory section ("" when off or empty)."""
    if config is None or not config.long_term or not summary:
        return ""
    return f"## Long-term memory\n{summary}"


class MemoryMixin(HasParts):
    """``store``, ``summary``, ``wait_for_summaries``, ``close``: an adapter over the
    agent's :class:`~praisonlike.agent.session.SessionBinding`."""

    @property
    def store(self) -> SessionStore | None:
        """The session store (opened on first use), or None without memory."""
        return self._parts.session.store

    def wait_for_summaries(self, timeout: float | None = None) -> None:
        """Block until pending summary updates are done."""
        self._parts.session.wait(timeout)

    def close(self) -> None:
        """Wait for pending summaries, close tool servers (MCP) and release the
        store (if the agent opened it)."""
        self._parts.session.wait()
        self._parts.tools.close()
        self._parts.session.close()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
