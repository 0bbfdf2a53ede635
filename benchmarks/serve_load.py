"""Load on a served agent: concurrent SSE runs through one server process.

The agent is served by ``agent.to_asgi()`` under Uvicorn in a child process
(one worker); the model is the benchmarks' LocalLLMServer in another
(``served.py``); this process is the client, a bare HTTP/1.1 reader of the
streams (about 0.4 ms of CPU a run), so the figures are the server's.

* throughput: ``--runs`` one-tool turns POSTed to ``/v1/runs`` at once (each
  on a new session, read to its ``end`` event) vs the same turns run with
  ``achat`` in this process (one agent each), rounds alternating. A served run
  streams the model's answer (its text deltas are events), so the judged
  baseline is ``achat(stream=True)``, which makes the same streamed model
  calls; plain ``achat()`` (unstreamed calls) is shown beside it. Target: the
  served runs within 20% of ``achat(stream=True)`` (they add HTTP, SSE, a
  fresh agent per run and the session store).
* pings: ``--runs`` streams held open about ``--hold`` s (the tool waits),
  once per ``--ping`` interval (the server's default 10 s, then a tight 1 s).
  Judged on the server's stamps (each ping's ``time``): no ping later than
  one interval after it was due, that is no gap between a stream's pings
  longer than two intervals. Shown too: the gaps as the pings reached this
  client, and the first ping's delay from the request (it includes the time
  the request waited to be accepted).
* memory: the server process's resident memory at its peak while the first
  ping test's streams are open, minus its memory after a warm-up, per stream.

    .venv/bin/python benchmarks/serve_load.py [--runs 500] [--rounds 2] [--ping 10 1] [--hold 25]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from report import kib, machine, median, p90, table, verdict
from served import ANSWER, ServerProcess, add, bench_env

from praisonlike import Agent

PROMPT = "What is 1 + 2? Use the add tool."
INSTRUCTIONS = "You are a calculator. Use the add tool for sums."
TARGET = 0.80


def make_agent(llm: dict[str, str], tool: Callable[..., Any] = add) -> Agent:
    return Agent(instructions=INSTRUCTIONS, llm=llm, tools=[tool])


def held_add(hold: float) -> Callable[..., Awaitable[int]]:
    """``add`` that first waits ``hold`` seconds (an async tool: it holds no thread)."""

    async def add(a: int, b: int) -> int:
        """Add two integers."""
        await asyncio.sleep(hold)
        return a + b

    return add


def _child(llm: str, ping: float, hold: float) -> None:
    """The server process: serve the agent on a free port of 127.0.0.1, print the port."""
    import uvicorn

    tool = held_add(hold) if hold > 0 else add
    app = make_agent(json.loads(llm), tool).to_asgi(ping_interval=ping)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(app, log_level="error", lifespan="on", timeout_graceful_shutdown=5)
    uvicorn.Server(config).run(sockets=[sock])


class AgentServer:
    """``agent.to_asgi()`` under Uvicorn in a child process; use as a context manager."""

    def __init__(self, llm: dict[str, str], *, ping: float, hold: float = 0.0) -> None:
        self._args = ["--child", json.dumps(llm), str(ping), str(hold)]
        self._process: subprocess.Popen[str] | None = None
        self.url = ""

    def __enter__(self) -> AgentServer:
        process = subprocess.Popen(
            [sys.executable, __file__, *self._args],
            stdout=subprocess.PIPE,
            text=True,
            env=bench_env(),
        )
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.strip().isdigit():
            process.kill()
            raise RuntimeError(f"the agent server did not start (it printed {line!r})")
        self._process = process
        self.url = f"http://127.0.0.1:{int(line)}"
        self._wait_until_healthy(int(line))
        return self

    def _wait_until_healthy(self, port: int) -> None:
        deadline = time.monotonic() + 60
        while True:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                connection.request("GET", "/v1/health")
                if connection.getresponse().status == 200:
                    return
            except OSError:
                assert self._process is not None
                if self._process.poll() is not None or time.monotonic() > deadline:
                    raise
            finally:
                connection.close()
            time.sleep(0.05)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        process = self._process
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        self._process = None

    def cpu(self) -> float:
        """CPU seconds the server process has used (all its threads)."""
        assert self._process is not None
        fields = Path(f"/proc/{self._process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss(self) -> int:
        """The server process's resident memory in bytes."""
        assert self._process is not None
        status = Path(f"/proc/{self._process.pid}/status").read_text()
        line = next(row for row in status.splitlines() if row.startswith("VmRSS:"))
        return int(line.split()[1]) * 1024


@dataclass
class Stream:
    """What one SSE run delivered to the client."""

    sent_at: float = 0.0
    answer: object = None
    reason: str | None = None
    ping_stamps: list[float] = field(default_factory=list)
    ping_arrivals: list[float] = field(default_factory=list)


