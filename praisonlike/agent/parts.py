"""The parts an Agent is made of, each owning its own state.

An agent is its configuration (:class:`~praisonlike.agent.spec.AgentSpec`,
``agent.spec``), its usage tracker (``agent.usage_tracker``), its
:class:`~praisonlike.agent.conversation.Conversation` and the runtime parts
bundled in :class:`AgentParts`. The mixins of :class:`~praisonlike.agent.agent.Agent`
are thin adapters over these parts (each module says which); they share no
other state and call no private method of each other. :class:`HasParts`
declares the parts for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from praisonlike.agent.context import ContextSeams
    from praisonlike.agent.conversation import Conversation
    from praisonlike.agent.model_resolution import AgentModels
    from praisonlike.agent.observers import AgentObservers
    from praisonlike.agent.prompt import SystemPrompts
    from praisonlike.agent.session import SessionBinding
    from praisonlike.agent.skills import AgentSkills
    from praisonlike.agent.spec import AgentSpec
    from praisonlike.agent.tool_execution import Toolset
    from praisonlike.hooks import HookRunner
    from praisonlike.models.usage import UsageTracker


@dataclass(frozen=True)
class AgentParts:
    """The runtime parts of one agent, made from its spec by :meth:`build`."""

    session: SessionBinding
    tools: Toolset
    hooks: HookRunner
    models: AgentModels
    contexts: ContextSeams
    skills: AgentSkills
    prompts: SystemPrompts
    observers: AgentObservers

    @classmethod
    def build(cls, spec: AgentSpec) -> AgentParts:
        """Fresh parts for ``spec``: nothing is opened, read or imported beyond them.

        Raises ConfigurationError naming ``tools`` or ``hooks`` when those are invalid.
        """
        from praisonlike.agent.arguments import argument
        from praisonlike.agent.context import ContextSeams
        from praisonlike.agent.model_resolution import AgentModels
        from praisonlike.agent.observers import AgentObservers
        from praisonlike.agent.prompt import SystemPrompts
        from praisonlike.agent.session import SessionBinding
        from praisonlike.agent.skills import AgentSkills
        from praisonlike.agent.tool_execution import Toolset
        from praisonlike.hooks import HookRunner

        hooks = HookRunner()
        with argument("hooks"):
            hooks.add_mapping(spec.hooks)
        with argument("tools"):
            tools = Toolset(spec.tools)
        return cls(
            session=SessionBinding(spec.session_id, spec.memory_config, spec.name),
            tools=tools,
            hooks=hooks,
            models=AgentModels(),
            contexts=ContextSeams(),
            skills=AgentSkills(),
            prompts=SystemPrompts(),
            observers=AgentObservers(),
        )


class HasParts:
    """What every mixin of the Agent may use: the spec, the tracker and the parts."""

    spec: AgentSpec
    usage_tracker: UsageTracker
    _conversation: Conversation
    _parts: AgentParts
