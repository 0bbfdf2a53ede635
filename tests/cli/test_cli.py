"""The ``praisonlike`` command: subprocesses (and a pseudo-terminal) against LocalLLMServer,
plus in-process ``main()`` calls for the commands that need no second process."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import PROVIDER_VARIABLES, run_main

from praisonlike import RunResult, TerminationReason
from praisonlike.cli import main
from praisonlike.memory import MessageStatus, SQLiteStore, StepRecord, TurnRecord
from praisonlike.testing import (
    Call,
    Delay,
    Fault,
    LocalLLMServer,
    RecordedRequest,
    Text,
    ToolCalls,
)

REPO = Path(__file__).resolve().parents[2]
PROVIDER_KEYS = (*PROVIDER_VARIABLES, "PRAISONLIKE_API_KEY", "PRAISONLIKE_API_BASE")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\r")


# -- helpers ---------------------------------------------------------------------------


def cli_env(tmp_path: Path, *python_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_KEYS}
    env.update(
        PRAISONLIKE_ALLOW_MODEL_REQUESTS="0",
        PRAISONLIKE_HOME=str(tmp_path / "home"),
        COLUMNS="200",
        LINES="50",
        TERM="xterm",
        PYTHONPATH=os.pathsep.join(str(p) for p in (*python_path, REPO)),
    )
    return env


def model_args(server: LocalLLMServer, model: str = "openai/test-model") -> list[str]:
    return ["--model", model, "--api-base", server.url, "--api-key", "sk-test"]


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("praisonlike: error: ")]


def table_rows(out: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in out.splitlines()
        if line.startswith("│")
    ]


def wait_until(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met before the deadline")
        time.sleep(0.02)


class Terminal:
    """The master side of a pseudo-terminal: read what the program shows, type into it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.screen = ""
        self._seen = 0

    def expect(self, text: str, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            found = self.screen.find(text, self._seen)
            if found >= 0:
                self._seen = found + len(text)
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{text!r} not shown; the terminal shows:\n{self.screen}")
            ready, _, _ = select.select([self.fd], [], [], min(remaining, 0.5))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"{text!r} not shown before exit:\n{self.screen}")
                self.screen += ANSI.sub("", chunk.decode("utf-8", "replace"))

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())


# -- subprocesses ------------------------------------------------------------------------


def test_one_turn_as_json_with_a_tool_from_a_module(server: LocalLLMServer, tmp_path: Path) -> None:
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "shouting.py").write_text(
        "def shout(text: str) -> str:\n"
        '    """Upper-case the text.\n\n    Args:\n        text: What to shout.\n    """\n'
        "    return text.upper() + '!'\n"
    )
    server.extend([ToolCalls([Call("shout", {"text": "hello"}, id="s1")]), Text("It says HELLO!")])
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "praisonlike.cli",
            "chat",
            "Shout hello",
            *model_args(server),
            "--tool",
            "shouting:shout",
            "--json",
        ],
        env=cli_env(tmp_path, modules),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    result = RunResult.model_validate(json.loads(proc.stdout))
    assert result.output == "It says HELLO!"
    assert result.termination_reason is TerminationReason.COMPLETED
    assert [(c.name, c.arguments, c.result) for c in result.tool_calls] == [
        ("shout", {"text": "hello"}, "HELLO!")
    ]
    assert server.requests[0].tools[0]["function"]["name"] == "shout"
    assert server.requests[0].messages[-1] == {"role": "user", "content": "Shout hello"}
    assert server.requests[1].messages[-1]["content"] == "HELLO!"
    assert '-> shout(text="hello")' in proc.stderr


