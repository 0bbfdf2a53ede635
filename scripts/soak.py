"""Soak: many agent turns in one process, which must stay flat and account exactly.

Runs ``--turns`` turns against a LocalLLMServer: a new Agent every
``--turns-per-agent`` turns (each with its own session in one SQLite store),
plain and tool-calling answers, through chat, achat, iter_stream and
stream_events, with a fault before ``--fault-rate`` of the model's answers
(mostly retryable ones, which the agent retries; some fatal, which fail the
turn). After every agent it samples the process's RSS, the Python heap
(tracemalloc) and its open file descriptors; at the end it compares the first
and the last quarter of the samples, and the agents' token and cost totals
with the server's own count of the tokens it served, priced the same way.

    .venv/bin/python scripts/soak.py --turns 10000        # make soak
    .venv/bin/python scripts/soak.py --turns 300 --json   # the CI size, as JSON

Exits 1 when a turn gave a wrong answer or an untyped error, when the
accounting differs, or when the growth passes the limits given on the command
line. Needs Linux (/proc) for RSS and file descriptors.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import random
import sys
import tempfile
import threading
import time
import tracemalloc
from collections import Counter, deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("PRAISONLIKE_ALLOW_MODEL_REQUESTS", "0")

from praisonlike import (  # noqa: E402
    Agent,
    ContextConfig,
    ExecutionConfig,
    MemoryConfig,
    UsageTracker,
)
from praisonlike.errors import PraisonlikeError  # noqa: E402
from praisonlike.events import RunFinished  # noqa: E402
from praisonlike.testing import (  # noqa: E402
    Call,
    DropConnection,
    Fault,
    LocalLLMServer,
    MalformedBody,
    RecordedRequest,
    Text,
    ToolCalls,
)
from praisonlike.testing.script import Response  # noqa: E402

PRICE = {"input": 1.0, "output": 2.0}
WAYS = ("chat", "achat", "iter_stream", "stream_events")
WARMUP_TURNS = 10
RETRYABLE: tuple[Response, ...] = (
    Fault.rate_limit(retry_after=0),
    Fault.server_error(),
    Fault.unavailable(),
    DropConnection(after_chunks=1),
    MalformedBody(),
)
FATAL: tuple[Response, ...] = (Fault.authentication(), Fault.bad_request("soak: refused"))
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")


def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    return f"value of {key}"


@dataclass(frozen=True)
class Sample:
    """The process after ``turn`` turns: RSS and the traced heap in bytes (0 when not
    tracing), the interpreter's allocated blocks, and open file descriptors."""

    turn: int
    rss: int
    traced: int
    blocks: int
    fds: int


