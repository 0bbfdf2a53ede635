"""The Agent: a composition of mixins, each owning one concern.

``Agent.__init__`` only normalises its arguments into typed, immutable
configuration; nothing is imported, connected or read until the first turn.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from praisonlike.agent.arguments import (
    argument,
    check_counts,
    check_flags,
    check_instance,
    check_iterable,
    check_prices,
    check_texts,
    context_setting,
    model_entries,
    model_setting,
    observer_list,
    path_list,
    reflection_setting,
    tracing_setting,
)
from praisonlike.agent.chat import ChatMixin
from praisonlike.agent.context import ContextMixin
from praisonlike.agent.guardrails import GuardrailConfig, GuardrailMixin
from praisonlike.agent.hooks import HooksMixin
from praisonlike.agent.memory import MemoryConfig, MemoryMixin, memory_config
from praisonlike.agent.observers import Observer, ObserversMixin
from praisonlike.agent.overrides import OverridesMixin
from praisonlike.agent.prompt import PromptMixin
from praisonlike.agent.reflection import ReflectionConfig, ReflectionMixin
from praisonlike.agent.remote_control import RemoteControlMixin
from praisonlike.agent.serving import ServingMixin
from praisonlike.agent.skills import SkillMixin, skill_folders
from praisonlike.agent.state import StateMixin
from praisonlike.agent.steering import SteeringMixin
from praisonlike.agent.structured_output import StructuredOutputMixin
from praisonlike.agent.tool_execution import ToolExecutionMixin
from praisonlike.agent.turn import TurnMixin
from praisonlike.context.config import ContextConfig
from praisonlike.errors import ConfigurationError, ConfigurationTypeError
from praisonlike.hooks import HookRunner
from praisonlike.llm.config import ExecutionConfig, LLMConfig
from praisonlike.llm.transport import warm_up_for
from praisonlike.llm.usage import Usage, UsageTracker
from praisonlike.tools.approval import normalise_approver
from praisonlike.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from praisonlike.tools.executor import Approver
    from praisonlike.tracing import Tracer

DepsT = TypeVar("DepsT", default=None)


class Agent(
    ChatMixin,
    TurnMixin,
    PromptMixin,
    ToolExecutionMixin,
    ContextMixin,
    StructuredOutputMixin,
    MemoryMixin,
    SkillMixin,
    SteeringMixin,
    ObserversMixin,
    StateMixin,
    HooksMixin,
    GuardrailMixin,
    ReflectionMixin,
    RemoteControlMixin,
    ServingMixin,
    OverridesMixin,
    Generic[DepsT],
):
    """A single LLM agent with tools.

    At least one of ``role``, ``goal``, ``backstory`` or ``instructions`` is
    required. ``llm`` (alias ``model``) is a LiteLLM model string, a dict or an
    :class:`LLMConfig`; without it the default model is chosen from the
    environment at the first turn. ``fallback_models`` entries and
    ``ReflectionConfig.llm`` take the same forms (see
    :func:`praisonlike.llm.config.model_entry`).

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

    Raises:
        ConfigurationError: an argument is invalid; the message names it
            (``Agent(max_iterations=...): ...``). A value of the wrong kind
            raises its subclass ``ConfigurationTypeError``, also a ``TypeError``.
    """

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
        if llm is not None and model is not None:
            raise ConfigurationTypeError("Agent(model=...): pass llm= or its alias, not both")
        check_texts(
            name=name,
            role=role,
            goal=goal,
            backstory=backstory,
            instructions=instructions,
            session_id=session_id,
        )
        if not any(x and x.strip() for x in (role, goal, backstory, instructions)):
            raise ConfigurationError(
                "an Agent needs at least one of role, goal, backstory or instructions"
            )
        check_counts(max_iterations=(max_iterations, 1), output_retries=(output_retries, 0))
        check_flags(verbose=verbose, use_system_prompt=use_system_prompt)
        check_instance("execution", execution, ExecutionConfig, "an ExecutionConfig")
        check_instance("usage_tracker", usage_tracker, UsageTracker, "a UsageTracker")
        check_instance("guardrails", guardrails, GuardrailConfig, "a GuardrailConfig")
        check_instance("hooks", hooks, Mapping, "a mapping of HookEvent to functions")
        check_prices("model_prices", model_prices)
        check_iterable("tools", tools)
        self.name = name
        self.role = role
        self.goal = goal
        self.backstory = backstory
        self.instructions = instructions
        chosen = ("llm", llm) if llm is not None else ("model", model)
        self.llm_config = model_setting(*chosen)
        self.fallback_models = model_entries("fallback_models", fallback_models)
        self.max_iterations = max_iterations
        self.verbose = verbose
        self.execution = execution or ExecutionConfig()
        self.context_config = context_setting("context", context)
        self.model_prices = model_prices
        self.usage_tracker = usage_tracker or UsageTracker()
        self.deps: DepsT = deps
        with argument("approval"):
            self.approval = normalise_approver(approval)
        self.rules = path_list("rules", rules)
        self.use_system_prompt = use_system_prompt
        self.output_retries = output_retries
        self.session_id = session_id
        with argument("memory"):
            self.memory_config = memory_config(memory, session_id)
        with argument("skills"):
            self.skill_folders = skill_folders(skills)
        self.tracing = tracing_setting("tracing", tracing)
        self.on_event = observer_list("on_event", on_event)
        self.guardrails = guardrails
        self.reflection = reflection_setting(
            reflection, self_reflect, min_reflect, max_reflect, reflect_llm
        )
        self._hook_runner = HookRunner()
        with argument("hooks"):
            self._hook_runner.add_mapping(hooks or {})
        with argument("tools"):
            self._tool_registry = ToolRegistry(tools or ())
        self._history: list[dict[str, Any]] = []
        self._last_result = None
        self._resolved_llm: LLMConfig | None = None
        self._stable_prompt_cache: dict[tuple[Any, ...], str] = {}
        self._context_seams: dict[str, Any] = {}
        self._active_cancels = set()
        self._cancel_lock = threading.Lock()
        self._store = None
        self._session_loaded = False
        self._summary = None
        self._summary_threads = []
        self._memory_lock = threading.Lock()
        self._skill_set_cache = None
        self._skill_registries = {}
        self._steering_queue = deque()
        self._steering_lock = threading.Lock()
        self._observer_cache = None
        warm_up_for(self.llm_config)

    @property
    def llm(self) -> str | None:
        """The configured model string (``None`` until the default is chosen)."""
        if self._resolved_llm is not None:
            return self._resolved_llm.model
        return self.llm_config.model if self.llm_config is not None else None

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
