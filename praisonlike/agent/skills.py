"""SkillMixin: ``/name args`` invocation and model-loaded skills.

Skills are discovered on first use (a malformed one raises
:class:`SkillError` naming its file). A prompt whose first word is ``/`` plus a
known, user-invocable skill is replaced by the rendered skill body; any other
text starting with ``/`` passes through unchanged. Model-invocable skills are
listed (name and description) in the system prompt, and a built-in
``load_skill(name)`` tool returns a body when the model asks for it.

Only the agent's own tools are combined with ``load_skill`` once and kept
(one entry); a call's ``tools=`` list is combined afresh for that call and
never kept, so it is freed with the turn. :class:`AgentSkills` is the part
that holds them; :class:`SkillMixin` its adapter on the agent.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from praisonlike.agent.parts import HasParts
from praisonlike.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from praisonlike.skills import SkillSet
    from praisonlike.tools.python_tool import FunctionTool

LOAD_SKILL_TOOL = "load_skill"


def skill_folders(value: Any) -> tuple[Path, ...] | None:
    """Normalise ``Agent(skills=...)``: None/False off, True the default folders, or paths."""
    if value is None or value is False:
        return None
    if value is True:
        from praisonlike.skills import SkillSet

        return tuple(SkillSet.default_folders())
    if isinstance(value, str | Path):
        return (Path(value),)
    return tuple(Path(v) for v in value)


class AgentSkills:
    """The agent's skills, discovered from its folders on first use, and the
    tool list combined with ``load_skill`` (kept for the agent's own tools only)."""

    def __init__(self) -> None:
        self._discovered: tuple[tuple[Path, ...], SkillSet] | None = None
        self._combined: tuple[ToolRegistry, ToolRegistry] | None = None

    def of(self, folders: tuple[Path, ...] | None) -> SkillSet:
        """The skills found in ``folders`` (empty for ``None``), discovered once."""
        from praisonlike.skills import SkillSet

        folders = folders or ()
        if self._discovered is None or self._discovered[0] != folders:
            found = SkillSet.discover(list(folders)) if folders else SkillSet()
            self._discovered = (folders, found)
        return self._discovered[1]

    def catalogue(self, folders: tuple[Path, ...] | None) -> str:
        """The system-prompt list of model-invocable skills ("" without skills)."""
        return self.of(folders).catalogue() if folders else ""

    def expand(
        self, folders: tuple[Path, ...] | None, prompt: str, run_id: str
    ) -> tuple[str, str | None, list[Any], tuple[str, ...] | None]:
        """(prompt the model sees, skill name, events, allowed tools) for ``prompt``."""
        if not folders or not prompt.lstrip().startswith("/"):
            return prompt, None, [], None
        from praisonlike.events import SkillInvoked
        from praisonlike.skills import render_skill

        invocation = self.of(folders).parse_invocation(prompt)
        if invocation is None:
            return prompt, None, [], None
        skill, arguments = invocation
        event = SkillInvoked(run_id=run_id, skill=skill.name, arguments=arguments)
        return render_skill(skill, arguments), skill.name, [event], skill.allowed_tools

    def with_load_skill(
        self, folders: tuple[Path, ...] | None, registry: ToolRegistry, *, keep: bool
    ) -> ToolRegistry:
        """``registry`` plus ``load_skill`` when a skill is model-invocable; ``keep``
        (the agent's own tools) reuses the combination for the next turns."""
        if not folders or not self.of(folders).model_invocable() or LOAD_SKILL_TOOL in registry:
            return registry
        if not keep:
            return registry.with_tools([self._load_skill_tool(folders)])
        cached = self._combined
        if cached is not None and cached[0] is registry:
            return cached[1]
        combined = registry.with_tools([self._load_skill_tool(folders)])
        self._combined = (registry, combined)
        return combined

    def _load_skill_tool(self, folders: tuple[Path, ...]) -> FunctionTool:
        from praisonlike.tools.python_tool import function_tool

        skills = self.of(folders)

        def load_skill(name: str) -> str:
            """Load the full instructions of one of the available skills.

            Args:
                name: The skill's name, as listed in the system prompt.
            """
            return skills.load_skill_body(name)

        return function_tool(load_skill, name=LOAD_SKILL_TOOL)


class SkillMixin(HasParts):
    """``agent.skills``: an adapter over the agent's :class:`AgentSkills`."""

    @property
    def skills(self) -> SkillSet:
        """The discovered skills (empty without ``skills=``)."""
        return self._parts.skills.of(self.spec.skill_folders)