def test_a_tool_from_a_file_path_imports_its_neighbours(
    server: LocalLLMServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tools = tmp_path / "project" / "tools"
    tools.mkdir(parents=True)
    (tools / "cli_file_rates.py").write_text("RATE = 1.5\n")
    (tools / "cli_file_convert.py").write_text(
        "from cli_file_rates import RATE\n\n\n"
        "def convert(amount: float) -> float:\n"
        '    """Convert an amount."""\n'
        "    return amount * RATE\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    server.extend([ToolCalls([Call("convert", {"amount": 4})]), Text("6.0")])

    argv = ["chat", "Convert 4", *model_args(server), "--no-stream"]
    try:
        code, out, err = run_main(
            [*argv, "--tool", "project/tools/cli_file_convert.py:convert"], capsys
        )
    finally:
        for name in ("cli_file_convert", "cli_file_rates"):
            sys.modules.pop(name, None)

    assert code == 0, err
    assert "<- convert (" in out and "): 6.0" in out
    assert server.requests[1].messages[-1]["content"] == "6.0"


def test_interactive_session_in_a_terminal(server: LocalLLMServer, tmp_path: Path) -> None:
    server.extend([Text("First answer."), Delay(120, Text("too late")), Text("After the cancel.")])
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "praisonlike.cli",
            "chat",
            *model_args(server, "openai/gpt-4o-mini"),
        ],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=cli_env(tmp_path),
        cwd=tmp_path,
        start_new_session=True,
    )
    os.close(slave)
    term = Terminal(master)
    try:
        term.expect("you> ")
        term.type("hello \\\n")
        term.expect("...> ")
        term.type("world\n")
        term.expect("First answer.")
        term.expect("session cost: $0.0000")
        term.expect("you> ")
        assert server.requests[0].messages[-1] == {"role": "user", "content": "hello \nworld"}

        term.type("a slow question\n")
        wait_until(lambda: server.request_count == 2)
        proc.send_signal(signal.SIGINT)
        term.expect("turn cancelled")
        term.expect("session cost: ")
        term.expect("you> ")

        term.type("again\n")
        term.expect("After the cancel.")
        term.expect("you> ")
        contents = [m["content"] for m in server.requests[2].messages]
        assert contents[-3:] == ["hello \nworld", "First answer.", "again"]

        term.type("/exit\n")
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


# -- in-process: chat ----------------------------------------------------------------------


def test_interactive_session_reads_until_end_of_input(
    server: LocalLLMServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    skill = tmp_path / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: greet\ndescription: Greet someone\n---\nGreet $ARGUMENTS warmly.\n"
    )
    server.extend([Text("Hi there."), Text("Hello Ada!")])
    monkeypatch.setattr(sys, "stdin", io.StringIO("hi\n\n/greet Ada\n"))
    code, out, _ = run_main(
        ["chat", *model_args(server), "--skills-dir", str(tmp_path / "skills")], capsys
    )
    assert code == 0
    assert server.request_count == 2
    assert server.requests[1].messages[-1] == {"role": "user", "content": "Greet Ada warmly."}
    assert "Hi there.\n" in out and "Hello Ada!\n" in out
    assert "skill /greet Ada" in out
    assert out.count("session cost: unknown") == 2


