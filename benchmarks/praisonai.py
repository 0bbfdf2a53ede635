"""PraisonAI side by side: its virtual environment, and a worker process that runs its turns.

PraisonAI (``praisonaiagents``) is never installed into the project's own
environment: ``make bench-venv`` creates ``benchmarks/.venv-praisonai`` with
``praisonaiagents==1.7.17`` (git-ignored). Where that environment is missing
or broken, :func:`find` says why and the benchmarks go on without PraisonAI,
printing :func:`absent` instead of its rows.

The worker (``praisonai_worker.py``) runs in that environment against the
same benchmark server, with ``OPENAI_API_BASE``/``OPENAI_API_KEY`` pointing
at it (PraisonAI's native openai path), telemetry off, and a scratch working
directory (PraisonAI reads project rule files such as ``AGENTS.md`` from it).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from served import bench_env

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venv-praisonai"
PYTHON = VENV / "bin" / "python"
WORKER = HERE / "praisonai_worker.py"
PINNED = "1.7.17"


@dataclass(frozen=True)
class PraisonAI:
    """An installed PraisonAI: the interpreter of its environment and its version."""

    python: Path
    version: str

    @property
    def label(self) -> str:
        return f"PraisonAI {self.version}"

    def env(self, url: str) -> dict[str, str]:
        """The worker's environment: the benchmark server as its OpenAI endpoint, no telemetry."""
        return bench_env() | {
            "OPENAI_API_BASE": url,
            "OPENAI_API_KEY": "sk-test",
            "DO_NOT_TRACK": "1",
            "PRAISONAI_TELEMETRY_DISABLED": "true",
        }

    def run(self, args: list[str], url: str) -> subprocess.CompletedProcess[str]:
        """Run ``praisonai_worker.py args`` once to its end in a scratch directory."""
        with tempfile.TemporaryDirectory(prefix="bench-praisonai-") as cwd:
            return subprocess.run(
                [str(self.python), str(WORKER), *args],
                env=self.env(url),
                cwd=cwd,
                capture_output=True,
                text=True,
            )


def find() -> PraisonAI | str:
    """The installed PraisonAI, or a sentence saying why it is not there."""
    if not PYTHON.exists():
        return f"{VENV.relative_to(HERE.parent)} does not exist (create it with `make bench-venv`)"
    code = "from importlib.metadata import version; print(version('praisonaiagents'))"
    probe = subprocess.run(
        [str(PYTHON), "-c", code],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        return f"praisonaiagents is not importable in {VENV.name} ({probe.stderr.strip()[-200:]})"
    return PraisonAI(PYTHON, probe.stdout.strip())


def absent(reason: str) -> str:
    """The line a benchmark prints instead of PraisonAI's rows."""
    return f"PraisonAI: NOT MEASURED in this run: {reason}."


class Worker:
    """A running ``praisonai_worker.py serve`` on the server at ``url`` (its ``/v1``);
    use as a context manager."""

    def __init__(self, praisonai: PraisonAI, url: str) -> None:
        self._praisonai = praisonai
        self._url = url
        self._process: subprocess.Popen[str] | None = None
        self._cwd: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> Worker:
        self._cwd = tempfile.TemporaryDirectory(prefix="bench-praisonai-")
        self._process = subprocess.Popen(
            [str(self._praisonai.python), str(WORKER), "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=self._praisonai.env(self._url),
            cwd=self._cwd.name,
        )
        ready = self._read()
        if not ready.get("ready"):
            self.__exit__(None, None, None)
            raise RuntimeError(f"the PraisonAI worker did not start: {ready}")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        process, self._process = self._process, None
        if process is not None:
            assert process.stdin is not None
            process.stdin.close()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._cwd is not None:
            self._cwd.cleanup()
            self._cwd = None

    def _read(self) -> dict[str, Any]:
        assert self._process is not None and self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError("the PraisonAI worker exited (its stderr is above)")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"PraisonAI worker: {reply['error']}")
        return reply

    def _ask(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.write(json.dumps(command) + "\n")
        self._process.stdin.flush()
        return self._read()

    def turn(self, mode: str) -> tuple[float, float]:
        """(wall, CPU of the worker) of one one-tool turn of ``mode``: chat, achat, iter_stream."""
        reply = self._ask({"op": "turn", "mode": mode})
        return float(reply["wall"]), float(reply["cpu"])

    def concurrent(self, turns: int) -> tuple[float, dict[str, int]]:
        """(seconds, outcomes by kind) of ``turns`` ``achat`` turns in flight at once."""
        reply = self._ask({"op": "concurrent", "turns": turns})
        return float(reply["elapsed"]), dict(reply["outcomes"])
