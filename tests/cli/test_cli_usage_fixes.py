"""Usage defects a new user met: ``local stop --model``, ``--debug`` after any
command, where a model name came from, the network guard's variable and exit code.

In-process ``main()`` calls (docs/cli.md); a model, where one is needed, is a
LocalLLMServer on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import lines_with, run_main

from praisonlike.cli.parser import build_parser
from praisonlike.models.local import DEFAULT_LOCAL_MODEL, LOCAL_MODELS
from praisonlike.models.local.state_file import STATE_DIR_ENV, ServerState, write_state
from praisonlike.testing import Fault, LocalLLMServer

pytestmark = pytest.mark.filterwarnings(
    "ignore::praisonlike.context.window.ContextWindowUnknownWarning"
)

GUARD = "PRAISONLIKE_ALLOW_MODEL_REQUESTS"
REMOTE = "https://api.example.invalid/v1"
OTHER_LOCAL_MODEL = next(name for name in sorted(LOCAL_MODELS) if name != DEFAULT_LOCAL_MODEL)


@pytest.fixture
def state_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty warm-server state folder of this test's own."""
    folder = tmp_path / "servers"
    monkeypatch.setenv(STATE_DIR_ENV, str(folder))
    return folder


@pytest.fixture
def warm_default_model(state_folder: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A state file saying the default local model's warm server runs: its pid is a
    sleeping process this test starts (not a real server, so it is never stopped)."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        write_state(
            ServerState(
                pid=sleeper.pid,
                port=1,
                alias=DEFAULT_LOCAL_MODEL,
                sha256=LOCAL_MODELS[DEFAULT_LOCAL_MODEL].sha256,
                model_path="/nowhere/model.gguf",
                n_ctx=512,
                token="not-a-real-token",
                keep_alive=60.0,
                started_at=time.time(),
            )
        )
        yield sleeper
    finally:
        sleeper.kill()
        sleeper.wait()


# -- local stop --model -----------------------------------------------------------------

posix_only = pytest.mark.skipif(os.name != "posix", reason="warm servers need POSIX")