def test_a_misspelt_skill_is_refused_with_the_close_one_before_any_request(
    server: LocalLLMServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = tmp_path / "skills"
    write_skill(folder, "haiku", "name: haiku\ndescription: Write a haiku")
    skills = ["--skills-dir", str(folder)]
    code, out, err = run_main(["chat", "/haikuu rain", *model_args(server), *skills], capsys)
    assert code == 2
    assert error_lines(err) == [
        "praisonlike: error: there is no skill /haikuu: did you mean /haiku? (to send the "
        "text as a prompt, start it with a space)"
    ]
    assert server.request_count == 0

    server.extend([Text("A path."), Text("Sent as typed."), Text("Rain haiku.")])
    code, _, _ = run_main(["chat", "/etc/hosts?", *model_args(server), *skills], capsys)
    assert code == 0
    code, _, _ = run_main(["chat", " /haikuu rain", *model_args(server), *skills], capsys)
    assert code == 0
    assert [r.messages[-1]["content"] for r in server.requests] == ["/etc/hosts?", " /haikuu rain"]

    monkeypatch.setattr(sys, "stdin", io.StringIO("/haikuu rain\n/haiku rain\n"))
    code, out, err = run_main(["chat", *model_args(server), *skills], capsys)
    assert code == 0
    assert "did you mean /haiku?" in err
    assert server.request_count == 3  # only /haiku rain, the session went on
    assert out.count("session cost:") == 1


def test_a_skill_missing_its_required_argument_is_refused_and_the_session_goes_on(
    server: LocalLLMServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = tmp_path / "skills"
    write_skill(
        folder,
        "notes",
        'name: notes\ndescription: Release notes\nargument-hint: "<version> [audience]"',
    )
    server.add(Text("Notes for 2.0."))
    monkeypatch.setattr(sys, "stdin", io.StringIO("/notes\n/notes 2.0\n"))
    code, out, err = run_main(["chat", *model_args(server), "--skills-dir", str(folder)], capsys)
    assert code == 0
    assert "skill /notes needs its arguments: /notes <version> [audience]" in err
    assert server.request_count == 1
    assert "Notes for 2.0." in out
    assert out.count("session cost:") == 1


def test_no_stream_sends_a_plain_request(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(Text("Whole answer."))
    code, out, _ = run_main(["chat", "hi", *model_args(server), "--no-stream"], capsys)
    assert code == 0
    assert server.requests[0].stream is False
    assert out.splitlines()[0] == "Whole answer."


def test_ctrl_c_cancels_a_one_shot_turn(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupt(request: RecordedRequest) -> Delay:
        os.kill(os.getpid(), signal.SIGINT)
        return Delay(120, Text("too late"))

    server.add(interrupt)
    code, out, err = run_main(["chat", "hi", *model_args(server), "--json"], capsys)
    assert code == 130
    result = RunResult.model_validate_json(out)
    assert result.termination_reason is TerminationReason.CANCELLED
    assert error_lines(err) == ["praisonlike: error: RunCancelled: cancelled by Ctrl-C"]
    usage = result.usage
    assert usage.estimated and usage.prompt_tokens > 0  # the prompt was sent: never a false 0
    assert f"~{usage.total_tokens} tokens ({usage.prompt_tokens} in, 0 out, estimated)" in err


def test_a_session_is_stored_and_shown(
    server: LocalLLMServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    store = str(tmp_path / "sessions.db")
    server.default = Text("a summary")
    server.add(Text("Noted: 42."))
    code, _, _ = run_main(
        ["chat", "Remember 42", *model_args(server), "--session", "s1", "--store", store], capsys
    )
    assert code == 0
    code, out, _ = run_main(["sessions", "show", "s1", "--store", store], capsys)
    assert code == 0
    rows = table_rows(out)
    assert rows[0][:4] == ["1", "Remember 42", "Noted: 42.", "normal"]


# -- in-process: errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--tool", "no_such_module_xyz:f"], "--tool 'no_such_module_xyz:f': cannot import"),
        (["--tool", "json:no_such_function"], "'json' has no attribute 'no_such_function'"),
        (["--tool", "json:dumsp"], "has no attribute 'dumsp' (did you mean 'dump' or 'dumps'?)"),
        (["--tool", "no_such_file_xyz.py:f"], "FileNotFoundError: no file '"),
        (["--tool", "json"], "expected MODULE:FUNCTION"),
        (["--tool", "json"], "; json defines dump, dumps, "),
        (["--tool", "no_such_file_xyz.py"], "; there is no file no_such_file_xyz.py (looked in "),
        (["--json"], "--json needs a prompt"),
        (["--store", "x.db"], "--store needs --session ID"),
    ],
)
def test_bad_options_exit_2_with_one_line(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    prompt = [] if argv == ["--json"] else ["hi"]
    code, _, err = run_main(["chat", *prompt, *model_args(server), *argv], capsys)
    assert code == 2
    [line] = error_lines(err)
    assert message in line
    assert server.request_count == 0


def test_no_model_says_how_to_set_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import praisonlike.agent.default_model as default_model

    monkeypatch.setattr(default_model, "_local_available", lambda: False)
    code, _, err = run_main(["chat", "hi"], capsys)
    assert code == 2
    assert error_lines(err) == ["praisonlike: error: no model configured"]
    hint = err.splitlines()[-1]
    assert hint.startswith("praisonlike: hint: ")
    for way in ("--model", "PRAISONLIKE_MODEL", "OPENAI_API_KEY", "praisonlike[local]"):
        assert way in hint


def test_model_errors_exit_1_with_a_hint(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(Fault.model_not_found("nope"))
    code, _, err = run_main(["chat", "hi", *model_args(server, "openai/nope")], capsys)
    assert code == 1
    [line] = error_lines(err)
    assert line.startswith("praisonlike: error: ModelNotFoundError: Model not found")
    assert "praisonlike: hint: check the model name with `praisonlike models info MODEL`" in err
    assert "Traceback" not in err


def test_debug_shows_the_traceback(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(Fault.bad_request("unsupported value for temperature"))
    code, _, err = run_main(
        ["--debug", "chat", "hi", *model_args(server)],
        capsys,
    )
    assert code == 1
    assert "Traceback (most recent call last)" in err
    assert "praisonlike.errors.BadRequestError: Bad request" in err
    assert len(error_lines(err)) == 1


def test_authentication_error_says_how_to_set_a_key(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(Fault.authentication())
    code, _, err = run_main(["chat", "hi", *model_args(server), "--debug"], capsys)
    assert code == 1
    assert "praisonlike: hint: set the provider's API key" in err
    assert "--api-key" in err


def test_missing_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main([])
    assert raised.value.code == 2


# -- in-process: models, skills, sessions --------------------------------------------------


def info_lines(out: str) -> dict[str, str]:
    pairs = (re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in out.splitlines())
    return {pair[0]: pair[1] for pair in pairs if len(pair) == 2}


def test_models_info_of_a_known_model(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["models", "info", "gpt-4o-mini"], capsys)
    assert code == 0
    info = info_lines(out)
    assert info["Model"] == "gpt-4o-mini"
    assert info["Context window"] == "128,000 tokens"
    assert info["Input price"] == "$0.15 per 1M tokens"
    assert info["Output price"] == "$0.6 per 1M tokens"
    assert info["Tool calling"] == "yes"
    assert info["Vision"] == "yes"
    assert info["Structured output"] == "yes"


def test_models_info_of_an_unknown_model(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["models", "info", "qqqqqq/zzqx-9"], capsys)
    assert code == 2
    assert out == ""
    assert error_lines(err) == [
        "praisonlike: error: unknown model 'qqqqqq/zzqx-9': LiteLLM's local model "
        "map has no entry for it (use the provider/model form, e.g. openai/gpt-4o-mini)"
    ]
    code, out, err = run_main(["models", "info", "gpt-4o-mnii"], capsys)
    assert code == 2
    assert "(did you mean 'openai/gpt-4o-mini'" in err


def write_skill(folder: Path, name: str, front_matter: str) -> Path:
    (folder / name).mkdir(parents=True)
    path = folder / name / "SKILL.md"
    path.write_text(f"---\n{front_matter}\n---\nBody of {name}.\n")
    return path


def test_skills_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    folder = tmp_path / "skills"
    write_skill(folder, "alpha", "name: alpha\ndescription: First [bold]skill[/bold]")
    write_skill(
        folder,
        "beta",
        "name: beta\ndescription: Second skill\nuser-invocable: false\n"
        "disable-model-invocation: true",
    )
    code, out, _ = run_main(["skills", "list", "--dir", str(folder)], capsys)
    assert code == 0
    assert table_rows(out) == [
        ["alpha", "First [bold]skill[/bold]", "yes", "yes"],
        ["beta", "Second skill", "no", "no"],
    ]


def test_skills_list_uses_the_default_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PRAISONLIKE_HOME", str(tmp_path / "home"))
    code, out, _ = run_main(["skills", "list"], capsys)
    assert code == 0
    assert out.startswith(f"no skills found in {tmp_path / '.praisonlike' / 'skills'}")
    write_skill(tmp_path / "home" / "skills", "mine", "name: mine\ndescription: My own")
    code, out, _ = run_main(["skills", "list"], capsys)
    assert ["mine", "My own", "yes", "yes"] in table_rows(out)


def test_a_skills_folder_that_is_not_there_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A misspelt folder gave "no skills found" (skills list) or an agent without
    its skills (chat), as if the skills were not written yet."""
    missing = str(tmp_path / "skils")
    code, _, err = run_main(["skills", "list", "--dir", missing], capsys)
    assert code == 2
    assert error_lines(err) == [f"praisonlike: error: --dir {missing}: no such folder"]

    code, _, err = run_main(["chat", "hi", "--model", "local", "--skills-dir", missing], capsys)
    assert code == 2
    [line] = error_lines(err)
    assert f"no such folder: {missing}" in line


def test_a_malformed_skill_is_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_skill(tmp_path, "broken", "description: no name")
    code, out, err = run_main(["skills", "list", "--dir", str(tmp_path)], capsys)
    assert code == 1
    assert out == ""
    assert err.splitlines() == [
        f"praisonlike: error: SkillError: {path}: front matter is missing 'name'"
    ]


def populate(path: Path) -> None:
    now = time.time()
    with SQLiteStore(path) as store:
        store.ensure_conversation("trip", agent_name="planner")
        store.save_turn(
            TurnRecord(
                id="t1",
                conversation_id="trip",
                query="Weather in Oslo?",
                answer="Sunny in Oslo.",
                status=MessageStatus.NORMAL,
                prompt_tokens=12,
                completion_tokens=5,
                cost=0.000123,
                latency=0.5,
                model="openai/gpt-4o-mini",
                created_at=now,
                steps=[
                    StepRecord(
                        position=0,
                        event_type="tool_call",
                        tool="get_weather",
                        tool_input={"city": "Oslo"},
                    ),
                    StepRecord(
                        position=1,
                        event_type="tool_result",
                        tool="get_weather",
                        observation="sunny",
                        latency=0.25,
                    ),
                ],
            )
        )
        store.save_turn(
            TurnRecord(
                id="t2",
                conversation_id="trip",
                query="And tomorrow?",
                answer="",
                status=MessageStatus.ERROR,
                created_at=now + 1,
            )
        )
        store.ensure_conversation("empty")


def test_sessions_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    db = tmp_path / "s.db"
    populate(db)
    code, out, _ = run_main(["sessions", "list", "--store", str(db)], capsys)
    assert code == 0
    rows = {row[0]: row for row in table_rows(out)}
    assert rows["trip"][1:3] == ["planner", "2"]
    assert rows["empty"][1:3] == ["-", "0"]


def test_sessions_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    db = tmp_path / "s.db"
    populate(db)
    code, out, _ = run_main(["sessions", "show", "trip", "--store", str(db)], capsys)
    assert code == 0
    rows = table_rows(out)
    assert rows[0] == [
        "1",
        "Weather in Oslo?",
        "Sunny in Oslo.",
        "normal",
        "12 in / 5 out",
        "$0.000123",
        "0.50s",
        "openai/gpt-4o-mini",
    ]
    assert rows[1] == ["2", "And tomorrow?", "-", "error", "0 in / 0 out", "unknown", "-", "-"]
    assert "Turn 1 steps" in out and "Turn 2 steps" not in out
    assert rows[2] == ["0", "tool_call", "get_weather", '{"city": "Oslo"}', "-", "-", "-"]
    assert rows[3] == ["1", "tool_result", "get_weather", "sunny", "-", "-", "0.25s"]


def test_sessions_errors_and_missing_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.db"
    populate(db)
    code, _, err = run_main(["sessions", "show", "nope", "--store", str(db)], capsys)
    assert code == 1
    assert error_lines(err) == [f"praisonlike: error: no session 'nope' in {db}"]
    missing = tmp_path / "missing.db"
    code, out, _ = run_main(["sessions", "list", "--store", str(missing)], capsys)
    assert (code, out.strip()) == (0, f"no sessions: there is no session store at {missing}")
    code, _, err = run_main(["sessions", "show", "trip", "--store", str(missing)], capsys)
    assert code == 1
    assert not missing.exists()


def test_sessions_delete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    populate(db)
    code, _, err = run_main(["sessions", "delete", "trip", "nope", "--store", str(db)], capsys)
    assert code == 1
    assert error_lines(err) == [
        f"praisonlike: error: no session 'nope' in {db}: nothing deleted "
        "(`praisonlike sessions list` shows the stored ones)"
    ]
    with SQLiteStore(db) as store:
        assert len(store.load_turns("trip")) == 2

    code, out, _ = run_main(["sessions", "delete", "trip", "empty", "--store", str(db)], capsys)
    assert (code, out.splitlines()) == (0, ["deleted session 'trip'", "deleted session 'empty'"])
    with SQLiteStore(db) as store:
        assert store.list_conversations() == []
        assert store.load_turns("trip") == []
        assert store.get_steps("t1") == []

    missing = tmp_path / "missing.db"
    code, _, err = run_main(["sessions", "delete", "trip", "--store", str(missing)], capsys)
    assert code == 1
    assert error_lines(err) == [
        f"praisonlike: error: no session 'trip': there is no session store at {missing}"
    ]
    assert not missing.exists()


def test_json_output_is_the_run_result(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(Text("forty-two"))
    code, out, err = run_main(["chat", "answer?", *model_args(server), "--json"], capsys)
    assert code == 0
    data: dict[str, Any] = json.loads(out)
    assert data["output"] == "forty-two"
    assert data["termination_reason"] == "completed"
    assert "forty-two" in err
