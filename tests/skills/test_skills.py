from __future__ import annotations

import os
from pathlib import Path

import pytest

from praisonlike.errors import SkillError
from praisonlike.skills import MAX_SKILL_FILE_BYTES, Skill, SkillSet, render_skill

RELEASE_NOTES = """\
---
name: release-notes
description: Draft release notes from a list of changes
argument-hint: "<version> [audience]"
allowed-tools: [git_log, read_file]
---
Write release notes for version $0 for $ARGUMENTS[1].
"""


def write_skill(folder: Path, dirname: str, text: str) -> Path:
    skill_dir = folder / dirname
    skill_dir.mkdir(parents=True, exist_ok=True)
    path = skill_dir / "SKILL.md"
    path.write_text(text, encoding="utf-8")
    return path


def simple(name: str, extra: str = "", body: str | None = None) -> str:
    body = f"Body of {name}." if body is None else body
    return f"---\nname: {name}\ndescription: Does {name}\n{extra}---\n{body}\n"


def make_skill(body: str, directory: Path = Path("/skills/demo")) -> Skill:
    return Skill(
        name="demo",
        description="demo",
        body=body,
        directory=directory,
        path=directory / "SKILL.md",
    )


# -- discovery ---------------------------------------------------------------


def test_discover_reads_every_folder_and_parses_fields(tmp_path: Path) -> None:
    project, user = tmp_path / "project", tmp_path / "user"
    write_skill(project, "release-notes", RELEASE_NOTES)
    write_skill(user, "alpha", simple("alpha", "user-invocable: false\n"))
    write_skill(user, "beta", simple("beta", "disable-model-invocation: true\n"))
    (user / "not-a-skill").mkdir()
    (user / "README.md").write_text("loose file", encoding="utf-8")

    skills = SkillSet.discover([project, user, tmp_path / "missing"])

    assert skills.names == ("alpha", "beta", "release-notes")
    assert len(skills) == 3
    assert [s.name for s in skills] == ["alpha", "beta", "release-notes"]
    notes = skills.get("release-notes")
    assert notes is not None
    assert notes.description == "Draft release notes from a list of changes"
    assert notes.argument_hint == "<version> [audience]"
    assert notes.allowed_tools == ("git_log", "read_file")
    assert notes.body == "Write release notes for version $0 for $ARGUMENTS[1]."
    assert notes.path == (project / "release-notes" / "SKILL.md").resolve()
    assert notes.directory == (project / "release-notes").resolve()
    assert notes.user_invocable and notes.model_invocable
    alpha, beta = skills.get("alpha"), skills.get("beta")
    assert alpha is not None and beta is not None
    assert not alpha.user_invocable and alpha.model_invocable
    assert beta.user_invocable and not beta.model_invocable
    assert alpha.allowed_tools is None and alpha.argument_hint is None
    assert skills.get("nope") is None


def test_discover_of_nothing_is_empty(tmp_path: Path) -> None:
    skills = SkillSet.discover([tmp_path / "absent"])
    assert len(skills) == 0
    assert skills.catalogue() == ""
    assert skills.parse_invocation("/anything") is None


def test_same_folder_listed_twice_is_read_once(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha", simple("alpha"))
    skills = SkillSet.discover([tmp_path, tmp_path / "." / "", str(tmp_path)])
    assert skills.names == ("alpha",)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("git_log, read_file", ("git_log", "read_file")),
        ("git_log read_file", ("git_log", "read_file")),
        ('"Bash(git add:*), Read"', ("Bash(git add:*)", "Read")),
        ("[]", ()),
    ],
)
def test_allowed_tools_forms(tmp_path: Path, value: str, expected: tuple[str, ...]) -> None:
    write_skill(tmp_path, "alpha", simple("alpha", f"allowed-tools: {value}\n"))
    skill = SkillSet.discover([tmp_path]).get("alpha")
    assert skill is not None
    assert skill.allowed_tools == expected


def test_default_folders_honour_praisonlike_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PRAISONLIKE_HOME", str(tmp_path / "home"))
    assert SkillSet.default_folders() == [
        tmp_path / ".praisonlike" / "skills",
        tmp_path / "home" / "skills",
    ]
    monkeypatch.delenv("PRAISONLIKE_HOME")
    assert SkillSet.default_folders()[1] == Path.home() / ".praisonlike" / "skills"


