"""Every example in ``examples/`` runs to completion and prints what it promises.

Each example runs in a process of its own, in a scratch directory, with
``PRAISONLIKE_ALLOW_MODEL_REQUESTS=0`` and ``PRAISONLIKE_EXAMPLES_LOCAL=0`` (so on
the scripted LocalLLMServer), and must exit 0, say so on its first line, print no
traceback and print its expected lines (``EXPECTED``). A new example needs an entry
there.

Importing LiteLLM costs seconds of CPU per interpreter, so this file, run as a
script, is a warm interpreter that imports it once and forks one child per example;
a child runs the example as ``python examples/<name>.py`` would (as ``__main__``,
with ``sys.argv`` set and the examples folder first on ``sys.path``). Without
``os.fork`` each example is a plain ``python`` subprocess.

With ``PRAISONLIKE_EXAMPLES_LOCAL=1`` set for pytest, the examples also run on the
bundled local model (one at a time; slow, so opt-in) and must exit 0.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HELPERS = {"example_llm.py"}
SCRIPTED_FIRST_LINE = "Running against the scripted LocalLLMServer"
DEADLINE_SECONDS = 300.0
"""Generous, only to catch a hang: the whole run takes seconds on an idle machine."""

EXPECTED: dict[str, tuple[str, ...]] = {
    "quickstart.py": ("It is sunny in Paris, 26c.",),
    "streaming.py": (
        "Paris is the capital of France.",
        "[tool_result] get_weather -> Paris: sunny, 26c",
        "[run_finished] completed: It is sunny in Paris, 26c.",
    ),
    "async_chat.py": (
        "Kenya: The capital of Kenya is Nairobi.",
        "3 requests",
        "streamed: 'The capital of Japan is Tokyo.' (completed)",
    ),
    "tools.py": (
        "approval asked for cancel_order({'order_id': 'B-2'}): no",
        "tool call cancel_order({'order_id': 'B-2'}) -> error",
        "cancelled: ['A-1']",
    ),
    "structured_output.py": (
        "City: Paris, France, 2.1M people",
        "validated after 2 model rounds",
        "Event: First Moon landing (1969)",
    ),
    "hooks.py": (
        "hook before_tool: convert({'amount': 100.0, 'currency': 'usd'})",
        "100 EUR is 110.00 USD today.",
        "-> guardrail_blocked, 0 model calls",
        "Index funds spread risk, but no return is certain.",
        "reflection 2: satisfactory: Complete and correct.",
    ),
    "memory_sessions.py": (
        "second agent: Your name is Ada.",
        "long-term summary: The user is Ada; she likes sailing.",
        "restored from agent.json: 4 messages of history",
    ),
    "skills_and_steering.py": (
        "skills: haiku, release-notes",
        "skill invoked: release-notes 2.0",
        "steered mid-turn: Actually, I want to go to Rome instead.",
        "A single dark pixel.",
    ),
    "context_budget.py": (
        "compaction (compact_then_truncate, drop_oldest_tools)",
        "budget warning:",
        "stop mode: budget_exceeded: $0.026 of $0.02",
    ),
    "resilience.py": (
        "retry 1 after rate_limit",
        "fell back: Answered by the fallback.",
        "request timeout: LLMTimeoutError (error)",
        "turn deadline: RunTimeout (timeout)",
        "(cancelled)",
        "not retried: authentication, status 401, retried 0",
    ),
    "testing_your_agent.py": ("3 tests passed",),
    "serve_agent.py": (
        "[tool_call] get_weather({'city': 'Paris'})",
        "[end] completed",
        "Yes, it is warm: 26c.",
        "stored: 'Is it sunny in Paris?' -> 'It is sunny in Paris, 26c.' (normal,",
    ),
}

PROVIDER_VARIABLES = (
    "PRAISONLIKE_MODEL",
    "OPENAI_MODEL_NAME",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GROQ_API_KEY",
    "MISTRAL_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENROUTER_API_KEY",
)


def example_files() -> list[Path]:
    return sorted(p for p in EXAMPLES.glob("*.py") if p.name not in HELPERS)


# -- the warm runner (this file run as a script) ---------------------------------------


def _run_child(path: Path, output: Path, workdir: Path) -> None:
    """In a forked child: run ``path`` as ``__main__`` with its output in ``output``; exit."""
    code = 1
    try:
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.chdir(workdir)
        sys.argv = [str(path)]
        sys.path.insert(0, str(path.parent))
        try:
            runpy.run_path(str(path), run_name="__main__")
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except BaseException:
            traceback.print_exc()
        atexit._run_exitfuncs()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _fork_all(paths: list[Path], scratch: Path, parallel: bool) -> dict[str, dict[str, object]]:
    from praisonlike.models.litellm_backend import load_litellm

    load_litellm()
    import praisonlike.agent.agent  # noqa: F401  (warm the imports every example needs)
    import praisonlike.testing  # noqa: F401

    deadline = time.monotonic() + DEADLINE_SECONDS
    results: dict[str, dict[str, object]] = {}
    pending = list(paths)
    running: dict[int, tuple[Path, Path]] = {}
    while pending or running:
        while pending and (parallel or not running):
            path = pending.pop(0)
            workdir = scratch / path.stem
            workdir.mkdir()
            output = scratch / f"{path.stem}.out"
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _run_child(path, output, workdir)
            running[pid] = (path, output)
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            if time.monotonic() > deadline:
                for child, (path, output) in running.items():
                    os.kill(child, signal.SIGKILL)
                    os.waitpid(child, 0)
                    results[path.name] = {"exit": None, "output": output.read_text()}
                running.clear()
                pending.clear()
            time.sleep(0.02)
            continue
        path, output = running.pop(pid)
        results[path.name] = {
            "exit": os.waitstatus_to_exitcode(status),
            "output": output.read_text(errors="replace"),
        }
    return results


def _subprocess_each(paths: list[Path], scratch: Path) -> dict[str, dict[str, object]]:
    results: dict[str, dict[str, object]] = {}
    for path in paths:
        workdir = scratch / path.stem
        workdir.mkdir()
        try:
            done = subprocess.run(
                [sys.executable, str(path)],
                cwd=workdir,
                capture_output=True,
                text=True,
                timeout=DEADLINE_SECONDS,
            )
            results[path.name] = {"exit": done.returncode, "output": done.stdout + done.stderr}
        except subprocess.TimeoutExpired as exc:
            results[path.name] = {"exit": None, "output": str(exc.stdout or "")}
    return results


def main(argv: list[str]) -> None:
    """``python test_examples_run.py SCRATCH parallel|serial EXAMPLE...``: JSON results."""
    scratch, mode, *names = argv
    paths = [Path(name) for name in names]
    if hasattr(os, "fork"):
        results = _fork_all(paths, Path(scratch), parallel=mode == "parallel")
    else:
        results = _subprocess_each(paths, Path(scratch))
    print(json.dumps(results))


# -- the tests -------------------------------------------------------------------------


def run_examples(tmp: Path, *, local: bool) -> dict[str, dict[str, object]]:
    """Run every example through the warm runner; name -> {"exit", "output"}."""
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_VARIABLES}
    env["PRAISONLIKE_ALLOW_MODEL_REQUESTS"] = "0"
    env["PRAISONLIKE_EXAMPLES_LOCAL"] = "1" if local else "0"
    env["PRAISONLIKE_HOME"] = str(tmp / "praisonlike-home")
    env["PRAISONLIKE_LOCAL_KEEP_ALIVE"] = "0"  # the local model in each process: none left warm
    if not local:
        env["HOME"] = str(tmp / "home")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    scratch = tmp / "runs"
    scratch.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            str(scratch),
            "serial" if local else "parallel",
            *map(str, example_files()),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=DEADLINE_SECONDS + 60,
    )
    assert done.returncode == 0, f"the example runner failed:\n{done.stderr}"
    results: dict[str, dict[str, object]] = json.loads(done.stdout.strip().splitlines()[-1])
    return results


@pytest.fixture(scope="module")
def scripted_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    return run_examples(tmp_path_factory.mktemp("examples"), local=False)


def _lines(run: dict[str, object]) -> list[str]:
    return str(run["output"]).splitlines()


def test_every_example_has_expected_output() -> None:
    assert [p.name for p in example_files()] == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs_on_the_scripted_server(
    name: str, scripted_runs: dict[str, dict[str, object]]
) -> None:
    run = scripted_runs[name]
    output = str(run["output"])
    assert run["exit"] == 0, f"{name} failed (exit {run['exit']}):\n{output}"
    assert _lines(run)[0].startswith(SCRIPTED_FIRST_LINE), output
    assert "Traceback" not in output, output
    missing = [line for line in EXPECTED[name] if line not in output]
    assert not missing, f"{name} did not print {missing}:\n{output}"


def _local_model_requested() -> bool:
    if os.environ.get("PRAISONLIKE_EXAMPLES_LOCAL", "").strip() != "1":
        return False
    from praisonlike.models.local import is_local_available

    return is_local_available()


@pytest.fixture(scope="module")
def local_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, object]]]:
    if not _local_model_requested():
        pytest.skip("set PRAISONLIKE_EXAMPLES_LOCAL=1 (with praisonlike[local]) to run")
    yield run_examples(tmp_path_factory.mktemp("examples-local"), local=True)


@pytest.mark.local_model
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs_on_the_local_model(
    name: str, local_runs: dict[str, dict[str, object]]
) -> None:
    run = local_runs[name]
    assert run["exit"] == 0, f"{name} failed on the local model:\n{run['output']}"
    assert _lines(run)[0].startswith("Running"), run["output"]


if __name__ == "__main__":
    main(sys.argv[1:])