REQUEST_BODY = json.dumps({"input": PROMPT}).encode()


async def read_run(port: int, stream: Stream) -> Stream:
    """POST one run on a bare connection and read its stream to ``end``.

    A minimal HTTP/1.1 client (chunked body, SSE lines), so that the client's
    own cost stays small next to the server's; failures land in
    ``stream.answer``.
    """
    stream.sent_at = time.time()
    writer = None
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            b"POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: text/event-stream\r\nConnection: close\r\n"
            + f"Content-Length: {len(REQUEST_BODY)}\r\n\r\n".encode()
            + REQUEST_BODY
        )
        head = await reader.readuntil(b"\r\n\r\n")
        status = head.split(b" ", 2)[1]
        if status != b"200":
            stream.answer = RuntimeError(f"HTTP {status.decode()}")
            return stream
        event = b""
        pending = b""
        while True:
            size = int(await reader.readuntil(b"\r\n"), 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            *lines, pending = (pending + chunk[:-2]).split(b"\n")
            for line in lines:
                if line.startswith(b"event:"):
                    event = line[6:].strip()
                elif line.startswith(b"data:"):
                    _take(stream, event.decode(), line[5:].strip())
    except Exception as exc:
        stream.answer = exc
    finally:
        if writer is not None:
            writer.close()
    return stream


def _take(stream: Stream, event: str, data: bytes) -> None:
    if event == "ping":
        stream.ping_arrivals.append(time.time())
        stream.ping_stamps.append(json.loads(data)["time"])
    elif event == "run_finished":
        result = json.loads(data).get("result") or {}
        stream.answer = result.get("output")
    elif event == "end":
        stream.reason = json.loads(data)["termination_reason"]


def outcome(answer: object, reason: str | None = "completed") -> str:
    if isinstance(answer, BaseException):
        return f"{type(answer).__name__}: {str(answer)[:80]}"
    if reason != "completed":
        return f"ended {reason}"
    return "ok" if answer == ANSWER else f"wrong answer {answer!r:.40}"


async def sse_round(url: str, runs: int, outcomes: Counter[str]) -> tuple[float, list[Stream]]:
    port = int(url.rsplit(":", 1)[1])
    started = time.perf_counter()
    streams = await asyncio.gather(*(read_run(port, Stream()) for _ in range(runs)))
    elapsed = time.perf_counter() - started
    for stream in streams:
        outcomes[outcome(stream.answer, stream.reason)] += 1
    return elapsed, streams


async def achat_round(
    llm: dict[str, str], runs: int, outcomes: Counter[str], *, stream: bool
) -> float:
    agents = [make_agent(llm) for _ in range(runs)]

    async def turn(agent: Agent) -> object:
        try:
            return str(await agent.achat(PROMPT, stream=stream))
        except Exception as exc:
            return exc

    started = time.perf_counter()
    answers = await asyncio.gather(*(turn(agent) for agent in agents))
    elapsed = time.perf_counter() - started
    for answer in answers:
        outcomes[outcome(answer)] += 1
    return elapsed


SSE = "POST /v1/runs (SSE)"
ACHAT_STREAM = "agent.achat(stream=True)"
ACHAT = "agent.achat()"


def measure_throughput(llm: dict[str, str], runs: int, rounds: int) -> list[list[str]]:
    rates: dict[str, list[float]] = {SSE: [], ACHAT_STREAM: [], ACHAT: []}
    cpu: dict[str, list[float]] = {name: [] for name in rates}
    server_cpu: list[float] = []
    outcomes: dict[str, Counter[str]] = {name: Counter() for name in rates}
    with AgentServer(llm, ping=10.0) as server:
        asyncio.run(sse_round(server.url, 20, Counter()))
        asyncio.run(achat_round(llm, 20, Counter(), stream=True))
        for _ in range(rounds):
            client_before, server_before = time.process_time(), server.cpu()
            elapsed, _streams = asyncio.run(sse_round(server.url, runs, outcomes[SSE]))
            rates[SSE].append(runs / elapsed)
            cpu[SSE].append((time.process_time() - client_before) / runs)
            server_cpu.append((server.cpu() - server_before) / runs)
            for name, stream in ((ACHAT_STREAM, True), (ACHAT, False)):
                before = time.process_time()
                elapsed = asyncio.run(achat_round(llm, runs, outcomes[name], stream=stream))
                rates[name].append(runs / elapsed)
                cpu[name].append((time.process_time() - before) / runs)
    streamed = median(rates[SSE]) / median(rates[ACHAT_STREAM])
    unstreamed = median(rates[SSE]) / median(rates[ACHAT])
    cpu_cells = {name: f"{median(values) * 1000:.1f}" for name, values in cpu.items()}
    cpu_cells[SSE] = f"{median(server_cpu) * 1000:.1f} server + {cpu_cells[SSE]} client"
    rows = [
        [
            name,
            f"{median(values):.1f}",
            f"{min(values):.1f}-{max(values):.1f}",
            cpu_cells[name],
            ", ".join(f"{n} x {kind}" for kind, n in outcomes[name].most_common()),
        ]
        for name, values in rates.items()
    ]
    return [
        *rows,
        [f"SSE / {ACHAT_STREAM}", f"{streamed:.3f} {verdict(streamed >= TARGET)}", "", "", ""],
        [f"SSE / {ACHAT} (not judged)", f"{unstreamed:.3f}", "", "", ""],
    ]


def lateness(stamps: list[float], interval: float) -> list[float]:
    """How late each ping after the first was: its gap from the previous one minus ``interval``."""
    return [later - earlier - interval for earlier, later in zip(stamps, stamps[1:], strict=False)]


def _spread(label: str, values: list[float], judged: str = "") -> list[str]:
    if not values:
        return [label, "0", "", "", judged]
    return [
        label,
        str(len(values)),
        f"{median(values):+.3f}",
        f"{p90(values):+.3f}",
        f"{max(values):+.3f} {judged}".rstrip(),
    ]


def measure_pings_and_memory(
    llm: dict[str, str], runs: int, interval: float, hold: float
) -> tuple[list[list[str]], list[list[str]]]:
    with AgentServer(llm, ping=interval, hold=hold) as server:
        asyncio.run(sse_round(server.url, 20, Counter()))
        idle = server.rss()
        peak = 0

        async def sample_while(task: Awaitable[Any]) -> Any:
            nonlocal peak
            running = asyncio.ensure_future(task)
            while not running.done():
                peak = max(peak, server.rss())
                await asyncio.sleep(0.1)
            return running.result()

        outcomes: Counter[str] = Counter()
        _elapsed, streams = asyncio.run(sample_while(sse_round(server.url, runs, outcomes)))
    late = [x for s in streams for x in lateness(s.ping_stamps, interval)]
    arrived = [x for s in streams for x in lateness(s.ping_arrivals, interval)]
    first = [s.ping_stamps[0] - s.sent_at - interval for s in streams if s.ping_stamps]
    silent = sum(1 for s in streams if not s.ping_stamps)
    ok = bool(late) and max(late) <= interval and silent == 0
    done = ", ".join(f"{n} x {kind}" for kind, n in outcomes.most_common())
    pings = [
        _spread("first ping, from the request (not judged)", first),
        _spread("next pings, server stamps", late, verdict(ok)),
        _spread("next pings, arrival at this client", arrived),
        [
            f"pings later than one interval: {sum(x > interval for x in late)} of "
            f"{len(late)}; streams without a ping: {silent}; runs: {done}",
            "",
            "",
            "",
            "",
        ],
    ]
    memory = [
        [
            f"{kib(idle)} KiB",
            f"{kib(peak)} KiB",
            f"{kib((peak - idle) / runs)} KiB",
        ]
    ]
    return pings, memory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--ping",
        type=float,
        nargs="+",
        default=[10.0, 1.0],
        help="the ping_interval of each ping test (the server's default is 10)",
    )
    parser.add_argument("--hold", type=float, default=25.0, help="seconds the held tool waits")
    args = parser.parse_args()
    print(f"serve_load: {machine()}")
    logging.getLogger("LiteLLM").setLevel(logging.ERROR)
    with ServerProcess() as llm_server:
        llm = llm_server.llm_config()
        rows = measure_throughput(llm, args.runs, args.rounds)
        print(
            table(
                f"{args.runs} one-tool turns at once: SSE runs through one Uvicorn process "
                f"vs achat in this process; {args.rounds} rounds",
                ["mode", "turns/s (median)", "range", "CPU ms/turn", "outcomes"],
                rows,
            )
        )
        for number, interval in enumerate(args.ping):
            pings, memory = measure_pings_and_memory(llm, args.runs, interval, args.hold)
            print(
                table(
                    f"{args.runs} streams held open about {args.hold:g} s, ping_interval "
                    f"{interval:g} s: lateness of each ping in s (its gap from the previous "
                    f"ping, minus the interval); judged: none later than one interval",
                    ["pings", "count", "median", "p90", "max"],
                    pings,
                )
            )
            if number == 0:
                print(
                    table(
                        f"server process memory (RSS): after a warm-up, and its peak with "
                        f"{args.runs} streams open",
                        ["idle", f"{args.runs} open", "per open stream"],
                        memory,
                    )
                )
    print(llm_server.describe())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        _child(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    else:
        main()