@dataclass
class SoakReport:
    turns: int = 0
    completed: int = 0
    failed: int = 0
    retries: int = 0
    wrong: list[str] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    requests: int = 0
    seconds: float = 0.0
    samples: list[Sample] = field(default_factory=list)
    agent_tokens: tuple[int, int] = (0, 0)
    served_tokens: tuple[int, int] = (0, 0)
    agent_cost: float | None = None
    served_cost: float = 0.0

    def quarters(self, name: str) -> tuple[float, float]:
        """The mean of ``name`` over the first and over the last quarter of the samples."""
        values = [getattr(sample, name) for sample in self.samples]
        if not values:
            return 0.0, 0.0
        size = max(1, len(values) // 4)
        return sum(values[:size]) / size, sum(values[-size:]) / size

    def growth(self, name: str) -> float:
        first, last = self.quarters(name)
        return last - first

    @property
    def accounting_matches(self) -> bool:
        return (
            self.agent_tokens == self.served_tokens
            and self.agent_cost is not None
            and math.isclose(self.agent_cost, self.served_cost, rel_tol=1e-9, abs_tol=1e-12)
        )

    def summary(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("samples")
        data["errors"] = dict(self.errors)
        data["turns_per_second"] = round(self.turns / self.seconds, 1) if self.seconds else None
        for name in ("rss", "traced", "blocks", "fds"):
            first, last = self.quarters(name)
            data[f"{name}_first_quarter"] = round(first)
            data[f"{name}_last_quarter"] = round(last)
        data["accounting_matches"] = self.accounting_matches
        return data


class Planner:
    """The server's answers for the current turn; a new plan replaces what is left."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._plan: deque[Response] = deque()

    def load(self, plan: list[Response]) -> None:
        with self._lock:
            self._plan = deque(plan)

    def __call__(self, request: RecordedRequest) -> Response:
        with self._lock:
            if self._plan:
                return self._plan.popleft()
        return Fault(500, "soak: the plan is exhausted", type="server_error")


def rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def open_fds() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 0


def sample(turn: int) -> Sample:
    gc.collect()
    traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
    return Sample(
        turn=turn, rss=rss_bytes(), traced=traced, blocks=sys.getallocatedblocks(), fds=open_fds()
    )


def plan_turn(rng: random.Random, fault_rate: float) -> tuple[list[Response], str]:
    """The responses of one turn (faults included) and the answer it must end with."""
    answer = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
    answers: list[Response] = [Text(answer, chunk_size=rng.randint(2, 12))]
    if rng.random() < 0.5:
        key = rng.choice(WORDS)
        answers.insert(0, ToolCalls([Call("lookup", {"key": key})], chunk_size=rng.randint(2, 12)))
    plan: list[Response] = []
    for response in answers:
        if rng.random() < fault_rate:
            plan.append(rng.choice(FATAL) if rng.random() < 0.2 else rng.choice(RETRYABLE))
        plan.append(response)
    return plan, answer


def run_one(agent: Agent, way: str, prompt: str, loop: asyncio.AbstractEventLoop) -> Any:
    """One turn; ``achat`` runs on ``loop``, the one event loop of the soak (as in an async
    application: a new loop per call makes LiteLLM cache a client per loop)."""
    if way == "chat":
        return agent.chat(prompt)
    if way == "achat":
        return loop.run_until_complete(agent.achat(prompt))
    if way == "iter_stream":
        return "".join(agent.iter_stream(prompt))
    finished = list(agent.stream_events(prompt))[-1]
    return finished.result.output if isinstance(finished, RunFinished) and finished.result else None


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is still pending on ``loop`` (LiteLLM's logging worker), then close it."""
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()


def make_agent(server: LocalLLMServer, store: Path, tracker: UsageTracker, number: int) -> Agent:
    return Agent(
        instructions="You answer briefly.",
        llm=server.llm_config(),
        tools=[lookup],
        context=ContextConfig(max_context_tokens=8192),
        execution=ExecutionConfig(max_retries=2, retry_base=0.001, retry_max=0.01),
        session_id=f"soak-{number}",
        memory=MemoryConfig(store=str(store), long_term=False, history_rounds=4),
        usage_tracker=tracker,
        model_prices={"test-model": PRICE},
    )


def _check_turn(
    report: SoakReport,
    agent: Agent,
    way: str,
    answer: str,
    before: list[dict[str, Any]],
    outcome: Any,
) -> None:
    if isinstance(outcome, PraisonlikeError):
        report.failed += 1
        report.errors[type(outcome).__name__] += 1
        if agent.chat_history != before:
            report.wrong.append(f"turn {report.turns}: a failed turn changed the history")
        return
    if isinstance(outcome, BaseException):
        report.wrong.append(f"turn {report.turns}: untyped {type(outcome).__name__}: {outcome}")
        return
    report.completed += 1
    expected = outcome.endswith(answer) if way == "iter_stream" else outcome == answer
    if not expected:
        report.wrong.append(f"turn {report.turns} ({way}): {outcome!r} instead of {answer!r}")


def run_soak(
    turns: int,
    *,
    seed: int = 0,
    fault_rate: float = 0.05,
    turns_per_agent: int = 5,
    trace_memory: bool = True,
    workdir: Path | None = None,
) -> SoakReport:
    """Run the soak (see the module docstring) and return its report.

    ``trace_memory`` runs tracemalloc after the warm-up turns (it makes streamed
    turns about four times slower); without it ``traced`` stays 0 and
    ``blocks`` is the heap measure.
    """
    rng = random.Random(seed)
    report = SoakReport()
    tracker = UsageTracker()
    planner = Planner()
    loop = asyncio.new_event_loop()
    with (
        tempfile.TemporaryDirectory(dir=workdir) as folder,
        LocalLLMServer(default=planner, max_recorded=50) as server,
    ):
        store = Path(folder) / "sessions.db"
        agent: Agent | None = None
        started = time.monotonic()
        for turn in range(WARMUP_TURNS + turns):
            if turn == WARMUP_TURNS and trace_memory:
                tracemalloc.start()
                started = time.monotonic()
            if turn % turns_per_agent == 0:
                if agent is not None:
                    agent.close()
                    if turn > WARMUP_TURNS:
                        report.samples.append(sample(turn - WARMUP_TURNS))
                agent = make_agent(server, store, tracker, turn // turns_per_agent)
            assert agent is not None
            plan, answer = plan_turn(rng, fault_rate)
            planner.load(plan)
            way = rng.choice(WAYS)
            before = agent.chat_history
            try:
                outcome: Any = run_one(agent, way, f"question {turn}", loop)
            except BaseException as exc:
                outcome = exc
            if turn >= WARMUP_TURNS:
                report.turns += 1
                report.retries += agent.last_result.retries if agent.last_result else 0
                _check_turn(report, agent, way, answer, before, outcome)
        if agent is not None:
            agent.close()
        report.samples.append(sample(turns))
        report.seconds = time.monotonic() - started
        tracemalloc.stop()
        close_loop(loop)
        report.requests = server.request_count
        total = tracker.total
        report.agent_tokens = (total.prompt_tokens, total.completion_tokens)
        report.agent_cost = total.cost if total.cost_complete else None
        report.served_tokens = server.tokens_served
        prompt, completion = server.tokens_served
        report.served_cost = (prompt * PRICE["input"] + completion * PRICE["output"]) / 1e6
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fault-rate", type=float, default=0.05)
    parser.add_argument("--turns-per-agent", type=int, default=5)
    parser.add_argument("--no-trace", action="store_true", help="run without tracemalloc")
    parser.add_argument("--max-heap-growth-mb", type=float, default=8.0)
    parser.add_argument("--max-block-growth", type=float, default=50_000)
    parser.add_argument("--max-rss-growth-mb", type=float, default=64.0)
    parser.add_argument("--max-fd-growth", type=float, default=4.0)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)

    report = run_soak(
        args.turns,
        seed=args.seed,
        fault_rate=args.fault_rate,
        turns_per_agent=args.turns_per_agent,
        trace_memory=not args.no_trace,
    )
    summary = report.summary()
    problems = list(report.wrong)
    if not report.accounting_matches:
        problems.append(
            f"accounting: agents {report.agent_tokens} ${report.agent_cost}, "
            f"server {report.served_tokens} ${report.served_cost}"
        )
    limits = {
        "traced": args.max_heap_growth_mb * 2**20,
        "blocks": args.max_block_growth,
        "rss": args.max_rss_growth_mb * 2**20,
        "fds": args.max_fd_growth,
    }
    problems += [
        f"{name} grew by {report.growth(name):.0f} (limit {limit:.0f})"
        for name, limit in limits.items()
        if report.growth(name) > limit
    ]
    summary["problems"] = problems
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for key, value in summary.items():
            print(f"{key}: {value}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
