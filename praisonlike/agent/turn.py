"""TurnMixin: opening a turn (prompt, model, tools, messages) and closing it (history, result).

Opening builds a :class:`TurnSpec` and a :class:`Dispatcher`; nothing the
agent keeps is touched until the turn closes. Closing commits the turn's
messages to history only when it succeeded, stores the RunResult, and raises
the typed error otherwise.

Uses from ``self``: ``name``, ``max_iterations``, ``execution``, ``usage_tracker``,
``model_prices``, ``deps``, and the other mixins' methods named below.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from praisonlike.cancellation import CancelToken
from praisonlike.errors import InvalidInputError, UnsupportedInputError
from praisonlike.log import get_logger
from praisonlike.run_enums import ToolMode

if TYPE_CHECKING:
    from praisonlike.events import RunStarted
    from praisonlike.hooks import HookRunner
    from praisonlike.llm.answer_checks import AnswerCheck
    from praisonlike.llm.capabilities import ModelFeatures
    from praisonlike.llm.config import ExecutionConfig, LLMConfig
    from praisonlike.llm.dispatcher import Dispatcher
    from praisonlike.llm.turn_spec import ContextSeam, TurnOutcome
    from praisonlike.llm.usage import UsageTracker
    from praisonlike.result import RunResult
    from praisonlike.tools.executor import TurnTools
    from praisonlike.tools.registry import ToolRegistry


@dataclass
class Turn:
    """One opened turn. Iterate :meth:`events` or :meth:`aevents` once, then close it."""

    dispatcher: Dispatcher
    started: RunStarted
    cancel: CancelToken
    prompt: str = ""
    extra_events: list[Any] = field(default_factory=list)
    observers: list[Callable[[Any], None]] = field(default_factory=list)
    steering_taken: list[str] = field(default_factory=list)

    def _observed(self, event: Any) -> Any:
        for observer in self.observers:
            try:
                observer(event)
            except Exception:
                get_logger().exception("an event observer failed on %s", event.type)
        return event

    def events(self) -> Iterator[Any]:
        yield self._observed(self.started)
        for event in self.extra_events:
            yield self._observed(event)
        for event in self.dispatcher.events():
            yield self._observed(event)

    async def aevents(self) -> AsyncIterator[Any]:
        yield self._observed(self.started)
        for event in self.extra_events:
            yield self._observed(event)
        async for event in self.dispatcher.aevents():
            yield self._observed(event)

    @property
    def outcome(self) -> TurnOutcome:
        outcome = self.dispatcher.outcome
        if outcome is None:
            raise RuntimeError("the turn was closed before its events were consumed")
        return outcome


def check_prompt(prompt: Any) -> str:
    """A prompt must be a str that encodes as UTF-8 (no lone surrogates)."""
    if not isinstance(prompt, str):
        raise InvalidInputError(f"prompt must be a str, not {type(prompt).__name__}")
    try:
        prompt.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"prompt is not valid text: {exc.reason} at position {exc.start}"
        ) from exc
    return prompt


class TurnMixin:
    name: str | None
    max_iterations: int
    execution: ExecutionConfig
    usage_tracker: UsageTracker
    model_prices: Mapping[str, Mapping[str, float]] | None
    llm_config: LLMConfig | None
    fallback_models: tuple[str | LLMConfig, ...]
    _history: list[dict[str, Any]]
    _last_result: RunResult | None
    _active_cancels: set[CancelToken]
    _cancel_lock: threading.Lock
    _resolved_llm: LLMConfig | None
    _hook_runner: HookRunner

    if TYPE_CHECKING:  # provided by the other mixins of Agent

        def _registry_for_call(self, tools: Sequence[Any] | None) -> ToolRegistry: ...

        def _answer_policy(
            self, options: dict[str, Any], features: ModelFeatures
        ) -> tuple[AnswerCheck | None, dict[str, Any], str]: ...

        def _guardrail_check(self) -> AnswerCheck | None: ...

        def _reflection_check(self, prompt: str, run_id: str) -> AnswerCheck | None: ...

        def _preset_answer(self, prompt: str) -> str | None: ...

        def system_prompt(
            self,
            tool_mode: ToolMode = ...,
            tools: list[dict[str, Any]] | None = ...,
            *,
            per_turn: str = ...,
        ) -> str: ...

        def _prefix_messages(
            self, system: str, history: list[dict[str, Any]]
        ) -> list[dict[str, Any]]: ...

        def _context_for(self, model: str) -> ContextSeam: ...

        def _turn_tools(
            self, registry: ToolRegistry, *, run_id: str, deps: Any, cancel: CancelToken | None
        ) -> TurnTools: ...

        def _expand_prompt(
            self, prompt: str, run_id: str
        ) -> tuple[str, str | None, list[Any], tuple[str, ...] | None]: ...

        def _with_builtin_tools(self, registry: ToolRegistry) -> ToolRegistry: ...

        def _prepare_session(self) -> None: ...

        def _per_turn_prompt(self) -> str: ...

        def _turn_recorders(self) -> list[Any]: ...

        def _after_turn(self, turn: Turn, outcome: TurnOutcome, result: RunResult) -> None: ...

        def _drain_steering_into(self, taken: list[str]) -> list[str]: ...

        def _requeue_steering(self, taken: list[str]) -> None: ...

        def _agent_observers(self) -> list[Callable[[Any], None]]: ...

        def _remote_cancel(self, reason: str) -> bool: ...

        def _poll_remote(self, cancel: CancelToken, taken: list[str]) -> list[str]: ...

        def _model_override(self) -> LLMConfig | None: ...

    # -- model ------------------------------------------------------------------

    def _primary_llm(self) -> LLMConfig:
        override = self._model_override()
        if override is not None:
            return override
        if self._resolved_llm is not None:
            return self._resolved_llm
        from praisonlike.agent.model_resolution import resolve_llm

        self._resolved_llm = resolve_llm(self.llm_config)
        return self._resolved_llm

    def _turn_models(self) -> list[LLMConfig]:
        from praisonlike.agent.model_resolution import fallback_llms

        override = self._model_override()
        if override is not None:
            return [override]
        return [self._primary_llm(), *fallback_llms(self.llm_config, self.fallback_models)]

    def features(self) -> ModelFeatures:
        """What the agent's model can do (tool calls, vision, ...), per LiteLLM's map."""
        from praisonlike.llm.capabilities import model_features

        primary = self._primary_llm()
        return model_features(primary.model, primary.features)

    # -- turn ---------------------------------------------------------------------

    def cancel(self, reason: str = "cancelled by agent.cancel()") -> None:
        """Cancel the running turn of this agent; safe from any thread.

        Turns waiting for it (see :mod:`praisonlike.agent.turn_gate`) are not
        cancelled: they run next.

        With no turn running here and a store that carries control signals
        (PostgreSQL), the stop goes to the process running the session's turn.
        """
        with self._cancel_lock:
            tokens = list(self._active_cancels)
        for token in tokens:
            token.cancel(reason)
        if not tokens:
            self._remote_cancel(reason)

    def _open_turn(self, prompt: Any, *, stream: bool, options: dict[str, Any]) -> Turn:
        from praisonlike.events import RunStarted
        from praisonlike.llm.accounting import RunAccounting
        from praisonlike.llm.answer_checks import chain_checks
        from praisonlike.llm.dispatcher import Dispatcher
        from praisonlike.llm.turn_spec import TurnSpec
        from praisonlike.run_ids import new_run_id

        prompt = check_prompt(prompt)
        self._prepare_session()
        query = prompt
        run_id = new_run_id()
        started_at = time.monotonic()
        extra_events: list[Any] = []
        prompt, skill, skill_events, allowed_tools = self._expand_prompt(prompt, run_id)
        extra_events.extend(skill_events)

        models = self._turn_models()
        features = self.features()
        registry = self._registry_for_call(options.get("tools"))
        registry = self._with_builtin_tools(registry)
        if allowed_tools is not None:
            registry = registry.subset(allowed_tools)
        tool_mode = ToolMode.NATIVE if features.native_tool_calls else ToolMode.REACT
        schemas = registry.schemas()

        user_message = self._user_message(prompt, options.get("images"), features)
        structured, params, instruction = self._answer_policy(options, features)
        checks = [structured, self._guardrail_check(), self._reflection_check(prompt, run_id)]
        per_turn = "\n\n".join(p for p in (self._per_turn_prompt(), instruction) if p)
        system = self.system_prompt(tool_mode, schemas, per_turn=per_turn)
        prefix = self._prefix_messages(system, self._history)

        steering_taken: list[str] = []
        cancel = options.get("cancel_token") or CancelToken()
        with self._cancel_lock:
            self._active_cancels.add(cancel)
        deadline = (
            started_at + self.execution.max_execution_time
            if self.execution.max_execution_time is not None
            else None
        )
        spec = TurnSpec(
            run_id=run_id,
            models=models,
            prefix=prefix,
            new_messages=[user_message],
            tools=schemas,
            tool_mode=tool_mode,
            stream=stream,
            max_iterations=self.max_iterations,
            execution=self.execution,
            accounting=RunAccounting(self.usage_tracker, self.execution, self.model_prices),
            context=self._context_for(models[0].model),
            hooks=self._hook_runner,
            agent=self,
            prompt=query,
            deadline=deadline,
            cancel=cancel,
            drain_steering=lambda: [
                *self._drain_steering_into(steering_taken),
                *self._poll_remote(cancel, steering_taken),
            ],
            answer_check=chain_checks([c for c in checks if c is not None]),
            preset_answer=self._preset_answer(query),
            skill=skill,
            call_params=params,
            started=started_at,
        )
        runner = self._turn_tools(registry, run_id=run_id, deps=options.get("deps"), cancel=cancel)
        started = RunStarted(
            run_id=run_id,
            agent_name=self.name,
            model=models[0].model,
            prompt=query,
            tool_mode=tool_mode,
        )
        return Turn(
            dispatcher=Dispatcher(spec, runner, self._hook_runner),
            started=started,
            cancel=cancel,
            prompt=query,
            extra_events=extra_events,
            observers=[*self._turn_recorders(), *self._agent_observers()],
            steering_taken=steering_taken,
        )

    def _is_running(self) -> bool:
        with self._cancel_lock:
            return bool(self._active_cancels)

    def _abandon_turn(self, turn: Turn) -> None:
        """The caller stopped consuming events: cancel the turn, keep history as it was."""
        turn.cancel.cancel("the caller stopped consuming the turn's events")
        with self._cancel_lock:
            self._active_cancels.discard(turn.cancel)

    def _close_turn(self, turn: Turn) -> RunResult:
        with self._cancel_lock:
            self._active_cancels.discard(turn.cancel)
        outcome = turn.outcome
        result = outcome.result
        self._last_result = result
        self._after_turn(turn, outcome, result)
        if outcome.error is not None:
            self._requeue_steering(turn.steering_taken)
            raise outcome.error
        self._history.extend(outcome.new_messages)
        return result

    def _user_message(self, prompt: str, images: Any, features: ModelFeatures) -> dict[str, Any]:
        if not images:
            return {"role": "user", "content": prompt}
        if not features.vision:
            raise UnsupportedInputError(
                f"model {self._primary_llm().model!r} does not accept images (per LiteLLM's "
                "model map); use a vision model or LLMConfig(features={'vision': True})"
            )
        from praisonlike.agent.images import user_message_with_images

        return user_message_with_images(prompt, images)
