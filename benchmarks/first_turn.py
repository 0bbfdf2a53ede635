"""Time to the first answered one-tool turn in a fresh process, import included.

Each sample is a new interpreter talking to one benchmark server (in its own
process); the variants take turns, one process each per round. Variants:

- the plain openai SDK script: ``import openai``, a client, the turn's two
  ``chat.completions.create`` requests (the agent's own messages and tool
  schema, captured from a real turn) with the tool run by hand;
- praisonlike on the direct transport: ``from praisonlike import Agent``,
  ``Agent(..., tools=[add])`` on an ``openai/<name>`` model at the server,
  ``chat()``;
- plain LiteLLM: ``import litellm`` and the same two ``litellm.completion``
  requests;
- praisonlike with ``transport="litellm"``;
- PraisonAI's native path (``praisonai_worker.py first`` in its own
  environment), where ``benchmarks/.venv-praisonai`` exists.

praisonlike's bytecode is compiled before the runs (see
``served.compile_praisonlike``), like the packages it is compared with.
"total" is from the first import to the answer (interpreter start-up not
included); "process CPU" is the child's CPU time up to the answer,
interpreter start-up included, which a loaded machine disturbs less than
wall time. Targets: praisonlike on the direct transport within 1.2x the
plain openai SDK script, and at most PraisonAI's time.

    .venv/bin/python benchmarks/first_turn.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from plain import capture_request
from praisonai import PraisonAI, absent, find
from report import machine, machine_load, median, ms, ratio, table, verdict
from served import ANSWER, MODEL, ServerProcess, bench_env, compile_praisonlike

SDK_TARGET = 1.2
SDK = "plain openai SDK script"
DIRECT = "praisonlike, direct transport"
LITELLM = "plain LiteLLM script"
VIA_LITELLM = "praisonlike, transport=litellm"
PRAISONAI = "PraisonAI, native openai path"
MODES = {SDK: "sdk", DIRECT: "direct", LITELLM: "litellm", VIA_LITELLM: "via-litellm"}


def _plain_turn(create: Any, request: dict[str, Any]) -> str:
    """The two requests of a one-tool turn with ``create`` (an SDK or LiteLLM call)."""
    messages = list(request["messages"])
    first = create(messages=messages, tools=request["tools"])
    call = first.choices[0].message.tool_calls[0]
    arguments = json.loads(call.function.arguments)
    messages += [
        {"role": "assistant", "content": "", "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": str(arguments["a"] + arguments["b"])},
    ]
    second = create(messages=messages, tools=request["tools"])
    return str(second.choices[0].message.content)


def _child(mode: str, url: str, request_file: str) -> dict[str, float]:
    """Runs in the fresh interpreter; returns its timings in seconds."""
    request = json.loads(Path(request_file).read_text())
    started = time.perf_counter()
    if mode == "sdk":
        from openai import OpenAI

        client = OpenAI(base_url=url, api_key="sk-test", max_retries=0)
        built = time.perf_counter()
        answer = _plain_turn(
            lambda **kw: client.chat.completions.create(model=MODEL, **kw), request
        )
    elif mode == "litellm":
        import litellm

        built = time.perf_counter()
        llm = {"model": f"openai/{MODEL}", "api_base": url, "api_key": "sk-test"}
        answer = _plain_turn(lambda **kw: litellm.completion(max_retries=0, **llm, **kw), request)
    else:
        from agent_turns import PROMPT, direct_llm, make_agent

        llm = {"model": f"openai/{MODEL}", "api_base": url, "api_key": "sk-test"}
        agent = make_agent(direct_llm(llm) if mode == "direct" else {**llm, "transport": "litellm"})
        built = time.perf_counter()
        answer = str(agent.chat(PROMPT))
    answered = time.perf_counter()
    cpu = time.process_time()
    if answer != ANSWER:
        raise RuntimeError(f"unexpected answer {answer!r}")
    return {"setup": built - started, "first": answered - built, "cpu": cpu}


def _sample(mode: str, url: str, request_file: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, url, request_file],
        env=bench_env(),
        capture_output=True,
        text=True,
    )
    return _timings(mode, out)


def _timings(mode: str, out: subprocess.CompletedProcess[str]) -> dict[str, float]:
    if out.returncode != 0:
        raise RuntimeError(f"the {mode} child failed:\n{out.stderr[-3000:]}")
    timings: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-praisonai", action="store_true", help="leave PraisonAI out")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "URL", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(*args.child)))
        return
    # praisonlike is imported here, not at the top: the plain children must not load it.
    from agent_turns import PROMPT, make_agent

    print(f"first_turn: {machine()}")
    compile_praisonlike()
    print("praisonlike's bytecode compiled first, as pip does when it installs a wheel")
    praisonai = "left out (--no-praisonai)" if args.no_praisonai else find()
    print(praisonai.label if isinstance(praisonai, PraisonAI) else absent(praisonai))
    variants: dict[str, Any] = dict(MODES)
    if isinstance(praisonai, PraisonAI):
        variants[PRAISONAI] = praisonai
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    captured = capture_request(make_agent, PROMPT)
    with tempfile.TemporaryDirectory() as scratch, ServerProcess() as server:
        request_file = str(Path(scratch) / "request.json")
        Path(request_file).write_text(
            json.dumps({"messages": captured.messages, "tools": captured.tools})
        )
        load = machine_load()
        for round_ in range(args.runs + 1):  # the first round warms the file cache
            for name, mode in variants.items():
                if isinstance(mode, PraisonAI):
                    timings = _timings(name, mode.run(["first"], server.url))
                else:
                    timings = _sample(mode, server.url, request_file)
                if round_:
                    samples[name].append(timings)
    print(server.describe())
    totals = {n: median([s["setup"] + s["first"] for s in v]) for n, v in samples.items()}
    cpus = {n: median([s["cpu"] for s in v]) for n, v in samples.items()}
    rows = [
        [
            name,
            ms(median([s["setup"] for s in values])),
            ms(median([s["first"] for s in values])),
            ms(totals[name]),
            ratio(totals[name], totals[SDK]),
            ms(cpus[name]),
            ratio(cpus[name], cpus[SDK]),
        ]
        for name, values in samples.items()
    ]
    print(
        table(
            f"Fresh process to the first answered one-tool turn, median of {args.runs} runs, "
            f"ms; load average {load} at the start, {machine_load()} at the end",
            [
                "variant",
                "import (+ client/Agent())",
                "first turn",
                "total",
                "vs SDK",
                "process CPU",
                "CPU vs SDK",
            ],
            rows,
        )
    )
    direct = totals[DIRECT] / totals[SDK]
    print(
        f"praisonlike direct / plain openai SDK: {direct:.2f} (target {SDK_TARGET}): "
        f"{verdict(direct <= SDK_TARGET)}"
    )
    print(f"praisonlike via LiteLLM / plain LiteLLM: {totals[VIA_LITELLM] / totals[LITELLM]:.2f}")
    if PRAISONAI in totals:
        versus = totals[DIRECT] / totals[PRAISONAI]
        print(f"praisonlike direct / PraisonAI: {versus:.2f} (target 1.0): {verdict(versus <= 1)}")


if __name__ == "__main__":
    main()
