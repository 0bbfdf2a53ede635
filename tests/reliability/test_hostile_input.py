"""Hostile user input: control characters, invalid text, huge prompts, path-like skill names.

Every test runs in a sandbox (HOME, PRAISONLIKE_HOME and the working directory
point into a tmp tree) and checks at the end that nothing was written outside
the configured folders: the only new files are the session store's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from reliability_support import SLOW, WAYS, run_turn

from praisonlike import Agent, MemoryConfig, TerminationReason
from praisonlike.context import ContextConfig
from praisonlike.errors import (
    ContextWindowExceededError,
    InvalidInputError,
    PraisonlikeError,
    SkillError,
)
from praisonlike.memory import SQLiteStore
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

SECRET = "TOP-SECRET-CONTENT-OUTSIDE-THE-SKILLS"
STORE_FILES = {"sessions.db", "sessions.db-wal", "sessions.db-shm"}


@dataclass(frozen=True)
class Sandbox:
    root: Path
    store: Path
    skills: Path
    outside: Path

    def memory(self) -> MemoryConfig:
        return MemoryConfig(store=str(self.store), long_term=False)


def snapshot(root: Path) -> dict[str, int]:
    return {
        str(path.relative_to(root)): path.stat().st_size
        for path in root.rglob("*")
        if path.is_file() and not path.is_symlink()
    }


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sandbox]:
    home, work, state = tmp_path / "home", tmp_path / "work", tmp_path / "state"
    skills, outside = tmp_path / "skills", tmp_path / "outside"
    for folder in (home, work, state, skills, outside):
        folder.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (outside / "SKILL.md").write_text(f"---\nname: outside\ndescription: escapes\n---\n{SECRET}\n")
    greet = skills / "greet"
    greet.mkdir()
    (greet / "SKILL.md").write_text(
        "---\nname: greet\ndescription: Greets someone\n---\n"
        "Greet $0 warmly. Notes are in ${SKILL_DIR}/notes.md. All arguments: $ARGUMENTS\n"
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PRAISONLIKE_HOME", str(home / ".praisonlike"))
    # the price map's index is a cache, written by the first test of a process to read it
    monkeypatch.setenv("PRAISONLIKE_CACHE_DIR", str(tmp_path.parent / "praisonlike-cache"))
    monkeypatch.chdir(work)
    box = Sandbox(root=tmp_path, store=state / "sessions.db", skills=skills, outside=outside)
    before = snapshot(tmp_path)
    yield box
    after = snapshot(tmp_path)
    created = {name for name in after.keys() - before.keys()}
    assert {Path(name).name for name in created} <= STORE_FILES, created
    assert all(Path(name).parent == Path("state") for name in created), created
    changed = {name for name in before if after.get(name) != before[name]}
    assert changed <= {f"state/{name}" for name in STORE_FILES}, changed


def stored_queries(box: Sandbox, session: str) -> list[str]:
    if not box.store.exists():
        return []
    with SQLiteStore(box.store) as store:
        return [turn.query for turn in store.load_turns(session)]


CONTROL_PROMPTS = {
    "c0-controls": "".join(chr(c) for c in range(32)) + "end",
    "nul-and-delete": "before\x00after\x7f",
    "ansi-escapes": "\x1b[2J\x1b[31mred\x1b[0m \x1b]0;title\x07",
    "bidi-override": "abc\u202edcba\u202c \u2066isolate\u2069",
    "bom-and-zero-width": "\ufeff\u200b\u200d\u2060text",
    "line-separators": "one\u2028two\u2029three\r\nfour\rfive",
    "private-and-noncharacters": "\ue000\uffff\U0010fffe",
    "astral": "\U0001f600\U0001d54f\U000e0041",
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("prompt", CONTROL_PROMPTS.values(), ids=CONTROL_PROMPTS.keys())
def test_control_characters_reach_the_model_and_the_store_intact(
    server: LocalLLMServer, sandbox: Sandbox, prompt: str, way: str
) -> None:
    server.default = Text("answered")
    agent = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        session_id="controls",
        memory=sandbox.memory(),
    )

    run = run_turn(agent, way, prompt)
    agent.close()

    assert run.error is None, repr(run.error)
    assert run.answer == "answered"
    assert server.requests[0].messages[-1] == {"role": "user", "content": prompt}
    assert stored_queries(sandbox, "controls") == [prompt]
    resumed = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        session_id="controls",
        memory=sandbox.memory(),
    )
    assert resumed.chat("again") == "answered"
    resumed.close()
    assert {"role": "user", "content": prompt} in server.requests[-1].messages


INVALID_PROMPTS: dict[str, Any] = {
    "lone-high-surrogate": "hello \ud800 world",
    "lone-low-surrogate": "\udfff",
    "reversed-pair": "\ude00\ud83d",
    "surrogate-skill-argument": "/greet \ud800",
    "bytes": b"hello",
    "none": None,
    "number": 42,
    "empty": "",
    "whitespace": " \n\t ",
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("prompt", INVALID_PROMPTS.values(), ids=INVALID_PROMPTS.keys())
def test_invalid_prompts_raise_before_anything_is_sent_or_stored(
    server: LocalLLMServer, sandbox: Sandbox, prompt: Any, way: str
) -> None:
    server.default = Text("never")
    agent = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        session_id="invalid",
        memory=sandbox.memory(),
        skills=sandbox.skills,
    )

    run = run_turn(agent, way, prompt)
    agent.close()

    assert isinstance(run.error, InvalidInputError), repr(run.error)
    assert server.request_count == 0
    assert stored_queries(sandbox, "invalid") == []
    assert agent.chat_history == []


def test_a_10_mb_prompt_is_refused_before_anything_is_sent_or_stored(
    server: LocalLLMServer, sandbox: Sandbox
) -> None:
    window = 8192
    prompt = "word " * (2 * 1024 * 1024)
    server.default = Text("answered")
    agent = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        context=ContextConfig(max_context_tokens=window),
        session_id="huge",
        memory=sandbox.memory(),
    )

    run = run_turn(agent, "stream_events", prompt, deadline=120)
    agent.close()

    assert isinstance(run.error, ContextWindowExceededError), repr(run.error)
    assert "prompt is too long" in str(run.error)
    assert server.request_count == 0
    assert agent.chat_history == []
    assert stored_queries(sandbox, "huge") == [prompt]  # kept whole, as the user wrote it


@pytest.mark.skipif(not SLOW, reason="about 20 s of token counting; PRAISONLIKE_SLOW_TESTS=1")
def test_a_10_mb_prompt_without_spaces(server: LocalLLMServer, sandbox: Sandbox) -> None:
    server.default = Text("answered")
    agent = Agent(instructions="You answer.", llm=server.llm_config())

    run = run_turn(agent, "chat", "x" * (10 * 1024 * 1024), deadline=300)

    assert run.error is None or isinstance(run.error, PraisonlikeError), repr(run.error)
    assert server.request_count <= 1
    if server.requests:
        assert len(json.dumps(server.requests[0].messages)) < 8192 * 4


PATH_LIKE_PROMPTS = [
    "/../../etc/passwd",
    "/..",
    "/./greet Bob",
    "/greet/../../outside Bob",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/C:\\Windows\\System32",
    "/~root/.ssh/id_rsa",
    "/greet\x00 Bob",
    "/GREET Bob",
    "/outside",
    "//greet Bob",
]


@pytest.mark.parametrize("prompt", PATH_LIKE_PROMPTS)
def test_path_like_skill_names_pass_through_as_text(
    server: LocalLLMServer, sandbox: Sandbox, prompt: str
) -> None:
    server.default = Text("answered")
    agent = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        skills=sandbox.skills,
        session_id="paths",
        memory=sandbox.memory(),
    )

    assert agent.chat(prompt) == "answered"
    agent.close()

    sent = server.requests[0].messages[-1]["content"]
    assert sent == prompt
    assert SECRET not in json.dumps(server.requests[0].body)
    assert agent.last_result is not None and agent.last_result.skill is None


def test_traversal_in_skill_arguments_is_only_text(
    server: LocalLLMServer, sandbox: Sandbox
) -> None:
    server.default = Text("answered")
    agent = Agent(instructions="You answer.", llm=server.llm_config(), skills=sandbox.skills)
    arguments = "../../outside/secret.txt ${SKILL_DIR}/../../outside/secret.txt $ARGUMENTS \x00"

    assert agent.chat(f"/greet {arguments}") == "answered"

    sent = server.requests[0].messages[-1]["content"]
    assert sent.startswith("Greet ../../outside/secret.txt warmly.")
    assert f"{(sandbox.skills / 'greet').resolve()}/notes.md" in sent
    assert "${SKILL_DIR}/../../outside/secret.txt $ARGUMENTS" in sent
    assert SECRET not in json.dumps(server.requests[0].body)
    assert agent.last_result is not None and agent.last_result.skill == "greet"


LOAD_SKILL_NAMES = ["../outside", "../../outside/secret.txt", "/etc/passwd", "greet/../..", ""]


def test_the_model_cannot_load_a_skill_outside_the_folders(
    server: LocalLLMServer, sandbox: Sandbox
) -> None:
    calls = [
        Call("load_skill", {"name": name}, id=f"l{n}") for n, name in enumerate(LOAD_SKILL_NAMES)
    ]
    server.extend([ToolCalls(calls), Text("answered")])
    agent = Agent(instructions="You answer.", llm=server.llm_config(), skills=sandbox.skills)

    assert agent.chat("load some skills") == "answered"

    results = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"]
    assert len(results) == len(LOAD_SKILL_NAMES)
    assert all(r.startswith("Error") and "available: greet" in r for r in results)
    assert SECRET not in json.dumps(server.requests[1].body)


def test_a_skill_folder_escaping_by_symlink_is_refused(
    server: LocalLLMServer, sandbox: Sandbox
) -> None:
    os.symlink(sandbox.outside, sandbox.skills / "outside")
    server.default = Text("never")
    agent = Agent(instructions="You answer.", llm=server.llm_config(), skills=sandbox.skills)

    run = run_turn(agent, "chat", "/outside")

    assert isinstance(run.error, SkillError), repr(run.error)
    assert "outside the skill folder" in str(run.error)
    assert server.request_count == 0


@pytest.mark.parametrize("session_id", ["../../etc/passwd", "/tmp/evil", "a\x00b", "\u202e"])
def test_hostile_session_ids_are_only_keys(
    server: LocalLLMServer, sandbox: Sandbox, session_id: str
) -> None:
    server.default = Text("answered")
    agent = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        session_id=session_id,
        memory=sandbox.memory(),
    )

    assert agent.chat("hello") == "answered"
    agent.close()

    assert stored_queries(sandbox, session_id) == ["hello"]
    assert agent.last_result is not None
    assert agent.last_result.termination_reason is TerminationReason.COMPLETED
