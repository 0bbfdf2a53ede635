"""Turn assembly: the loop's input from the spec, conversation, parts and options.

:func:`assemble_turn` is the whole of opening a turn: it checks the prompt,
loads the session on its first turn, expands a ``/skill`` invocation, picks
the models and tools, builds the system prompt and messages, the answer
checks, and returns an :class:`AssembledTurn`: the
:class:`~praisonlike.loop.run.Run` (the :class:`~praisonlike.loop.turn_spec.TurnSpec`,
the tool pipeline, the ``run_started`` and skill events it opens with, the
observers) and what closing it needs. It changes nothing in the
conversation but recording the turn's cancel token as running. It needs no
Agent: a test calls it with an :class:`AgentSpec`, a :class:`Conversation`
and :meth:`AgentParts.build`'s parts.

:func:`close_turn` ends the turn: it records it in the session, starts the
summary update, and commits to the conversation (the new messages when it
succeeded; the steering it took back to the queue when it failed), then
raises the turn's typed error if it failed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from praisonlike._runtime.cancellation import CancelToken
from praisonlike._runtime.run_ids import new_run_id
from praisonlike.agent.guardrails import output_guardrail_check, preset_answer
from praisonlike.agent.memory import summary_prompt
from praisonlike.agent.prompt import full_prompt, prefix_messages
from praisonlike.agent.reflection import reflection_check
from praisonlike.agent.structured_output import answer_policy
from praisonlike.agent.turn import check_prompt
from praisonlike.errors import UnsupportedInputError
from praisonlike.loop.answer_checks import chain_checks
from praisonlike.models.capabilities import ModelFeatures, model_features
from praisonlike.models.litellm_backend import turn_begins
from praisonlike.run_enums import TerminationReason, ToolMode

if TYPE_CHECKING:
    from praisonlike.agent.conversation import Conversation
    from praisonlike.agent.parts import AgentParts
    from praisonlike.agent.spec import AgentSpec
    from praisonlike.events import RunStarted
    from praisonlike.loop.accounting import RunAccounting
    from praisonlike.loop.run import Observer, Run
    from praisonlike.loop.turn_spec import TurnSpec
    from praisonlike.memory.step_recorder import StepRecorder
    from praisonlike.models.usage import UsageTracker
    from praisonlike.result import RunResult
    from praisonlike.tools.executor import TurnTools

Images = Sequence[str | Path | bytes] | None


@dataclass(frozen=True)
class RunOptions:
    """The options of one turn, as the five entry points take them.

    ``tools=None`` offers the agent's tools, a list (even empty) replaces
    them; ``deps=None`` uses the agent's ``deps``; ``cancel_token=None`` makes
    a fresh one; ``output_pydantic`` / ``output_json`` ask for a structured
    answer; ``stream`` streams the model's text. ``events=False`` says the
    caller does not read the turn's events (``chat``, ``achat``): they are then
    built only when an observer sees them.
    """

    tools: Sequence[Any] | None = None
    images: Images = None
    deps: Any = None
    cancel_token: CancelToken | None = None
    output_pydantic: type[Any] | None = None
    output_json: dict[str, Any] | None = None
    stream: bool = False
    events: bool = True


@dataclass(frozen=True)
class AssembledTurn:
    """An opened turn: iterate ``run.events()`` or ``run.aevents()`` once, then
    :func:`close_turn` it (or :func:`abandon_turn` it if the caller stopped early)."""

    run: Run
    steering_taken: list[str]
    """The steering texts the turn took (a failed turn gives them back)."""
    recorder: StepRecorder | None = None
    """The session's step recorder, one of ``run.observers`` (None without a store)."""