# -- malformed skills -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("---\nname: alpha\ndescription: [unclosed\n---\nbody\n", "not valid YAML"),
        ("just a body, no front matter\n", "no front matter"),
        ("---\nname: alpha\ndescription: x\nbody without end\n", "not closed"),
        ("---\n- a\n- b\n---\nbody\n", "must be a YAML mapping"),
        ("---\ndescription: x\n---\nbody\n", "missing 'name'"),
        ("---\nname: alpha\n---\nbody\n", "missing 'description'"),
        ("---\nname: alpha\ndescription: '  '\n---\nbody\n", "'description' is empty"),
        ("---\nname: alpha\ndescription: 42\n---\nbody\n", "'description' must be a string"),
        ("---\nname: Alpha\ndescription: x\n---\nbody\n", "must match"),
        ("---\nname: beta\ndescription: x\n---\nbody\n", "differs from its folder name"),
        (simple("alpha", "user-invocable: 'yes'\n"), "'user-invocable' must be true or false"),
        (
            simple("alpha", "disable-model-invocation: 1\n"),
            "'disable-model-invocation' must be true or false",
        ),
        (simple("alpha", "argument-hint: [version]\n"), "'argument-hint' must be a string"),
        (simple("alpha", "allowed-tools: {a: 1}\n"), "'allowed-tools' must be a list"),
        (simple("alpha", "allowed-tools: [git, 3]\n"), "'allowed-tools' must be a list"),
        ("---\nname: alpha\ndescription: x\n---\n", "the body is empty"),
        ("---\nname: alpha\ndescription: x\n---\n  \n\t\n\n", "the body is empty"),
    ],
)
def test_malformed_skill_raises_naming_the_file(tmp_path: Path, text: str, problem: str) -> None:
    path = write_skill(tmp_path, "alpha", text)
    with pytest.raises(SkillError) as caught:
        SkillSet.discover([tmp_path])
    assert problem in str(caught.value)
    assert str(path.resolve()) in str(caught.value)


@pytest.mark.parametrize("name", ["a" * 65, "9lives", "has_underscore", "-dash"])
def test_bad_names_are_refused(tmp_path: Path, name: str) -> None:
    write_skill(tmp_path, name, simple(name))
    with pytest.raises(SkillError, match="must match"):
        SkillSet.discover([tmp_path])


def test_name_at_the_length_limit_is_accepted(tmp_path: Path) -> None:
    name = "a" * 64
    write_skill(tmp_path, name, simple(name))
    assert SkillSet.discover([tmp_path]).names == (name,)


def test_duplicate_names_across_folders_name_both_files(tmp_path: Path) -> None:
    first = write_skill(tmp_path / "one", "alpha", simple("alpha"))
    second = write_skill(tmp_path / "two", "alpha", simple("alpha"))
    with pytest.raises(SkillError, match="two skills are named 'alpha'") as caught:
        SkillSet.discover([tmp_path / "one", tmp_path / "two"])
    assert str(first.resolve()) in str(caught.value)
    assert str(second.resolve()) in str(caught.value)