@posix_only
@pytest.mark.parametrize("name", ["gpt-4o", "nope", "local/nope", "openai/gpt-4o-mini"])
def test_local_stop_refuses_a_name_that_is_not_a_local_model(
    state_folder: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    code, out, err = run_main(["local", "stop", "--model", name], capsys)

    assert code == 2
    [error] = lines_with("praisonlike: error: ", err)
    assert f"{name!r} is not a local model" in error
    for local_name in LOCAL_MODELS:
        assert local_name in error
    assert "no warm" not in out + err


@posix_only
@pytest.mark.parametrize("spelling", ["", "local/"])
def test_local_stop_for_a_local_model_without_a_server_says_so(
    state_folder: Path, capsys: pytest.CaptureFixture[str], spelling: str
) -> None:
    code, out, err = run_main(["local", "stop", "--model", spelling + OTHER_LOCAL_MODEL], capsys)

    assert code == 0
    assert out.strip() == f"no warm server for {OTHER_LOCAL_MODEL} (none is running)"
    assert err == ""


@posix_only
def test_local_stop_for_another_local_model_names_the_server_that_runs(
    warm_default_model: subprocess.Popen[bytes],
    state_folder: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_main(["local", "stop", "--model", OTHER_LOCAL_MODEL], capsys)
    assert code == 0
    assert out.strip() == f"no warm server for {OTHER_LOCAL_MODEL} (running: {DEFAULT_LOCAL_MODEL})"

    code, out, err = run_main(["local", "stop", "--model", "gpt-4o"], capsys)
    assert code == 2
    assert "not a local model" in err

    code, out, _ = run_main(["local", "status"], capsys)
    assert code == 0 and DEFAULT_LOCAL_MODEL in out  # neither stop touched it
    assert warm_default_model.poll() is None


# -- --debug after every command --------------------------------------------------------


def leaf_commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every runnable command (``("local", "status")``) and its parser."""
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not groups:
        yield path, parser
    for group in groups:
        for name, sub in group.choices.items():
            yield from leaf_commands(sub, (*path, name))


LEAVES = sorted(path for path, _ in leaf_commands(build_parser()))


@pytest.mark.parametrize("command", LEAVES, ids=" ".join)
def test_debug_is_accepted_after_every_command(command: tuple[str, ...]) -> None:
    parser = build_parser()
    [leaf] = [sub for path, sub in leaf_commands(parser) if path == command]
    required = [
        "x" for action in leaf._actions if not action.option_strings and action.nargs in (None, "+")
    ]

    assert parser.parse_args([*command, *required, "--debug"]).debug is True
    assert parser.parse_args(["--debug", *command, *required]).debug is True
    assert parser.parse_args([*command, *required]).debug is False
    assert "--debug" in leaf.format_help()


@posix_only
def test_local_status_runs_with_debug_after_it(
    state_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_main(["local", "status", "--debug"], capsys)
    assert code == 0
    assert "no warm local model server is running" in out


# -- a model name from PRAISONLIKE_MODEL -------------------------------------------------


def test_an_unknown_model_from_praisonlike_model_says_where_its_name_came_from(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PRAISONLIKE_MODEL", "bogus")

    code, _, err = run_main(["chat", "Say hi"], capsys)
    assert code == 2
    [error] = lines_with("praisonlike: error: ", err)
    assert "unknown model 'bogus'" in error
    [hint] = lines_with("praisonlike: hint: ", err)
    assert "PRAISONLIKE_MODEL" in hint and "--model" in hint
    assert "provider/model" in hint  # the error's own hint is still there

    code, _, err = run_main(["chat", "Say hi", "--model", "bogus2"], capsys)
    assert code == 2
    assert "unknown model 'bogus2'" in err
    assert "PRAISONLIKE_MODEL" not in err  # the name came from --model


def test_a_session_on_a_model_from_praisonlike_model_says_where_its_name_came_from(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PRAISONLIKE_MODEL", "bogus")
    monkeypatch.setattr(sys, "stdin", io.StringIO("hi\n"))

    code, _, err = run_main(["chat"], capsys)

    assert code == 0
    [hint] = lines_with("praisonlike: hint: ", err)
    assert "PRAISONLIKE_MODEL" in hint


def test_a_model_the_server_does_not_have_from_praisonlike_model_names_the_variable(
    server: LocalLLMServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PRAISONLIKE_MODEL", "openai/nope")
    monkeypatch.setenv("PRAISONLIKE_API_BASE", server.url)
    monkeypatch.setenv("PRAISONLIKE_API_KEY", "sk-test")
    server.add(Fault.model_not_found("nope"))

    code, _, err = run_main(["chat", "hi"], capsys)

    assert code == 1
    [hint] = lines_with("praisonlike: hint: ", err)
    assert "'openai/nope' comes from the environment variable PRAISONLIKE_MODEL" in hint
    assert "praisonlike models info" in hint


def test_a_typo_of_local_gets_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(["chat", "hi", "--model", "locl"], capsys)
    assert code == 2
    [error] = lines_with("praisonlike: error: ", err)
    assert "did you mean 'local'" in error


# -- the network guard -------------------------------------------------------------------


def test_a_request_the_guard_refuses_exits_2_with_a_hint(
    server: LocalLLMServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(GUARD, "0")
    argv = ["chat", "hi", "--model", "openai/gpt-4o-mini", "--api-base", REMOTE]

    code, _, err = run_main([*argv, "--api-key", "sk-test"], capsys)

    assert code == 2
    [error] = lines_with("praisonlike: error: ", err)
    assert error.startswith("praisonlike: error: ModelRequestBlockedError: ")
    [hint] = lines_with("praisonlike: hint: ", err)
    assert GUARD in hint
    assert server.request_count == 0


@pytest.mark.parametrize("value", ["maybe", "2", "ture"])
def test_an_unrecognised_guard_value_is_a_configuration_error(
    server: LocalLLMServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    value: str,
) -> None:
    monkeypatch.setenv(GUARD, value)
    argv = ["chat", "hi", "--model", "openai/test-model", "--api-base", server.url]

    code, _, err = run_main([*argv, "--api-key", "sk-test"], capsys)

    assert code == 2
    [error] = lines_with("praisonlike: error: ", err)
    assert error.startswith("praisonlike: error: ConfigurationError: ")
    assert f"{GUARD}={value!r}" in error
    assert "0/false/no/off" in error and "1/true/yes/on" in error
    assert server.request_count == 0


def test_no_command_prints_the_commands_with_what_they_do(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args([])

    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert "run one turn, or an interactive session" in err  # chat's help line
    assert "serve an agent over HTTP" in err
    assert err.rstrip().endswith("error: the following arguments are required: COMMAND")


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["chat", "hi", "--mdoel", "local"], "(did you mean: --mdoel -> --model?)"),
        (
            ["chat", "hi", "--strem", "--instructons=x"],
            "(did you mean: --strem -> --stream, --instructons -> --instructions?)",
        ),
        (["serve", "--prot", "0"], "--prot -> --port"),
    ],
)
def test_a_misspelt_option_is_answered_with_the_close_one(
    argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(argv)

    [error] = lines_with("praisonlike: error:", capsys.readouterr().err)
    assert exited.value.code == 2
    assert error.startswith("praisonlike: error: unrecognized arguments: ") and hint in error


# -- a command named without its action ---------------------------------------------------


@posix_only
def test_local_alone_shows_the_status(
    warm_default_model: subprocess.Popen[bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_main(["local"], capsys)
    assert code == 0 and DEFAULT_LOCAL_MODEL in out
    assert (code, out) == run_main(["local", "status"], capsys)[:2]
    assert warm_default_model.poll() is None


def test_sessions_and_skills_alone_list_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from praisonlike.memory import SQLiteStore

    monkeypatch.setenv("COLUMNS", "200")
    db = tmp_path / "s.db"
    with SQLiteStore(db) as store:
        store.ensure_conversation("trip-to-lisbon")
    skill = tmp_path / "skills" / "haiku"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: haiku\ndescription: Write a haiku.\n---\nWrite a haiku about $ARGUMENTS.\n"
    )

    code, out, _ = run_main(["sessions", "--store", str(db)], capsys)
    assert code == 0 and "trip-to-lisbon" in out
    assert (code, out) == run_main(["sessions", "list", "--store", str(db)], capsys)[:2]
    code, out, _ = run_main(["--debug", "skills", "--dir", str(tmp_path / "skills")], capsys)
    assert code == 0 and "Write a haiku." in out


def test_a_command_without_its_action_lists_the_actions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        run_main(["models"], capsys)
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert "context window, prices and features of a model" in err  # info's help line
    assert err.rstrip().endswith("error: the following arguments are required: ACTION")

    with pytest.raises(SystemExit) as exited:
        run_main(["sessions", "-h"], capsys)
    out = capsys.readouterr().out
    assert exited.value.code == 0
    assert "list the stored conversations" in out and "delete conversations" in out
