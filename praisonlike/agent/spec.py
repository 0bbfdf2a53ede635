"""AgentSpec: all of an agent's configuration, immutable and validated once.

:meth:`AgentSpec.build` takes ``Agent(...)``'s arguments and returns the spec,
or raises :class:`~praisonlike.errors.ConfigurationError` (a
:class:`~praisonlike.errors.ConfigurationTypeError` for a value of the wrong
kind) whose message names the parameter, as ``Agent(...)`` always did. Fields
hold the normalised values under the names of the agent's public attributes
(``llm_config``, ``context_config``, ``memory_config``, ``skill_folders``).

A spec never changes; :meth:`AgentSpec.replace` returns a new one, validating
the changed fields (in their attribute form: ``context_config=None`` is off)
and the rules that tie fields together. :class:`SpecAttribute` is how the
Agent exposes a field as an attribute: reading it reads the spec, assigning
it replaces the spec. Building a spec imports, reads and connects nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

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
from praisonlike.agent.guardrails import GuardrailConfig
from praisonlike.agent.reflection import ReflectionConfig
from praisonlike.agent.skills import skill_folders
from praisonlike.context.config import ContextConfig
from praisonlike.errors import ConfigurationError, ConfigurationTypeError
from praisonlike.memory.config import MemoryConfig, memory_config
from praisonlike.models.config import ExecutionConfig, LLMConfig
from praisonlike.tools.approval import normalise_approver

if TYPE_CHECKING:
    from praisonlike.tools.executor import Approver
    from praisonlike.tracing import Tracer

T = TypeVar("T")

_IDENTITY = ("role", "goal", "backstory", "instructions")


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    """The agent's configuration (see ``docs/configuration.md`` for each field).

    Build it with :meth:`build` (the ``Agent(...)`` arguments); the plain
    constructor does not validate.
    """

    name: str | None = None
    role: str | None = None
    goal: str | None = None
    backstory: str | None = None
    instructions: str | None = None
    llm_config: LLMConfig | None = None
    tools: tuple[Any, ...] = ()
    max_iterations: int = 10
    verbose: bool = False
    fallback_models: tuple[str | LLMConfig, ...] = ()
    execution: ExecutionConfig = dataclasses.field(default_factory=ExecutionConfig)
    context_config: ContextConfig | None = dataclasses.field(default_factory=ContextConfig)
    model_prices: Mapping[str, Mapping[str, float]] | None = None
    deps: Any = None
    approval: Approver | None = None
    rules: tuple[str | Path, ...] = ()
    use_system_prompt: bool = True
    output_retries: int = 2
    session_id: str | None = None
    memory_config: MemoryConfig | None = None
    skill_folders: tuple[Path, ...] | None = None
    tracing: bool | Tracer | Callable[[Any], None] = False
    on_event: tuple[Callable[[Any], None], ...] = ()
    hooks: Mapping[Any, Any] = dataclasses.field(default_factory=lambda: MappingProxyType({}))
    guardrails: GuardrailConfig | None = None
    reflection: ReflectionConfig | None = None

    @classmethod
    def build(
        cls,
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
        deps: Any = None,
        approval: Approver | None = None,
        rules: str | Path | Sequence[str | Path] | None = None,
        use_system_prompt: bool = True,
        output_retries: int = 2,
        session_id: str | None = None,
        memory: bool | MemoryConfig | None = None,
        skills: bool | str | Path | Sequence[str | Path] | None = None,
        tracing: bool | Tracer | None = None,
        on_event: Callable[[Any], None] | Sequence[Callable[[Any], None]] | None = None,
        hooks: Mapping[Any, Any] | None = None,
        guardrails: GuardrailConfig | None = None,
        reflection: bool | ReflectionConfig | None = None,
        self_reflect: bool = False,
        min_reflect: int = 1,
        max_reflect: int = 3,
        reflect_llm: str | Mapping[str, Any] | LLMConfig | None = None,
    ) -> AgentSpec:
        """The spec of ``Agent(...)`` called with these arguments.

        Raises:
            ConfigurationError: an argument is invalid; the message names it.
        """
        if llm is not None and model is not None:
            raise ConfigurationTypeError("Agent(model=...): pass llm= or its alias, not both")
        check_texts(
            name=name,
            role=role,
            goal=goal,
            backstory=backstory,
            instructions=instructions,
        )
        _session_id(session_id)
        _check_identity(role, goal, backstory, instructions)
        check_counts(max_iterations=(max_iterations, 1), output_retries=(output_retries, 0))
        check_flags(verbose=verbose, use_system_prompt=use_system_prompt)
        check_instance("execution", execution, ExecutionConfig, "an ExecutionConfig")
        check_instance("guardrails", guardrails, GuardrailConfig, "a GuardrailConfig")
        check_instance("hooks", hooks, Mapping, "a mapping of HookPoint to functions")
        check_prices("model_prices", model_prices)
        check_iterable("tools", tools)
        with argument("approval"):
            approver = normalise_approver(approval)
        with argument("memory"):
            memory_setting = memory_config(memory, session_id)
        with argument("skills"):
            folders = skill_folders(skills)
        chosen = ("llm", llm) if llm is not None else ("model", model)
        return cls(
            name=name,
            role=role,
            goal=goal,
            backstory=backstory,
            instructions=instructions,
            llm_config=model_setting(*chosen),
            tools=tuple(tools or ()),
            max_iterations=max_iterations,
            verbose=verbose,
            fallback_models=model_entries("fallback_models", fallback_models),
            execution=execution or ExecutionConfig(),
            context_config=context_setting("context", context),
            model_prices=model_prices,
            deps=deps,
            approval=approver,
            rules=path_list("rules", rules),
            use_system_prompt=use_system_prompt,
            output_retries=output_retries,
            session_id=session_id,
            memory_config=memory_setting,
            skill_folders=folders,
            tracing=tracing_setting("tracing", tracing),
            on_event=observer_list("on_event", on_event),
            hooks=MappingProxyType(dict(hooks or {})),
            guardrails=guardrails,
            reflection=reflection_setting(
                reflection, self_reflect, min_reflect, max_reflect, reflect_llm
            ),
        )

    def replace(self, **changes: Any) -> AgentSpec:
        """A copy with ``changes`` (field names, values as the fields hold them), validated.

        Raises:
            ConfigurationError: a value is invalid, or the result breaks a rule
                (no identity; memory without a session id); the message names it.
        """
        checked: dict[str, Any] = {}
        for field, value in changes.items():
            check = _FIELD_CHECKS.get(field)
            if check is None:
                raise ConfigurationTypeError(f"AgentSpec has no field {field!r}")
            checked[field] = check(value)
        spec = dataclasses.replace(self, **checked)
        _check_identity(spec.role, spec.goal, spec.backstory, spec.instructions)
        if spec.memory_config is not None and spec.session_id is None:
            raise ConfigurationError(
                "Agent(memory=...): memory needs a session_id: Agent(session_id='...', memory=...)"
            )
        return spec


def _check_identity(*texts: str | None) -> None:
    if not any(text and text.strip() for text in texts):
        raise ConfigurationError(
            "an Agent needs at least one of role, goal, backstory or instructions"
        )


def _text(parameter: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        check_texts(**{parameter: value})
        return value

    return check


def _session_id(value: Any) -> Any:
    check_texts(session_id=value)
    if value is not None and not value.strip():
        raise ConfigurationError(
            f"Agent(session_id=...): must be None (no session) or a non-blank str, got {value!r}"
        )
    return value


def _count(parameter: str, minimum: int) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        check_counts(**{parameter: (value, minimum)})
        return value

    return check


def _flag(parameter: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        check_flags(**{parameter: value})
        return value

    return check


def _instance(parameter: str, kind: type, expected: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        check_instance(parameter, value, kind, expected)
        return value

    return check


def _optional(parameter: str, setting: Callable[[str, Any], Any]) -> Callable[[Any], Any]:
    """An attribute whose ``None`` means off (the parameter's ``False``)."""
    return lambda value: None if value is None else setting(parameter, value)


def _execution(value: Any) -> ExecutionConfig:
    check_instance("execution", value, ExecutionConfig, "an ExecutionConfig")
    return value if value is not None else ExecutionConfig()


def _prices(value: Any) -> Any:
    check_prices("model_prices", value)
    return value


def _approval(value: Any) -> Any:
    with argument("approval"):
        return normalise_approver(value)


def _skills(value: Any) -> tuple[Path, ...] | None:
    with argument("skills"):
        return skill_folders(value)


def _tools(value: Any) -> tuple[Any, ...]:
    check_iterable("tools", value)
    return tuple(value or ())


def _hooks(value: Any) -> Mapping[Any, Any]:
    check_instance("hooks", value, Mapping, "a mapping of HookPoint to functions")
    return MappingProxyType(dict(value or {}))


def _reflection(value: Any) -> ReflectionConfig | None:
    return reflection_setting(value, False, 1, 3, None)


_FIELD_CHECKS: dict[str, Callable[[Any], Any]] = {
    **{name: _text(name) for name in ("name", *_IDENTITY)},
    "session_id": lambda value: _session_id(value),
    "llm_config": lambda value: model_setting("llm", value),
    "tools": _tools,
    "max_iterations": _count("max_iterations", 1),
    "output_retries": _count("output_retries", 0),
    "verbose": _flag("verbose"),
    "use_system_prompt": _flag("use_system_prompt"),
    "fallback_models": lambda value: model_entries("fallback_models", value),
    "execution": _execution,
    "context_config": _optional("context", context_setting),
    "model_prices": _prices,
    "deps": lambda value: value,
    "approval": _approval,
    "rules": lambda value: path_list("rules", value),
    "memory_config": _instance("memory", MemoryConfig, "a MemoryConfig or None"),
    "skill_folders": _skills,
    "tracing": lambda value: tracing_setting("tracing", value),
    "on_event": lambda value: observer_list("on_event", value),
    "hooks": _hooks,
    "guardrails": _instance("guardrails", GuardrailConfig, "a GuardrailConfig"),
    "reflection": _reflection,
}


class SpecAttribute(Generic[T]):
    """An agent attribute that reads the field of the same name of its spec.

    Assigning it replaces the spec with :meth:`AgentSpec.replace` (validated,
    so an invalid value raises ``ConfigurationError`` and changes nothing);
    turns already running keep the spec they started with.
    """

    def __init__(self) -> None:
        self.field = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.field = name

    @overload
    def __get__(self, instance: None, owner: type) -> SpecAttribute[T]: ...

    @overload
    def __get__(self, instance: SpecHolder, owner: type) -> T: ...

    def __get__(self, instance: SpecHolder | None, owner: type) -> T | SpecAttribute[T]:
        if instance is None:
            return self
        value: T = getattr(instance.spec, self.field)
        return value

    def __set__(self, instance: SpecHolder, value: T) -> None:
        instance.spec = instance.spec.replace(**{self.field: value})


class SpecHolder:
    """The slot an agent keeps its spec in (``spec``); see :class:`SpecAttribute`."""

    spec: AgentSpec