def test_oversize_skill_file_is_refused(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha", simple("alpha", body="x" * (MAX_SKILL_FILE_BYTES + 1)))
    with pytest.raises(SkillError, match="byte limit"):
        SkillSet.discover([tmp_path])


def test_non_utf8_skill_file_is_refused(tmp_path: Path) -> None:
    path = write_skill(tmp_path, "alpha", "")
    path.write_bytes(b"---\nname: alpha\ndescription: caf\xe9\n---\nbody\n")
    with pytest.raises(SkillError, match="not valid UTF-8"):
        SkillSet.discover([tmp_path])


def test_configured_folder_that_is_a_file_is_an_error(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "skills"
    not_a_folder.write_text("", encoding="utf-8")
    with pytest.raises(SkillError, match="not a directory"):
        SkillSet.discover([not_a_folder])


def test_unknown_front_matter_keys_are_ignored(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha", simple("alpha", "license: MIT\nmetadata: {owner: me}\n"))
    assert SkillSet.discover([tmp_path]).names == ("alpha",)


def test_constructor_rejects_duplicates() -> None:
    skill = make_skill("x")
    with pytest.raises(SkillError, match="two skills"):
        SkillSet([skill, skill])


# -- traversal --------------------------------------------------------------------


symlinks = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")


@symlinks
def test_symlinked_skill_folder_leading_out_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_skill(outside, "alpha", simple("alpha"))
    root = tmp_path / "skills"
    root.mkdir()
    (root / "alpha").symlink_to(outside / "alpha", target_is_directory=True)
    with pytest.raises(SkillError, match="outside the skill folder"):
        SkillSet.discover([root])


@symlinks
def test_symlinked_skill_file_leading_out_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text(simple("alpha"), encoding="utf-8")
    root = tmp_path / "skills"
    (root / "alpha").mkdir(parents=True)
    (root / "alpha" / "SKILL.md").symlink_to(secret)
    with pytest.raises(SkillError, match="outside the skill folder"):
        SkillSet.discover([root])


@symlinks
def test_symlink_inside_the_folder_is_allowed(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "alpha", simple("alpha"))
    (root / "alpha" / "real.md").write_text(simple("alpha"), encoding="utf-8")
    (root / "alpha" / "SKILL.md").unlink()
    (root / "alpha" / "SKILL.md").symlink_to(root / "alpha" / "real.md")
    assert SkillSet.discover([root]).names == ("alpha",)


@symlinks
def test_configured_folder_may_itself_be_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    write_skill(real, "alpha", simple("alpha"))
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    assert SkillSet.discover([link]).names == ("alpha",)


@pytest.mark.parametrize(
    "name", ["../alpha", "..", "alpha/../alpha", "/etc/passwd", "a\\b", "../../secret"]
)
def test_path_like_names_never_load(tmp_path: Path, name: str) -> None:
    root = tmp_path / "skills"
    write_skill(root, "alpha", simple("alpha"))
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "SKILL.md").write_text(simple("secret"), encoding="utf-8")
    skills = SkillSet.discover([root])
    with pytest.raises(SkillError, match="available: alpha"):
        skills.load_skill_body(name)
    assert skills.get(name) is None
    assert skills.parse_invocation(f"/{name} x") is None


# -- invocation, catalogue, load_skill -------------------------------------------


@pytest.fixture
def skill_set(tmp_path: Path) -> SkillSet:
    write_skill(tmp_path, "release-notes", RELEASE_NOTES)
    write_skill(tmp_path, "hidden", simple("hidden", "user-invocable: false\n"))
    write_skill(
        tmp_path,
        "manual",
        simple("manual", "disable-model-invocation: true\n", body="See ${SKILL_DIR}/x.md"),
    )
    write_skill(tmp_path, "tools", simple("tools", body="Read ${SKILL_DIR}/ref.md for $0."))
    return SkillSet.discover([tmp_path])


def test_parse_invocation_returns_skill_and_arguments(skill_set: SkillSet) -> None:
    parsed = skill_set.parse_invocation('/release-notes 1.2 "core team"  ')
    assert parsed is not None
    skill, arguments = parsed
    assert skill.name == "release-notes"
    assert arguments == '1.2 "core team"'
    bare = skill_set.parse_invocation("/release-notes")
    assert bare is not None and bare[1] == ""
    multiline = skill_set.parse_invocation("/release-notes\n1.2\nline two")
    assert multiline is not None and multiline[1] == "1.2\nline two"


@pytest.mark.parametrize(
    "prompt",
    [
        "/etc/hosts is weird",
        "/unknown x",
        "/hidden please",
        "/release-notes: 1.2",
        "/release-notesx 1.2",
        "release-notes 1.2",
        "please run /release-notes 1.2",
        "/",
        "",
    ],
)
def test_other_prompts_pass_through(skill_set: SkillSet, prompt: str) -> None:
    assert skill_set.parse_invocation(prompt) is None


def test_manual_only_skill_is_user_invocable(skill_set: SkillSet) -> None:
    parsed = skill_set.parse_invocation("/manual")
    assert parsed is not None and parsed[0].name == "manual"


def test_catalogue_lists_only_model_invocable_skills(skill_set: SkillSet) -> None:
    catalogue = skill_set.catalogue()
    assert catalogue.startswith("## Skills")
    assert "load_skill" in catalogue
    assert "- release-notes: Draft release notes from a list of changes" in catalogue
    assert "- hidden: Does hidden" in catalogue
    assert "- tools: Does tools" in catalogue
    assert "manual" not in catalogue
    assert "Write release notes for version" not in catalogue


def test_load_skill_body_round_trip(skill_set: SkillSet) -> None:
    tools = skill_set.get("tools")
    assert tools is not None
    assert skill_set.load_skill_body("tools") == f"Read {tools.directory}/ref.md for $0."
    assert skill_set.load_skill_body("release-notes") == (
        "Write release notes for version $0 for $ARGUMENTS[1]."
    )


def test_load_skill_body_refuses_unknown_and_disabled(skill_set: SkillSet) -> None:
    for name in ("missing", "manual"):
        with pytest.raises(SkillError) as caught:
            skill_set.load_skill_body(name)
        assert "available: hidden, release-notes, tools" in str(caught.value)


# -- rendering ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "arguments", "expected"),
    [
        ("All: $ARGUMENTS.", "  a b  c ", "All: a b  c."),
        ("$ARGUMENTS[0]/$ARGUMENTS[1]", "x y", "x/y"),
        ("$0-$1-$2", "x y", "x-y-"),
        ("[$ARGUMENTS[5]]", "x", "[]"),
        ("v=$0 aud=$1", '1.2 "core team"', "v=1.2 aud=core team"),
        ("v=$0 aud=$1", "1.2 'it''s'", "v=1.2 aud=its"),
        ("v=$0 aud=$1", "it's broken", "v=it's aud=broken"),
        ("$0 then $1", "$1 x", "$1 then x"),
        ("$ARGUMENTS", "$ARGUMENTS[0]", "$ARGUMENTS[0]"),
        ("item $10", "a b c d e f g h i j k", "item k"),
        ("Just do it.", "extra words", "Just do it.\n\nARGUMENTS: extra words"),
        ("Just do it.", "   ", "Just do it."),
        ("Uses $ARGUMENTS", "", "Uses "),
        ("In ${SKILL_DIR} with $0", "a", "In /skills/demo with a"),
    ],
)
def test_render_skill_substitutions(body: str, arguments: str, expected: str) -> None:
    assert render_skill(make_skill(body), arguments) == expected


def test_skill_dir_only_body_still_gets_arguments_appended() -> None:
    rendered = render_skill(make_skill("Read ${SKILL_DIR}/a.md"), "x")
    assert rendered == "Read /skills/demo/a.md\n\nARGUMENTS: x"


def test_render_discovered_skill(skill_set: SkillSet) -> None:
    parsed = skill_set.parse_invocation('/release-notes 2.0 "ops people"')
    assert parsed is not None
    assert render_skill(*parsed) == "Write release notes for version 2.0 for ops people."


def test_a_skills_folder_named_that_is_not_there_is_refused_at_construction(
    tmp_path: Path,
) -> None:
    from praisonlike import Agent
    from praisonlike.errors import ConfigurationError
    from praisonlike.testing import TestModel

    with pytest.raises(
        ConfigurationError, match=r"Agent\(skills=\.\.\.\): no such folder: .*skils"
    ):
        Agent(instructions="x", llm=TestModel(), skills=[tmp_path, tmp_path / "skils"])
    with pytest.raises(ConfigurationError, match="no such folder"):
        Agent(instructions="x", llm=TestModel(), skills=str(tmp_path / "SKILL.md"))
    assert Agent(instructions="x", llm=TestModel(), skills=tmp_path).spec.skill_folders == (
        tmp_path,
    )


def test_near_invocation_names_the_skill_a_prompt_misspells(tmp_path: Path) -> None:
    write_skill(tmp_path, "release-notes", RELEASE_NOTES)
    write_skill(tmp_path, "alpha", simple("alpha", "user-invocable: false\n"))
    skills = SkillSet.discover([tmp_path])

    assert skills.near_invocation("/relase-notes 1.2") == "release-notes"
    assert skills.near_invocation("/release-notes 1.2") is None  # the skill itself
    assert skills.near_invocation("/alpah") is None  # close only to a skill users cannot invoke
    assert skills.near_invocation("/etc/release-notes") is None  # a path
    assert skills.near_invocation("/deploy now") is None  # close to nothing
    assert skills.near_invocation("release-notes") is None  # no slash
