"""Time to the first answer in a fresh process: the agent vs plain LiteLLM.

Each sample is a new interpreter talking to one LocalLLMServer (in its own
process). For the agent it times ``from praisonlike import Agent; Agent(...)``
and then the first ``chat()``, with no pause in between and with a 2 s pause
(the background warmup of LiteLLM, started by the first ``Agent()``, has then
finished), and with the warmup disabled. The plain figure is ``import litellm``
plus the first ``litellm.completion`` of the same request. The pause itself is
never counted. "process CPU" is the child's CPU time up to the first answer
(interpreter start-up included), which a loaded machine disturbs less than
wall time.

    .venv/bin/python benchmarks/first_turn.py [--runs 5] [--pause 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any

from report import machine, median, ms, ratio, table
from served import ANSWER, MODEL, ServerProcess, bench_env

PROMPT = "Say hello."
INSTRUCTIONS = "You are a friendly assistant."


def _child(mode: str, url: str, pause: float) -> dict[str, float]:
    """Runs in the fresh interpreter; returns its timings in seconds."""
    llm = {"model": f"openai/{MODEL}", "api_base": url, "api_key": "sk-test"}
    started = time.perf_counter()
    if mode == "plain":
        import litellm

        imported = time.perf_counter()
        messages = [
            {"role": "system", "content": INSTRUCTIONS},
            {"role": "user", "content": PROMPT},
        ]
        response = litellm.completion(messages=messages, max_retries=0, **llm)
        answered = time.perf_counter()
        if response.choices[0].message.content != ANSWER:
            raise RuntimeError("unexpected answer")
        return {
            "setup": imported - started,
            "first": answered - imported,
            "cpu": time.process_time(),
        }
    from praisonlike import Agent

    agent = Agent(instructions=INSTRUCTIONS, llm=llm)
    built = time.perf_counter()
    time.sleep(pause)
    resumed = time.perf_counter()
    answer = agent.chat(PROMPT)
    answered = time.perf_counter()
    cpu = time.process_time()
    if answer != ANSWER:
        raise RuntimeError(f"unexpected answer {answer!r}")
    agent.clear_history()
    agent.chat(PROMPT)
    second = time.perf_counter() - answered
    return {"setup": built - started, "first": answered - resumed, "second": second, "cpu": cpu}


VARIANTS: dict[str, tuple[str, float, dict[str, str]]] = {
    "plain: import litellm + first completion": ("plain", 0.0, {}),
    "agent: no pause": ("agent", 0.0, {}),
    "agent: pause between Agent() and chat()": ("agent", -1.0, {}),
    "agent: no pause, PRAISONLIKE_NO_WARMUP=1": ("agent", 0.0, {"PRAISONLIKE_NO_WARMUP": "1"}),
}


def _sample(mode: str, url: str, pause: float, extra_env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, url, str(pause)],
        env=bench_env() | extra_env,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise RuntimeError(f"the {mode} child failed:\n{out.stderr[-3000:]}")
    timings: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pause", type=float, default=2.0)
    parser.add_argument(
        "--child", nargs=3, metavar=("MODE", "URL", "PAUSE"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        mode, url, pause = args.child
        print(json.dumps(_child(mode, url, float(pause))))
        return
    print(f"first_turn: {machine()}")
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in VARIANTS}
    with ServerProcess() as server:
        for mode, _, extra in VARIANTS.values():
            _sample(mode, server.url, 0.0, extra)
        for _ in range(args.runs):
            for name, (mode, pause, extra) in VARIANTS.items():
                wait = args.pause if pause < 0 else pause
                samples[name].append(_sample(mode, server.url, wait, extra))
    print(server.describe())
    plain = median([s["setup"] + s["first"] for s in samples[next(iter(VARIANTS))]])
    rows = []
    for name, values in samples.items():
        total = median([s["setup"] + s["first"] for s in values])
        second: Any = median([s["second"] for s in values]) if "second" in values[0] else None
        rows.append(
            [
                name,
                ms(median([s["setup"] for s in values])),
                ms(median([s["first"] for s in values])),
                ms(total),
                ratio(total, plain),
                ms(median([s["cpu"] for s in values])),
                "" if second is None else ms(second),
            ]
        )
    print(
        table(
            f"Fresh process to first answer, median of {args.runs} runs, ms "
            f"(pause = {args.pause:g} s, not counted)",
            [
                "variant",
                "import (+ Agent())",
                "first call",
                "total",
                "vs plain",
                "process CPU",
                "second chat()",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    main()
