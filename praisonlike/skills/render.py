"""Turning a skill into prompt text: argument substitution and the catalogue.

Placeholders in a skill body, replaced in one left-to-right pass (text an
argument brings in is never expanded again):

* ``$ARGUMENTS`` -- the whole argument string, stripped of outer whitespace;
* ``$ARGUMENTS[N]`` and ``$N`` -- the Nth argument, 0-based, split shell-like
  (``"two words"`` is one argument); an argument string with unbalanced
  quotes is split on whitespace instead; a missing Nth argument becomes "";
* ``${SKILL_DIR}`` -- the absolute path of the skill's folder.

A body with none of the argument forms gets the arguments appended as
``"\\n\\nARGUMENTS: <arguments>"`` when there are any. There is no escape
syntax: a literal ``$1`` in a body is always a placeholder.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from typing import TYPE_CHECKING

from praisonlike.errors import SkillError

if TYPE_CHECKING:
    from praisonlike.skills.loader import Skill

_PLACEHOLDER = re.compile(
    r"\$\{SKILL_DIR\}|\$ARGUMENTS\[(?P<indexed>\d+)\]|\$ARGUMENTS|\$(?P<positional>\d+)"
)
_ARGUMENT_FORM = re.compile(r"\$ARGUMENTS|\$\d")
_OPTIONAL = re.compile(r"\[[^\]]*\]")
_REQUIRED = re.compile(r"<[^<>]+>")

CATALOGUE_HEADING = "## Skills"


def split_arguments(arguments: str) -> list[str]:
    """Split an argument string like a shell would, or on whitespace if quotes are unbalanced."""
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


def render_skill(skill: Skill, arguments: str) -> str:
    """The skill's body with every placeholder substituted for ``arguments``.

    Raises :class:`~praisonlike.errors.SkillError` when ``arguments`` is blank
    and the skill's ``argument-hint`` marks one as required (``<version>``;
    ``[audience]`` is optional), naming the usage.
    """
    arguments = arguments.strip()
    hint = skill.argument_hint or ""
    if not arguments and _REQUIRED.search(_OPTIONAL.sub("", hint)):
        raise SkillError(
            f"skill /{skill.name} needs its arguments: /{skill.name} {hint.strip()} "
            "(<...> is required, [...] optional)"
        )
    words = split_arguments(arguments)
    skill_dir = str(skill.directory)

    def substitute(match: re.Match[str]) -> str:
        index = match.group("indexed") or match.group("positional")
        if index is not None:
            position = int(index)
            return words[position] if position < len(words) else ""
        if match.group(0) == "$ARGUMENTS":
            return arguments
        return skill_dir

    rendered = _PLACEHOLDER.sub(substitute, skill.body)
    if arguments and not _ARGUMENT_FORM.search(skill.body):
        rendered = f"{rendered}\n\nARGUMENTS: {arguments}"
    return rendered


def expand_skill_dir(skill: Skill) -> str:
    """The skill's body with only ``${SKILL_DIR}`` substituted; argument forms are kept."""
    return skill.body.replace("${SKILL_DIR}", str(skill.directory))


def render_catalogue(skills: Iterable[Skill]) -> str:
    """The system-prompt section naming and describing ``skills``; "" when there are none."""
    lines = [f"- {skill.name}: {' '.join(skill.description.split())}" for skill in skills]
    if not lines:
        return ""
    intro = (
        "These skills hold instructions for specific tasks. When a task matches a skill's "
        "description, call the load_skill tool with the skill's name to read its "
        "instructions, then follow them."
    )
    return "\n".join([CATALOGUE_HEADING, "", intro, "", *lines])
