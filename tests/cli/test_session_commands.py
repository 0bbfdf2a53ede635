"""The interactive session's own commands (/help, /clear, /exit, /quit), run through
``praisonlike chat`` with its input piped in."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import run_main

from praisonlike.testing import LocalLLMServer, Text

Chat = Callable[..., tuple[int, str, str]]
"""``chat(lines, *options)``: an interactive ``praisonlike chat`` on the test server,
``lines`` piped in; its exit code, stdout and stderr."""


@pytest.fixture
def chat(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Chat:
    def run(lines: str, *options: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
        model = ["--model", "openai/test-model", "--api-base", server.url, "--api-key", "sk-test"]
        return run_main(["chat", *model, *options], capsys)

    return run


def _skill(folder: Path, name: str, description: str, front: str = "") -> None:
    (folder / name).mkdir(parents=True)
    (folder / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{front}---\nDo {name} with $ARGUMENTS.\n"
    )


def test_help_lists_commands_and_skills_and_quit_leaves_without_a_request(
    server: LocalLLMServer,
    tmp_path: Path,
    chat: Chat,
) -> None:
    skills = tmp_path / "skills"
    _skill(skills, "greet", "Greet someone warmly", 'argument-hint: "<name> [tone]"\n')
    _skill(skills, "clear", "Clear skies forecast")
    code, out, err = chat("/help\n/quit\nnever sent\n", "--skills-dir", str(skills))
    assert code == 0, err
    assert server.request_count == 0
    assert "/help lists the commands" in out  # the greeting names it
    for command in ("/help", "/clear", "/exit", "/quit"):
        assert any(line.startswith(command + " ") for line in out.splitlines()), command
    rows = [" ".join(line.split()) for line in out.splitlines()]
    assert "/greet <name> [tone] Greet someone warmly" in rows
    assert "/clear Clear skies forecast (hidden by the command)" in rows


def test_clear_forgets_the_conversation_for_the_next_turn(
    server: LocalLLMServer,
    chat: Chat,
) -> None:
    server.extend([Text("Hello Ada."), Text("You told me: Ada."), Text("I do not know.")])
    lines = "My name is Ada.\nWhat is my name?\n/clear\nWhat is my name?\n/exit\n"
    code, out, err = chat(lines)
    assert code == 0, err
    assert "conversation cleared" in out
    second, third = server.requests[1].messages, server.requests[2].messages
    assert [m["content"] for m in second if m["role"] != "system"] == [
        "My name is Ada.",
        "Hello Ada.",
        "What is my name?",
    ]
    assert [m["content"] for m in third if m["role"] != "system"] == ["What is my name?"]


def test_a_misspelt_command_is_refused_and_the_session_goes_on(
    server: LocalLLMServer,
    chat: Chat,
) -> None:
    server.extend([Text("Sent as typed."), Text("A path.")])
    lines = "/exti\n /exti\n/usr/bin/python?\n/exit\n"
    code, _, err = chat(lines)
    assert code == 0
    assert (
        "praisonlike: error: there is no command /exti: did you mean /exit? (/help lists "
        "the commands; to send the text as a prompt, start it with a space)"
    ) in err
    assert [r.messages[-1]["content"] for r in server.requests] == [" /exti", "/usr/bin/python?"]


def test_a_near_miss_of_a_skill_is_not_taken_for_a_command(
    server: LocalLLMServer,
    tmp_path: Path,
    chat: Chat,
) -> None:
    skills = tmp_path / "skills"
    _skill(skills, "hello", "Say hello")
    code, _, err = chat("/helo Ada\n", "--skills-dir", str(skills))
    assert code == 0
    assert "there is no skill /helo: did you mean /hello?" in err
    assert "no command" not in err
    assert server.request_count == 0


def test_a_malformed_skill_under_help_is_reported_and_the_session_goes_on(
    tmp_path: Path, chat: Chat
) -> None:
    skills = tmp_path / "skills"
    (skills / "bad").mkdir(parents=True)
    (skills / "bad" / "SKILL.md").write_text("---\nname: Bad Name!\n---\nBody.\n")
    code, out, err = chat("/help\n/clear\n/exit\n", "--skills-dir", str(skills))
    assert code == 0
    assert "SkillError" in err and "name 'Bad Name!'" in err
    assert "conversation cleared" in out  # the session went on after the failed /help
