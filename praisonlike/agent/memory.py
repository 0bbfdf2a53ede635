"""MemoryMixin: sessions that survive the process, and a long-term summary.

With a ``session_id`` each turn is stored (query, answer, status, figures,
and one step per tool call, tool result, model response, compaction, retry,
fallback and reflection). The first turn of a session loads its recent
successful turns as history. After an answered turn the conversation summary
is updated on a background thread; it never delays or breaks the answer, and
the next turn's system prompt carries it. ``close()`` waits for it.

Uses from ``self``: ``name``, ``session_id``, ``memory_config``, ``usage_tracker``,
``execution``, ``model_prices``, ``_history``, ``_primary_llm()``, ``_turn_models()``,
``_context_for()``, ``_token_counter()``, ``_notify()``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from praisonlike.log import get_logger
from praisonlike.run_enums import TerminationReason, ToolMode

if TYPE_CHECKING:
    from praisonlike.agent.turn import Turn
    from praisonlike.context.tokens import TokenCounter
    from praisonlike.llm.config import ExecutionConfig, LLMConfig
    from praisonlike.llm.turn_spec import ContextSeam, TurnOutcome, TurnSpec
    from praisonlike.llm.usage import UsageTracker
    from praisonlike.memory.store import SessionStore
    from praisonlike.result import RunResult
    from praisonlike.tools.registry import ToolRegistry


SUMMARY_INSTRUCTIONS = (
    "You maintain the long-term memory of a conversation between a user and an assistant. "
    "Update the summary with the new exchange: keep facts about the user, decisions, open "
    "tasks and anything needed later; drop small talk. Answer with the updated summary only, "
    "at most 200 words."
)


@dataclass(frozen=True)
class MemoryConfig:
    """How a session is stored and remembered.

    ``store`` is a :class:`SessionStore`, a path, a ``sqlite:///`` or
    ``postgresql://`` URL, or None for ``~/.praisonlike/sessions.db``.
    ``owner`` is the identity recorded on a new session and sent with remote
    stop and steer requests. On a session's first turn the last
    ``history_rounds`` answered turns are loaded as history; with
    ``history_tokens``, the oldest of them are left out until the rest fit
    that many tokens, counted with the agent's token counter (the model's
    tokenizer, as for the context budget). ``summary_model`` takes what an
    ``Agent(fallback_models=...)`` entry takes, with the same rule for a string.
    """

    store: Any = None
    history_rounds: int = 10
    history_tokens: int | None = None
    long_term: bool = True
    summary_model: str | LLMConfig | None = None
    owner: str | None = None

    def __post_init__(self) -> None:
        if self.summary_model is not None:
            from praisonlike.llm.config import model_entry

            entry = model_entry(self.summary_model, "MemoryConfig.summary_model")
            object.__setattr__(self, "summary_model", entry)
        if self.history_rounds < 0:
            raise ValueError("history_rounds must be >= 0")
        if self.history_tokens is not None and self.history_tokens < 1:
            raise ValueError("history_tokens must be positive")


def memory_config(value: bool | MemoryConfig | None, session_id: str | None) -> MemoryConfig | None:
    """``None`` means on exactly when a session id is given."""
    if value is None:
        value = session_id is not None
    if value is False:
        return None
    config = MemoryConfig() if value is True else value
    if not isinstance(config, MemoryConfig):
        raise TypeError("memory must be True, False or a MemoryConfig")
    if session_id is None:
        raise ValueError("memory needs a session_id: Agent(session_id='...', memory=...)")
    return config


class MemoryMixin:
    name: str | None
    session_id: str | None
    memory_config: MemoryConfig | None
    usage_tracker: UsageTracker
    execution: ExecutionConfig
    model_prices: Mapping[str, Mapping[str, float]] | None
    _history: list[dict[str, Any]]
    _store: SessionStore | None
    _session_loaded: bool
    _summary: str | None
    _summary_threads: list[threading.Thread]
    _memory_lock: threading.Lock
    _tool_registry: ToolRegistry
    llm_config: LLMConfig | None

    if TYPE_CHECKING:

        def _primary_llm(self) -> LLMConfig: ...

        def _turn_models(self) -> list[LLMConfig]: ...

        def _context_for(self, model: str) -> ContextSeam: ...

        def _token_counter(self, model: str) -> TokenCounter: ...

        def _notify(self, event: Any) -> None: ...

    @property
    def store(self) -> SessionStore | None:
        """The session store (opened on first use), or None without memory."""
        if self.memory_config is None:
            return None
        if self._store is None:
            from praisonlike.memory.store import open_store

            spec = self.memory_config.store
            self._store = open_store(Path(spec) if isinstance(spec, Path) else spec)
        return self._store

    @property
    def summary(self) -> str | None:
        """The conversation's long-term summary, as last loaded or updated."""
        return self._summary

    def _prepare_session(self) -> None:
        """On the session's first turn: load history and summary from the store."""
        store = self.store
        if store is None or self._session_loaded or self.session_id is None:
            return
        from praisonlike.memory.history_window import history_window
        from praisonlike.memory.records import MessageStatus

        config = self.memory_config
        assert config is not None
        store.ensure_conversation(self.session_id, agent_name=self.name, owner=config.owner)
        if not self._history:
            turns = store.load_turns(
                self.session_id,
                limit=max(config.history_rounds * 3, 30),
                statuses=[MessageStatus.NORMAL],
            )
            counter = self._token_counter(self._primary_llm().model)
            self._history = history_window(
                turns,
                rounds=config.history_rounds,
                max_tokens=config.history_tokens,
                count_tokens=counter.count_message,
            )
        if config.long_term:
            self._summary = store.get_summary(self.session_id)
        self._session_loaded = True

    def _per_turn_prompt(self) -> str:
        if self.memory_config is None or not self.memory_config.long_term:
            return ""
        with self._memory_lock:
            summary = self._summary
        return f"## Long-term memory\n{summary}" if summary else ""

    def _turn_recorders(self) -> list[Any]:
        if self.store is None:
            return []
        from praisonlike.memory.step_recorder import StepRecorder

        return [StepRecorder()]

    def _after_turn(self, turn: Turn, outcome: TurnOutcome, result: RunResult) -> None:
        store = self.store
        if store is None or self.session_id is None:
            return
        from praisonlike.memory.records import TurnRecord
        from praisonlike.memory.step_recorder import STATUS_OF, StepRecorder

        recorder = next(o for o in turn.observers if isinstance(o, StepRecorder))
        answer = result.text if outcome.error is None else ""
        record = TurnRecord(
            id=result.run_id,
            conversation_id=self.session_id,
            query=turn.prompt,
            answer=answer,
            status=STATUS_OF[result.termination_reason],
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            cost=result.usage.cost,
            latency=result.latency,
            model=result.model,
            created_at=time.time(),
            steps=recorder.steps,
        )
        store.save_turn(record)
        config = self.memory_config
        if (
            config is not None
            and config.long_term
            and outcome.error is None
            and result.termination_reason is not TerminationReason.GUARDRAIL_BLOCKED
        ):
            self._start_summary(turn.prompt, answer, result.run_id)

    def _start_summary(self, query: str, answer: str, run_id: str) -> None:
        thread = threading.Thread(
            target=self._update_summary,
            args=(query, answer, run_id),
            name="praisonlike-summary",
            daemon=True,
        )
        with self._memory_lock:
            self._summary_threads = [t for t in self._summary_threads if t.is_alive()]
            self._summary_threads.append(thread)
        thread.start()

    def _update_summary(self, query: str, answer: str, run_id: str) -> None:
        store = self.store
        assert store is not None and self.session_id is not None
        with self._memory_lock:
            old = self._summary or "(empty)"
        messages = [
            {"role": "system", "content": SUMMARY_INSTRUCTIONS},
            {
                "role": "user",
                "content": f"Current summary:\n{old}\n\nNew exchange:\n"
                f"User: {query}\nAssistant: {answer}",
            },
        ]
        from praisonlike.events import ErrorEvent, LLMRequest
        from praisonlike.llm.side_call import call_outside_turn

        def notify(event: Any) -> None:
            if not isinstance(event, LLMRequest):
                self._notify(event)

        try:
            reply = call_outside_turn(
                self._summary_spec(run_id), messages, purpose="summary", on_event=notify
            )
            text = reply.content.strip()
            if not text:
                raise ValueError("the summary model returned an empty summary")
            store.set_summary(self.session_id, text)
            with self._memory_lock:
                self._summary = text
        except Exception as exc:
            get_logger("praisonlike.memory").warning("long-term summary update failed: %s", exc)
            self._notify(
                ErrorEvent(
                    run_id=run_id,
                    error_type=type(exc).__name__,
                    message=f"summary update failed: {exc}",
                    fatal=False,
                )
            )

    def _summary_spec(self, run_id: str) -> TurnSpec:
        """The summary call as a one-call turn: the summary model (if any) first, then the
        agent's models, with the agent's retries, fallbacks, budgets and usage tracker."""
        from praisonlike.llm.accounting import RunAccounting
        from praisonlike.llm.turn_spec import TurnSpec

        config = self.memory_config
        assert config is not None
        models = self._turn_models()
        if config.summary_model:
            from praisonlike.agent.model_resolution import named_llm

            summary = named_llm(self.llm_config, config.summary_model)
            models = [summary, *(m for m in models if m.model != summary.model)]
        limit = self.execution.max_execution_time
        return TurnSpec(
            run_id=run_id,
            models=models,
            prefix=[],
            new_messages=[],
            tools=[],
            tool_mode=ToolMode.NATIVE,
            stream=False,
            max_iterations=1,
            execution=self.execution,
            accounting=RunAccounting(self.usage_tracker, self.execution, self.model_prices),
            context=self._context_for(models[0].model),
            deadline=None if limit is None else time.monotonic() + limit,
        )

    def wait_for_summaries(self, timeout: float | None = None) -> None:
        """Block until pending summary updates are done."""
        with self._memory_lock:
            threads = list(self._summary_threads)
        for thread in threads:
            thread.join(timeout)

    def close(self) -> None:
        """Wait for pending summaries, close tool servers (MCP) and release the
        store (if the agent opened it)."""
        self.wait_for_summaries()
        for provider in self._tool_registry.providers:
            closer = getattr(provider, "close", None)
            if callable(closer):
                closer()
        if self._store is not None and not _is_user_store(self):
            self._store.close()
            self._store = None

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _is_user_store(agent: MemoryMixin) -> bool:
    config = agent.memory_config
    return (
        config is not None and config.store is not None and not isinstance(config.store, str | Path)
    )
