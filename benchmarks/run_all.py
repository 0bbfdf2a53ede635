"""Run every benchmark script in turn, each in its own process, and print their tables.

``make bench`` runs this. The exit status is non-zero when a script failed to
run (a missed target is reported in its output, not as a failure).

    .venv/bin/python benchmarks/run_all.py [--only overhead memory ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from served import bench_env

HERE = Path(__file__).resolve().parent
SCRIPTS = (
    "import_time",
    "first_turn",
    "overhead",
    "litellm_gap",
    "concurrency",
    "memory",
    "context",
)
ARGS = {"overhead": ["--plot"]}
"""Options per script: the overhead run also redraws docs/images/overhead_by_system.png."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=SCRIPTS, help="run only these scripts")
    args = parser.parse_args()
    failed: list[str] = []
    for name in args.only or SCRIPTS:
        script = HERE / f"{name}.py"
        if not script.exists():
            print(f"\n== {name}: {script.name} is missing, skipped", flush=True)
            continue
        print(f"\n== {name} ({script.relative_to(HERE.parent)})", flush=True)
        started = time.perf_counter()
        command = [sys.executable, str(script), *ARGS.get(name, [])]
        status = subprocess.run(command, env=bench_env()).returncode
        print(f"== {name}: exit {status} after {time.perf_counter() - started:.0f} s", flush=True)
        if status != 0:
            failed.append(name)
    if failed:
        print(f"\nfailed to run: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
