"""What ``from praisonlike import Agent; Agent(instructions='x')`` costs a fresh interpreter.

praisonlike's bytecode is compiled first (as ``pip install`` does; an
editable checkout run with ``PYTHONDONTWRITEBYTECODE=1`` would otherwise
recompile every module on every start). Each command runs in a new process,
once to warm the file cache, then ``--runs`` times; the median wall time (and
the child's CPU time, which a loaded machine disturbs less) is compared with
``python -c pass``.
Target: within 60 ms. Then, with the background warmup disabled
(``PRAISONLIKE_NO_WARMUP=1``, so nothing imports LiteLLM behind our back),
the heavy modules must be absent from ``sys.modules`` after the constructor,
and ``-X importtime`` names the largest imports that remain.

    .venv/bin/python benchmarks/import_time.py [--runs 11]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import tempfile
import time

from praisonai import PraisonAI, absent, find
from report import machine, machine_load, median, ms, table, verdict
from served import bench_env, compile_praisonlike

TARGET = 0.060
HEAVY = ("litellm", "openai", "httpx", "rich", "tiktoken", "sqlite3")
AGENT = "from praisonlike import Agent; Agent(instructions='x')"
PRAISONAI_AGENT = "from praisonaiagents import Agent; Agent(instructions='x', llm='bench-model')"
PRAISONAI_PASS = "PraisonAI's venv: python -c pass"
Command = tuple[str, dict[str, str], str]
"""(code, extra environment, interpreter)."""
COMMANDS: dict[str, Command] = {
    "python -c pass": ("pass", {}, sys.executable),
    "import praisonlike": ("import praisonlike", {}, sys.executable),
    "Agent(instructions='x')": (AGENT, {}, sys.executable),
    "Agent(instructions='x'), PRAISONLIKE_NO_WARMUP=1": (
        AGENT,
        {"PRAISONLIKE_NO_WARMUP": "1"},
        sys.executable,
    ),
}


def praisonai_commands() -> dict[str, Command]:
    """PraisonAI's ``Agent(instructions='x')`` and ``python -c pass`` in its environment."""
    found = find()
    if not isinstance(found, PraisonAI):
        print(absent(found))
        return {}
    env = found.env("http://127.0.0.1:9/v1")  # no request is made: nothing listens there
    python = str(found.python)
    return {
        PRAISONAI_PASS: ("pass", env, python),
        f"{found.label}: Agent(instructions='x', llm='bench-model')": (
            PRAISONAI_AGENT,
            env,
            python,
        ),
    }


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(code: str, extra_env: dict[str, str], python: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh interpreter ``python`` running ``code``."""
    env = bench_env() | extra_env
    cpu = _children_cpu()
    started = time.perf_counter()
    subprocess.run([python, "-c", code], env=env, check=True, cwd=tempfile.gettempdir())
    return time.perf_counter() - started, _children_cpu() - cpu


def time_commands(commands: dict[str, Command], runs: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) per command, the commands interleaved."""
    for code, extra, python in commands.values():
        _run(code, extra, python)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (code, extra, python) in commands.items():
            samples[name].append(_run(code, extra, python))
    return {
        name: (median([s[0] for s in values]), median([s[1] for s in values]))
        for name, values in samples.items()
    }


def heavy_modules_loaded(code: str) -> list[str]:
    report = f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    probe = f"{code}\nimport json, sys\n{report}"
    env = bench_env() | {"PRAISONLIKE_NO_WARMUP": "1"}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, check=True, capture_output=True, text=True
    )
    loaded: list[str] = json.loads(out.stdout.strip().splitlines()[-1])
    return loaded


def largest_imports(code: str, count: int) -> list[tuple[str, int]]:
    """The ``count`` top-level imports of ``code`` with the largest cumulative time (us)."""
    env = bench_env() | {"PRAISONLIKE_NO_WARMUP": "1"}
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    pattern = re.compile(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)")
    top: list[tuple[str, int]] = []
    for line in out.stderr.splitlines():
        match = pattern.match(line)
        if match and len(match.group(2)) <= 1:
            top.append((match.group(3), int(match.group(1))))
    return sorted(top, key=lambda item: -item[1])[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    print(f"import_time: {machine()}")
    compile_praisonlike()
    load = machine_load()
    medians = time_commands(COMMANDS | praisonai_commands(), args.runs)
    rows = []
    ok = True
    for name, (wall, cpu) in medians.items():
        own = PRAISONAI_PASS if name.startswith("PraisonAI") else "python -c pass"
        wall_base, cpu_base = medians[own]
        extra = wall - wall_base
        mark = ""
        if name.startswith("Agent"):
            ok = ok and extra <= TARGET
            mark = verdict(extra <= TARGET)
        rows.append([name, ms(wall), ms(extra), mark, ms(cpu), ms(cpu - cpu_base)])
    print(
        table(
            f"Fresh interpreter, median of {args.runs} runs after a warm-up (target: Agent() "
            f"within {TARGET * 1000:.0f} ms of python -c pass; PraisonAI's rows minus its own "
            f"venv's pass); load average {load} at the start, {machine_load()} at the end",
            ["command", "wall ms", "minus pass", "target", "CPU ms", "CPU minus pass"],
            rows,
        )
    )
    print("\nWith PRAISONLIKE_NO_WARMUP=1, heavy modules in sys.modules:")
    for code in ("import praisonlike", AGENT):
        loaded = heavy_modules_loaded(code)
        ok = ok and not loaded
        print(f"  after {code!r}: {', '.join(loaded) or 'none'} {verdict(not loaded)}")
    print(f"\nLargest top-level imports of {AGENT!r} (cumulative, -X importtime):")
    for module, micros in largest_imports(AGENT, 8):
        print(f"  {module:<40} {micros / 1000:7.1f} ms")
    print(f"\nimport_time targets: {verdict(ok)}")


if __name__ == "__main__":
    main()
