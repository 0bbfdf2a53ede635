"""Finding, validating and holding skills: folders with a ``SKILL.md``.

A skill folder ``<configured folder>/<name>/SKILL.md`` holds YAML front matter
between two ``---`` lines, then a markdown body. Rules a caller may rely on:

* the front matter must set ``name`` and ``description`` (non-empty strings);
  ``name`` matches ``[a-z][a-z0-9-]*``, is at most 64 characters and equals the
  name of the skill's folder, so ``/name`` always maps to ``<folder>/name``;
* the body (after the closing ``---``) holds the skill's instructions and must
  not be empty or whitespace only, so a discovered skill's body is never "";
* optional keys: ``argument-hint`` (string), ``allowed-tools`` (list of strings,
  or one string split on commas if it has any, otherwise on whitespace),
  ``user-invocable`` (bool, default true), ``disable-model-invocation`` (bool,
  default false). Other keys are ignored, so files shared with other tools load;
* any problem -- unreadable or non-UTF-8 file, over :data:`MAX_SKILL_FILE_BYTES`,
  missing or invalid front matter, a wrong type, an empty body, two skills with
  one name, a ``SKILL.md`` whose resolved path leaves its configured folder --
  raises :class:`~praisonlike.errors.SkillError` naming the file(s). No skill is
  dropped silently. Folders without a ``SKILL.md`` are not skills and are passed over;
* files are only read, during :meth:`SkillSet.discover`; nothing is executed.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from praisonlike.errors import ConfigurationError, SkillError
from praisonlike.skills.render import expand_skill_dir, render_catalogue

SKILL_FILE = "SKILL.md"
MAX_SKILL_FILE_BYTES = 256 * 1024
MAX_NAME_LENGTH = 64
_NAME = re.compile(r"[a-z][a-z0-9-]*")
_INVOCATION = re.compile(r"\s*/(?P<name>\S+)(?:\s+(?P<arguments>.*))?", re.DOTALL)


@dataclass(frozen=True)
class Skill:
    """One validated skill.

    ``directory`` and ``path`` are resolved (symlink-free) paths inside the
    configured folder the skill was found in. ``allowed_tools`` is ``None`` when
    the front matter does not restrict tools, and a tuple (possibly empty) when
    it does. ``model_invocable`` is the negation of ``disable-model-invocation``.
    """

    name: str
    description: str
    body: str
    directory: Path
    path: Path
    argument_hint: str | None = None
    allowed_tools: tuple[str, ...] | None = None
    user_invocable: bool = True
    model_invocable: bool = True


def is_valid_skill_name(name: str) -> bool:
    """Whether ``name`` is a well-formed skill name (never a path)."""
    return len(name) <= MAX_NAME_LENGTH and _NAME.fullmatch(name) is not None


class SkillSet:
    """An immutable collection of skills with unique names, iterated in name order."""

    def __init__(self, skills: Sequence[Skill] = ()) -> None:
        by_name: dict[str, Skill] = {}
        for skill in skills:
            if skill.name in by_name:
                raise SkillError(
                    f"two skills are named {skill.name!r}: "
                    f"{by_name[skill.name].path} and {skill.path}"
                )
            by_name[skill.name] = skill
        self._by_name: Mapping[str, Skill] = MappingProxyType(dict(sorted(by_name.items())))

    @classmethod
    def discover(cls, folders: Sequence[str | Path]) -> SkillSet:
        """Load every ``<folder>/<skill>/SKILL.md`` under ``folders``.

        Missing folders are skipped; a folder listed twice (after resolving) is
        read once. Raises :class:`SkillError` on the first problem found.
        """
        skills: list[Skill] = []
        seen_roots: set[Path] = set()
        for folder in folders:
            root = Path(folder).expanduser()
            if not root.exists():
                continue
            if not root.is_dir():
                raise SkillError(f"{root}: skill folder is not a directory")
            resolved_root = root.resolve()
            if resolved_root in seen_roots:
                continue
            seen_roots.add(resolved_root)
            skills.extend(_load_folder(root, resolved_root))
        return cls(skills)

    @classmethod
    def default_folders(cls) -> list[Path]:
        """``./.praisonlike/skills`` then ``~/.praisonlike/skills``.

        ``$PRAISONLIKE_HOME`` replaces ``~/.praisonlike`` when set and non-empty.
        """
        home = os.environ.get("PRAISONLIKE_HOME")
        base = Path(home).expanduser() if home else Path.home() / ".praisonlike"
        return [Path.cwd() / ".praisonlike" / "skills", base / "skills"]

    @property
    def names(self) -> tuple[str, ...]:
        """Every skill name, sorted."""
        return tuple(self._by_name)

    def get(self, name: str) -> Skill | None:
        """The skill called ``name``, or ``None`` if there is none."""
        return self._by_name.get(name)

    def __iter__(self) -> Iterator[Skill]:
        return iter(self._by_name.values())

    def __len__(self) -> int:
        return len(self._by_name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __repr__(self) -> str:
        return f"SkillSet({list(self.names)!r})"

    def parse_invocation(self, prompt: str) -> tuple[Skill, str] | None:
        """``(skill, arguments)`` when ``prompt`` starts with ``/<name>`` of a user-invocable skill.

        The name must be followed by whitespace or the end of the prompt;
        ``arguments`` is the rest, stripped. Anything else -- a path such as
        ``/etc/hosts``, an unknown or non-user-invocable name -- gives ``None``,
        and the caller should send the prompt unchanged.
        """
        match = _INVOCATION.fullmatch(prompt)
        if match is None:
            return None
        skill = self._by_name.get(match.group("name"))
        if skill is None or not skill.user_invocable:
            return None
        return skill, (match.group("arguments") or "").strip()

    def near_invocation(self, prompt: str) -> str | None:
        """The user-invocable skill ``prompt`` seems to misspell (``/haikuu rain`` ->
        ``haiku``): it starts with ``/<name>``, no skill is called ``<name>`` (nor is
        it a path) and one is close; else ``None``."""
        match = _INVOCATION.fullmatch(prompt)
        if match is None or "/" in match.group("name"):
            return None
        name = match.group("name")
        names = [skill.name for skill in self if skill.user_invocable]
        if name in names:
            return None
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
        return close[0] if close else None

    def model_invocable(self) -> tuple[Skill, ...]:
        """The skills the model may load, sorted by name."""
        return tuple(skill for skill in self if skill.model_invocable)

    def catalogue(self) -> str:
        """The system-prompt section listing model-invocable skills; "" when there are none."""
        return render_catalogue(self.model_invocable())

    def load_skill_body(self, name: str) -> str:
        """The body of model-invocable skill ``name`` with ``${SKILL_DIR}`` substituted.

        Argument placeholders are left as written (the model has no argument
        string). Reads nothing from disk. Raises :class:`SkillError` listing
        the available names when ``name`` is unknown, malformed or disabled
        for the model.
        """
        skill = self._by_name.get(name) if is_valid_skill_name(name) else None
        if skill is None or not skill.model_invocable:
            available = ", ".join(s.name for s in self.model_invocable()) or "none"
            raise SkillError(f"no skill named {name!r} can be loaded; available: {available}")
        return expand_skill_dir(skill)


def _load_folder(root: Path, resolved_root: Path) -> list[Skill]:
    skills = []
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        skill_file = entry / SKILL_FILE
        if not entry.is_dir() or not skill_file.is_file():
            continue
        resolved = skill_file.resolve()
        if not resolved.is_relative_to(resolved_root):
            raise SkillError(
                f"{skill_file}: resolves to {resolved}, outside the skill folder {root}"
            )
        skills.append(_load_skill(entry.name, resolved))
    return skills


def _load_skill(folder_name: str, path: Path) -> Skill:
    front_matter, body = _split_front_matter(path, _read_text(path))
    name = _required_string(path, front_matter, "name")
    if not is_valid_skill_name(name):
        raise SkillError(
            f"{path}: name {name!r} must match [a-z][a-z0-9-]* and be at most "
            f"{MAX_NAME_LENGTH} characters"
        )
    if name != folder_name:
        raise SkillError(f"{path}: name {name!r} differs from its folder name {folder_name!r}")
    description = _required_string(path, front_matter, "description")
    if not body:
        raise SkillError(
            f"{path}: the body is empty; the body holds the skill's instructions "
            "(the text the model is sent), so write them after the closing '---' line"
        )
    return Skill(
        name=name,
        description=description,
        body=body,
        directory=path.parent,
        path=path,
        argument_hint=_optional_argument_hint(path, front_matter),
        allowed_tools=_optional_tools(path, front_matter),
        user_invocable=_optional_bool(path, front_matter, "user-invocable", default=True),
        model_invocable=not _optional_bool(
            path, front_matter, "disable-model-invocation", default=False
        ),
    )


def _read_text(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_SKILL_FILE_BYTES + 1)
    except OSError as exc:
        raise SkillError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    if len(data) > MAX_SKILL_FILE_BYTES:
        raise SkillError(f"{path}: larger than the {MAX_SKILL_FILE_BYTES} byte limit")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SkillError(f"{path}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc


def _split_front_matter(path: Path, text: str) -> tuple[dict[str, Any], str]:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        raise SkillError(f"{path}: no front matter (the file must start with a '---' line)")
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            header = "".join(lines[1:index])
            body = "".join(lines[index + 1 :]).strip()
            return _parse_yaml(path, header), body
    raise SkillError(f"{path}: front matter is not closed by a '---' line")


def _parse_yaml(path: Path, header: str) -> dict[str, Any]:
    try:
        import yaml
    except ImportError as exc:
        raise ConfigurationError("skills need PyYAML: pip install 'praisonlike[yaml]'") from exc
    try:
        data = yaml.safe_load(header)
    except yaml.YAMLError as exc:
        raise SkillError(f"{path}: front matter is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise SkillError(f"{path}: front matter must be a YAML mapping of keys to values")
    return data


def _required_string(path: Path, data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None:
        raise SkillError(f"{path}: front matter is missing {key!r}")
    if not isinstance(value, str):
        raise SkillError(f"{path}: {key!r} must be a string, not {type(value).__name__}")
    if not value.strip():
        raise SkillError(f"{path}: {key!r} is empty")
    return value.strip()


def _optional_argument_hint(path: Path, data: Mapping[str, Any]) -> str | None:
    value = data.get("argument-hint")
    if value is None or isinstance(value, str):
        return value
    raise SkillError(
        f"{path}: 'argument-hint' must be a string, not {type(value).__name__} "
        '(quote it, e.g. argument-hint: "[version]")'
    )


def _optional_tools(path: Path, data: Mapping[str, Any]) -> tuple[str, ...] | None:
    value = data.get("allowed-tools")
    if value is None:
        return None
    if isinstance(value, str):
        parts = value.split(",") if "," in value else value.split()
        return tuple(part.strip() for part in parts if part.strip())
    if isinstance(value, list) and all(isinstance(item, str) and item.strip() for item in value):
        return tuple(item.strip() for item in value)
    raise SkillError(f"{path}: 'allowed-tools' must be a list of non-empty strings or one string")


def _optional_bool(path: Path, data: Mapping[str, Any], key: str, *, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise SkillError(f"{path}: {key!r} must be true or false, not {value!r}")
    return value
