"""SkillMixin: ``/name args`` invocation and model-loaded skills.

Skills are discovered on first use (a malformed one raises
:class:`SkillError` naming its file). A prompt whose first word is ``/`` plus a
known, user-invocable skill is replaced by the rendered skill body; any other
text starting with ``/`` passes through unchanged. Model-invocable skills are
listed (name and description) in the system prompt, and a built-in
``load_skill(name)`` tool returns a body when the model asks for it.

A ``/name`` skill whose ``allowed-tools`` names a tool the turn does not
have (the agent's tools, or the call's ``tools=``, plus ``load_skill``) fails
the turn with :class:`SkillError` before any request, naming the unknown
names, close matches and the tools the turn has.

Only the agent's own tools are combined with ``load_skill`` once and kept
(one entry); a call's ``tools=`` list is combined afresh for that call and
never kept, so it is freed with the turn. :class:`AgentSkills` is the part
that holds them; :class:`SkillMixin` its adapter on the agent.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from praisonlike.agent.parts import HasParts
from praisonlike.errors import ConfigurationError, SkillError
from praisonlike.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from praisonlike.skills import Skill, SkillSet
    from praisonlike.tools.python_tool import FunctionTool

LOAD_SKILL_TOOL = "load_skill"


def skill_folders(value: Any) -> tuple[Path, ...] | None:
    """Normalise ``Agent(skills=...)``: None/False off, True the default folders, or paths.

    Raises ConfigurationError for a folder named explicitly that does not exist
    (a misspelt path would otherwise give an agent without its skills); the
    default folders may be missing.
    """
    if value is None or value is False:
        return None
    if value is True:
        from praisonlike.skills import SkillSet

        return tuple(SkillSet.default_folders())
    named = (value,) if isinstance(value, str | Path) else tuple(value)
    folders = tuple(Path(folder).expanduser() for folder in named)
    missing = [str(folder) for folder in folders if not folder.is_dir()]
    if missing:
        raise ConfigurationError(
            f"no such folder: {', '.join(missing)} (a skills folder holds one folder per "
            "skill, each with its SKILL.md)"
        )
    return folders


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

    def catalogue(
        self, folders: tuple[Path, ...] | None, registry: ToolRegistry | None = None
    ) -> str:
        """The system-prompt list of model-invocable skills: "" without skills, or
        when ``registry`` (a turn's tools) has no ``load_skill`` to load them with."""
        if not folders or (registry is not None and LOAD_SKILL_TOOL not in registry):
            return ""
        return self.of(folders).catalogue()

    def expand(
        self, folders: tuple[Path, ...] | None, prompt: str, run_id: str
    ) -> tuple[str, str | None, list[Any]]:
        """(prompt the model sees, skill name, events) for ``prompt``; see
        :meth:`restrict` for the invoked skill's tools."""
        if not folders or not prompt.lstrip().startswith("/"):
            return prompt, None, []
        from praisonlike.events import SkillInvoked
        from praisonlike.skills import render_skill

        invocation = self.of(folders).parse_invocation(prompt)
        if invocation is None:
            return prompt, None, []
        skill, arguments = invocation
        event = SkillInvoked(run_id=run_id, skill=skill.name, arguments=arguments)
        return render_skill(skill, arguments), skill.name, [event]

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

    def restrict(
        self, folders: tuple[Path, ...] | None, skill_name: str, registry: ToolRegistry
    ) -> ToolRegistry:
        """The tools of ``registry`` the invoked skill ``skill_name`` allows: those
        its ``allowed-tools`` lists, else all of them but ``load_skill`` (the
        skill's instructions are the turn's prompt already).

        Raises :class:`SkillError` when its ``allowed-tools`` names a tool
        ``registry`` lacks: the message names the file, each unknown name with
        its close matches, and the tools the turn has.
        """
        skill = self.of(folders).get(skill_name)
        if skill is None or skill.allowed_tools is None:
            return registry.subset(name for name in registry.names if name != LOAD_SKILL_TOOL)
        _check_allowed_tools(skill, skill.allowed_tools, registry)
        return registry.subset(skill.allowed_tools)


def _check_allowed_tools(skill: Skill, allowed: tuple[str, ...], registry: ToolRegistry) -> None:
    available = registry.names
    unknown = [name for name in dict.fromkeys(allowed) if name not in registry]
    if not unknown:
        return
    described = []
    for name in unknown:
        matches = difflib.get_close_matches(name, available, n=3)
        hint = " (did you mean " + " or ".join(map(repr, matches)) + "?)" if matches else ""
        described.append(f"{name!r}{hint}")
    raise SkillError(
        f"{skill.path}: allowed-tools of skill {skill.name!r} names tools this turn does "
        f"not have: {', '.join(described)}. This turn's tools: "
        f"{', '.join(available) or 'none'}. Fix allowed-tools, or give the agent the tool "
        "(Agent(tools=...), or tools= on the call)"
    )


class SkillMixin(HasParts):
    """``agent.skills``: an adapter over the agent's :class:`AgentSkills`."""

    @property
    def skills(self) -> SkillSet:
        """The discovered skills (empty without ``skills=``)."""
        return self._parts.skills.of(self.spec.skill_folders)