def assemble_turn(
    prompt: Any,
    options: RunOptions,
    spec: AgentSpec,
    conversation: Conversation,
    parts: AgentParts,
    usage_tracker: UsageTracker,
    owner: Any = None,
) -> AssembledTurn:
    """Open one turn of ``prompt`` (see the module); ``owner`` is what hooks and
    tools see as the agent (``HookContext.agent``, ``RunContext.agent``).

    Raises InvalidInputError for a prompt that is not valid text,
    UnsupportedInputError for images the model cannot take, and what loading
    the session, the skills or the rules files raises.
    """
    turn_begins()
    loop = _loop_classes()
    query = check_prompt(prompt, has_images=bool(options.images))
    started_at = time.monotonic()
    run_id = new_run_id()
    folders = spec.skill_folders
    text, skill, extra_events = parts.skills.expand(folders, query, run_id)
    models = parts.models.for_turn(spec.llm_config, spec.fallback_models)
    primary = models[0]
    parts.session.prepare(
        conversation, parts.contexts.counter(spec.context_config, primary).count_message
    )

    features = model_features(primary.model, primary.features)
    registry = parts.tools.for_call(options.tools)
    registry = parts.skills.with_load_skill(folders, registry, keep=options.tools is None)
    if skill is not None:
        registry = parts.skills.restrict(folders, skill, registry)
    tool_mode = ToolMode.NATIVE if features.native_tool_calls else ToolMode.REACT
    schemas = registry.schemas()

    user_message = _user_message(text, options.images, features, primary.model)
    answer = answer_policy(
        options.output_pydantic, options.output_json, spec.output_retries, features
    )
    checks = [
        answer.check,
        output_guardrail_check(spec.guardrails) if spec.guardrails else None,
        reflection_check(spec.reflection, spec.llm_config, text, run_id),
    ]
    memory = summary_prompt(spec.memory_config, conversation.summary)
    per_turn = "\n\n".join(p for p in (memory, answer.instruction) if p)
    stable = parts.prompts.stable(
        spec, parts.skills.catalogue(folders, registry), tool_mode, schemas
    )
    prefix = prefix_messages(
        spec.use_system_prompt, full_prompt(stable, per_turn), conversation.history_for_turn()
    )

    steering_taken: list[str] = []
    cancel = options.cancel_token or CancelToken()

    def drain_steering() -> list[str]:
        texts = [*conversation.drain_steering(), *parts.session.poll(cancel)]
        steering_taken.extend(texts)
        return texts

    recorder = parts.session.recorder()
    observers: list[Observer] = [*([recorder] if recorder else []), *parts.observers.of(spec)]
    emit_events = options.events or bool(observers)
    limit = spec.execution.max_execution_time
    turn_spec = loop.turn_spec(
        run_id=run_id,
        models=models,
        prefix=prefix,
        new_messages=[user_message],
        tools=schemas,
        tool_mode=tool_mode,
        stream=options.stream,
        max_iterations=spec.max_iterations,
        execution=spec.execution,
        accounting=loop.accounting(usage_tracker, spec.execution, spec.model_prices),
        context=parts.contexts.for_model(spec.context_config, primary),
        hooks=parts.hooks,
        prompt=query,
        deadline=None if limit is None else started_at + limit,
        cancel=cancel,
        drain_steering=drain_steering,
        answer_check=chain_checks([c for c in checks if c is not None]),
        preset_answer=preset_answer(spec.guardrails, query),
        skill=skill,
        call_params=answer.params,
        answer_schema=answer.schema,
        started=started_at,
        emit_events=emit_events,
    )
    runner = loop.turn_tools(
        registry,
        run_id=run_id,
        deps=spec.deps if options.deps is None else options.deps,
        agent=owner,
        cancel=cancel,
        tool_timeout=spec.execution.tool_timeout,
        result_limit=spec.execution.tool_result_limit,
        approver=spec.approval,
        hooks=parts.hooks,
    )
    opening: list[Any] = []
    if emit_events:
        opening = [
            loop.run_started(
                run_id=run_id,
                agent_name=spec.name,
                model=primary.model,
                prompt=query,
                tool_mode=tool_mode,
            ),
            *extra_events,
        ]
    conversation.start_turn(cancel)
    run = loop.run(turn_spec, runner, owner=owner, opening=opening, observers=observers)
    return AssembledTurn(run, steering_taken, recorder)


class _LoopClasses(NamedTuple):
    run_started: type[RunStarted]
    accounting: type[RunAccounting]
    run: type[Run]
    turn_spec: type[TurnSpec]
    turn_tools: type[TurnTools]


@cache
def _loop_classes() -> _LoopClasses:
    """The tool loop's classes a turn is assembled from, imported by the first turn
    (they bring pydantic and asyncio), not by ``import praisonlike``; once, not
    per turn (an import statement costs a turn about a microsecond each)."""
    from praisonlike.events import RunStarted
    from praisonlike.loop.accounting import RunAccounting
    from praisonlike.loop.run import Run
    from praisonlike.loop.turn_spec import TurnSpec
    from praisonlike.tools.executor import TurnTools

    return _LoopClasses(RunStarted, RunAccounting, Run, TurnSpec, TurnTools)


def close_turn(
    turn: AssembledTurn,
    spec: AgentSpec,
    conversation: Conversation,
    parts: AgentParts,
    usage_tracker: UsageTracker,
) -> RunResult:
    """End a turn whose events were consumed (see the module); returns its result
    or raises its typed error."""
    outcome = turn.run.outcome
    if outcome is None:
        raise RuntimeError("the turn was closed before its events were consumed")
    result = outcome.result
    query, cancel = turn.run.spec.prompt, turn.run.spec.cancel
    assert cancel is not None
    failed = outcome.error is not None
    parts.session.record(query, result, failed, turn.recorder)
    config = spec.memory_config
    if (
        turn.recorder is not None
        and config is not None
        and config.long_term
        and not failed
        and result.termination_reason is not TerminationReason.GUARDRAIL_BLOCKED
    ):
        from praisonlike.agent.memory import update_summary

        exchange = (query, result.text, result.run_id)
        parts.session.in_background(
            lambda: update_summary(spec, parts, usage_tracker, conversation, exchange)
        )
    new_messages = None if failed else outcome.new_messages
    conversation.close_turn(cancel, result, new_messages, turn.steering_taken)
    if outcome.error is not None:
        raise outcome.error
    return result


def abandon_turn(turn: AssembledTurn, conversation: Conversation) -> None:
    """The caller stopped consuming events: cancel the turn, keep history as it was."""
    cancel = turn.run.spec.cancel
    assert cancel is not None
    cancel.cancel("the caller stopped consuming the turn's events")
    conversation.abandon_turn(cancel)


def _user_message(
    prompt: str, images: Images, features: ModelFeatures, model: str
) -> dict[str, Any]:
    if not images:
        return {"role": "user", "content": prompt}
    if not features.vision:
        raise UnsupportedInputError(
            f"model {model!r} does not accept images (per LiteLLM's model map); use a "
            "vision model or LLMConfig(features={'vision': True})"
        )
    from praisonlike.agent.images import user_message_with_images

    return user_message_with_images(prompt, images)
