"""The Agent: a composition of mixins, each owning one concern.

``Agent.__init__`` builds the agent's :class:`AgentSpec` (its arguments,
validated into immutable configuration), then its parts (a
:class:`Conversation` and :class:`AgentParts`); nothing is imported,
connected or read until the first turn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from praisonlike.agent.arguments import check_instance
from praisonlike.agent.chat import ChatMixin
from praisonlike.agent.conversation import Conversation
from praisonlike.agent.guardrails import GuardrailConfig
from praisonlike.agent.hooks import HooksMixin
from praisonlike.agent.memory import MemoryMixin
from praisonlike.agent.observers import Observer
from praisonlike.agent.overrides import OverridesMixin
from praisonlike.agent.parts import AgentParts
from praisonlike.agent.prompt import PromptMixin
from praisonlike.agent.reflection import ReflectionConfig, ReflectionMixin
from praisonlike.agent.serving import ServingMixin
from praisonlike.agent.skills import SkillMixin
from praisonlike.agent.spec import AgentSpec, SpecAttribute, SpecHolder
from praisonlike.agent.state import StateMixin
from praisonlike.agent.steering import SteeringMixin
from praisonlike.agent.tool_execution import ToolExecutionMixin
from praisonlike.agent.turn import TurnMixin
from praisonlike.context.config import ContextConfig
from praisonlike.memory.config import MemoryConfig
from praisonlike.models.config import ExecutionConfig, LLMConfig
from praisonlike.models.transport import warm_up_for
from praisonlike.models.usage import Usage, UsageTracker

if TYPE_CHECKING:
    from praisonlike.tools.executor import Approver
    from praisonlike.tracing import Tracer

DepsT = TypeVar("DepsT", default=None)


class Agent(
    ChatMixin,
    TurnMixin,
    PromptMixin,
    ToolExecutionMixin,
    MemoryMixin,
    SkillMixin,
    SteeringMixin,
    StateMixin,
    HooksMixin,
    ReflectionMixin,
    ServingMixin,
    OverridesMixin,
    SpecHolder,
    Generic[DepsT],
):
    """A single LLM agent with tools.

    At least one of ``role``, ``goal``, ``backstory`` or ``instructions`` is
    required. ``llm`` (alias ``model``) is a LiteLLM model string, a dict or an
    :class:`LLMConfig`; without it the default model is chosen from the
    environment at the first turn. ``fallback_models`` entries and
    ``ReflectionConfig.llm`` take the same forms (see
    :func:`praisonlike.models.config.model_entry`).

    A ``bool | XConfig | None`` parameter (``context``, ``memory``,
    ``reflection``, ``tracing``) follows one rule: ``None`` is its documented
    default, ``False`` off, ``True`` on with the default configuration, a
    configuration object on with that configuration (see
    ``docs/configuration.md``). ``self_reflect``, ``min_reflect``,
    ``max_reflect`` and ``reflect_llm`` are deprecated for ``reflection``.

    The agent is generic in the type of ``deps``: ``Agent(deps=MyDeps(...))``
    is an ``Agent[MyDeps]``, whose tools take a ``RunContext[MyDeps]``.

    An agent is one conversation and runs one turn at a time: a turn started
    while another runs (from another thread or task) waits for it, then sees
    its history; one started from inside the running turn (its tool, hook or
    guardrail, or the loop consuming its events) raises
    :class:`~praisonlike.errors.ConcurrentTurnError`.

    The configuration is one immutable :class:`~praisonlike.agent.spec.AgentSpec`
    (``agent.spec``); ``agent.name``, ``agent.max_iterations``,
    ``agent.execution`` and the other configuration attributes read it, and
    assigning one replaces the spec, validated (tools and hooks are read when
    the agent is built). The conversation is a
    :class:`~praisonlike.agent.conversation.Conversation`; the runtime parts
    (session, tools, hooks, models, ...) are :class:`~praisonlike.agent.parts.AgentParts`.

    Raises:
        ConfigurationError: an argument is invalid; the message names it
            (``Agent(max_iterations=...): ...``). A value of the wrong kind
            raises its subclass ``ConfigurationTypeError``, also a ``TypeError``.
    """

    name: SpecAttribute[str | None] = SpecAttribute()
    role: SpecAttribute[str | None] = SpecAttribute()
    goal: SpecAttribute[str | None] = SpecAttribute()
    backstory: SpecAttribute[str | None] = SpecAttribute()
    instructions: SpecAttribute[str | None] = SpecAttribute()
    llm_config: SpecAttribute[LLMConfig | None] = SpecAttribute()
    fallback_models: SpecAttribute[tuple[str | LLMConfig, ...]] = SpecAttribute()
    max_iterations: SpecAttribute[int] = SpecAttribute()
    verbose: SpecAttribute[bool] = SpecAttribute()
    execution: SpecAttribute[ExecutionConfig] = SpecAttribute()
    context_config: SpecAttribute[ContextConfig | None] = SpecAttribute()
    model_prices: SpecAttribute[Mapping[str, Mapping[str, float]] | None] = SpecAttribute()
    deps: SpecAttribute[DepsT] = SpecAttribute()
    approval: SpecAttribute[Approver | None] = SpecAttribute()
    rules: SpecAttribute[tuple[str | Path, ...]] = SpecAttribute()
    use_system_prompt: SpecAttribute[bool] = SpecAttribute()
    output_retries: SpecAttribute[int] = SpecAttribute()
    session_id: SpecAttribute[str | None] = SpecAttribute()
    memory_config: SpecAttribute[MemoryConfig | None] = SpecAttribute()
    skill_folders: SpecAttribute[tuple[Path, ...] | None] = SpecAttribute()
    tracing: SpecAttribute[Any] = SpecAttribute()
    on_event: SpecAttribute[tuple[Observer, ...]] = SpecAttribute()
    guardrails: SpecAttribute[GuardrailConfig | None] = SpecAttribute()
    reflection: SpecAttribute[ReflectionConfig | None] = SpecAttribute()

    def __init__(
        self,
        name: str | None = None,
        role: str | None = None,
        goal: str | None = None,
        backstory: str | None = None,
        instructions: str | None = None,
        llm: str | Mapping[str, Any] | LLMConfig | None = None,
        tools: Sequence[Any] | None = None,
        max_iterations: int = 10,
        verbose: bool = False,
        *,
        model: str | Mapping[str, Any] | LLMConfig | None = None,
        fallback_models: Sequence[str | Mapping[str, Any] | LLMConfig] | None = None,
        execution: ExecutionConfig | None = None,
        context: bool | ContextConfig | None = None,
        model_prices: Mapping[str, Mapping[str, float]] | None = None,
        usage_tracker: UsageTracker | None = None,
        deps: DepsT = None,  # type: ignore[assignment]
        approval: Approver | None = None,
        rules: str | Path | Sequence[str | Path] | None = None,
        use_system_prompt: bool = True,
        output_retries: int = 2,
        session_id: str | None = None,
        memory: bool | MemoryConfig | None = None,
        skills: bool | str | Path | Sequence[str | Path] | None = None,
        tracing: bool | Tracer | None = None,
        on_event: Observer | Sequence[Observer] | None = None,
        hooks: Mapping[Any, Any] | None = None,
        guardrails: GuardrailConfig | None = None,
        reflection: bool | ReflectionConfig | None = None,
        self_reflect: bool = False,
        min_reflect: int = 1,
        max_reflect: int = 3,
        reflect_llm: str | Mapping[str, Any] | LLMConfig | None = None,
    ) -> None:
        self.spec = AgentSpec.build(
            name,
            role,
            goal,
            backstory,
            instructions,
            llm,
            tools,
            max_iterations,
            verbose,
            model=model,
            fallback_models=fallback_models,
            execution=execution,
            context=context,
            model_prices=model_prices,
            deps=deps,
            approval=approval,
            rules=rules,
            use_system_prompt=use_system_prompt,
            output_retries=output_retries,
            session_id=session_id,
            memory=memory,
            skills=skills,
            tracing=tracing,
            on_event=on_event,
            hooks=hooks,
            guardrails=guardrails,
            reflection=reflection,
            self_reflect=self_reflect,
            min_reflect=min_reflect,
            max_reflect=max_reflect,
            reflect_llm=reflect_llm,
        )
        check_instance("usage_tracker", usage_tracker, UsageTracker, "a UsageTracker")
        self.usage_tracker = usage_tracker or UsageTracker()
        self._parts = AgentParts.build(self.spec)
        self._conversation = Conversation()
        warm_up_for(self.spec.llm_config)

    @property
    def llm(self) -> str | None:
        """The configured model string (``None`` until the default is chosen)."""
        resolved = self._parts.models.resolved()
        if resolved is not None:
            return resolved.model
        configured = self.spec.llm_config
        return configured.model if configured is not None else None

    @property
    def usage(self) -> Usage:
        """Tokens and cost of every LLM call this agent (or its shared tracker) made."""
        return self.usage_tracker.total

    @property
    def total_cost(self) -> float | None:
        """USD spent so far; ``None`` when no call had a known price."""
        return self.usage_tracker.total.cost

    def cost_summary(self) -> dict[str, Any]:
        """Totals and a per-model breakdown, as plain JSON-able data."""
        return {
            "total": dataclasses.asdict(self.usage),
            "by_model": {m: dataclasses.asdict(u) for m, u in self.usage_tracker.by_model.items()},
        }

    def __repr__(self) -> str:
        label = self.name or self.role or "agent"
        return f"Agent(name={label!r}, llm={self.llm!r}, tools={self.tools!r})"
