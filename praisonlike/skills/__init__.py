"""Skills: reusable prompt recipes kept as ``<folder>/<name>/SKILL.md``.

See :mod:`praisonlike.skills.loader` for the file format and validation rules,
and :mod:`praisonlike.skills.render` for argument substitution.
"""

from praisonlike.skills.loader import (
    MAX_SKILL_FILE_BYTES,
    SKILL_FILE,
    Skill,
    SkillSet,
    is_valid_skill_name,
)
from praisonlike.skills.render import render_skill

__all__ = [
    "MAX_SKILL_FILE_BYTES",
    "SKILL_FILE",
    "Skill",
    "SkillSet",
    "is_valid_skill_name",
    "render_skill",
]
