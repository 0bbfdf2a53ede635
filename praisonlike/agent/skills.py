"""SkillMixin: ``/name args`` invocation and model-loaded skills.

Skills are discovered on first use (a malformed one raises
:class:`SkillError` naming its file). A prompt whose first word is ``/`` plus a
known, user-invocable skill is replaced by the rendered skill body; any other
text starting with ``/`` passes through unchanged. Model-invocable skills are
listed (name and description) in the system prompt, and a built-in
``load_skill(name)`` tool returns a body when the model asks for it.

Only the agent's own tools are combined with ``load_skill`` once and kept
(``_skill_registries``, one entry); a call's ``tools=`` list is combined afresh
for that call and never kept, so it is freed with the turn.

Uses from ``self``: ``skill_folders``, ``_skill_set_cache``, ``_skill_registries``,
``_registry_for_call`` (ToolExecutionMixin).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

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


class SkillMixin:
    skill_folders: tuple[Path, ...] | None
    _skill_set_cache: SkillSet | None
    _skill_registries: dict[int, tuple[ToolRegistry, ToolRegistry]]

    if TYPE_CHECKING:

        def _registry_for_call(self, tools: Sequence[Any] | None) -> ToolRegistry: ...

    @property
    def skills(self) -> SkillSet:
        """The discovered skills (empty without ``skills=``)."""
        from praisonlike.skills import SkillSet

        if self._skill_set_cache is None:
            folders = self.skill_folders or ()
            self._skill_set_cache = SkillSet.discover(list(folders)) if folders else SkillSet()
        return self._skill_set_cache

    def _skill_catalogue(self) -> str:
        return self.skills.catalogue() if self.skill_folders else ""

    def _expand_prompt(
        self, prompt: str, run_id: str
    ) -> tuple[str, str | None, list[Any], tuple[str, ...] | None]:
        """(prompt the model sees, skill name, events, allowed tools)."""
        if not self.skill_folders or not prompt.lstrip().startswith("/"):
            return prompt, None, [], None
        from praisonlike.events import SkillInvoked
        from praisonlike.skills import render_skill

        invocation = self.skills.parse_invocation(prompt)
        if invocation is None:
            return prompt, None, [], None
        skill, arguments = invocation
        event = SkillInvoked(run_id=run_id, skill=skill.name, arguments=arguments)
        return render_skill(skill, arguments), skill.name, [event], skill.allowed_tools

    def _with_builtin_tools(self, registry: ToolRegistry) -> ToolRegistry:
        if not self.skill_folders or not self.skills.model_invocable():
            return registry
        if LOAD_SKILL_TOOL in registry:
            return registry
        if registry is not self._registry_for_call(None):
            return registry.with_tools([self._load_skill_tool()])
        cached = self._skill_registries.get(id(registry))
        if cached is not None and cached[0] is registry:
            return cached[1]
        combined = registry.with_tools([self._load_skill_tool()])
        self._skill_registries = {id(registry): (registry, combined)}
        return combined

    def _load_skill_tool(self) -> FunctionTool:
        from praisonlike.tools.python_tool import function_tool

        skills = self.skills

        def load_skill(name: str) -> str:
            """Load the full instructions of one of the available skills.

            Args:
                name: The skill's name, as listed in the system prompt.
            """
            return skills.load_skill_body(name)

        return function_tool(load_skill, name=LOAD_SKILL_TOOL)
