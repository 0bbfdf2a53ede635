"""Tool-call accuracy of the local model: praisonlike vs the bare llama.cpp server.

Runs the project's own cases (benchmarks/tool_call_cases.py: single calls,
argument types, a question needing no tool, two tools to choose from) against

* ``praisonlike``: ``Agent(llm=<model>, tools=[...])``; the first tool call the
  turn makes is scored (the turn is then cancelled), or its answer when it makes
  none;
* ``bare``: the same GGUF file on the same server, the tools in the request
  (the server's chat template), and the first JSON object of the reply (or its
  ``tool_calls``) taken as the call.

Prints accuracy, no-call, wrong-name, wrong-args and invalid-JSON counts, the
median prompt tokens and latency per system (and llama.cpp's own prompt and
generation timings for the bare path), per category; saves a PNG bar chart
(matplotlib, from the dev extra) and the raw results as JSON. Not a timed test:
it needs ``praisonlike[local]`` and takes minutes on a CPU.

    PRAISONLIKE_ALLOW_MODEL_REQUESTS=1 .venv/bin/python benchmarks/tool_calls.py \\
        [--per-category N] [--category no_tool,choose] [--systems praisonlike,bare] \\
        [--model local] \\
        [--chart docs/images/tool_calls.png] [--json /tmp/tool_calls.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from report import machine, table
from tool_call_cases import CASES, CATEGORIES, Case, matches

from praisonlike import Agent
from praisonlike.errors import RunCancelled
from praisonlike.events import ErrorEvent, LLMResponse, RunFinished, ToolCallEvent
from praisonlike.models.config import ExecutionConfig, LLMConfig
from praisonlike.models.local import local_endpoint
from praisonlike.models.local.warm_server import endpoint_token
from praisonlike.react.call_faults import find_call_fault
from praisonlike.tools.registry import ToolRegistry

INSTRUCTIONS = "You are a helpful assistant."
OUTCOMES = ("correct", "no_call", "wrong_name", "wrong_args", "invalid_json")
MAX_TOKENS = 256


def score(case: Case, call: tuple[str, Any] | None, invalid_json: bool) -> str:
    """One of :data:`OUTCOMES` (for a no-tool case, any call is ``wrong_name``)."""
    if call is None:
        if invalid_json:
            return "invalid_json"
        return "correct" if case.expected is None else "no_call"
    name, arguments = call
    if case.expected is None or name != case.expected.name:
        return "wrong_name"
    return "correct" if matches(case.expected, name, arguments) else "wrong_args"


def run_praisonlike(case: Case, model: str) -> dict[str, Any]:
    agent = Agent(
        instructions=INSTRUCTIONS,
        llm=LLMConfig(model=model, max_tokens=MAX_TOKENS),
        tools=list(case.tools),
        execution=ExecutionConfig(max_retries=0),
    )
    call: tuple[str, Any] | None = None
    output, prompt_tokens, requests, faults = "", [], 0, 0
    started = time.monotonic()
    try:
        for event in agent.stream_events(case.question, stream=False):
            if isinstance(event, LLMResponse):
                requests += 1
                prompt_tokens.append(event.usage.prompt_tokens)
            elif isinstance(event, ErrorEvent) and event.error_type == "ToolCallFault":
                faults += 1
            elif isinstance(event, ToolCallEvent) and call is None:
                call = (event.name, event.arguments)
                agent.cancel("scored")
            elif isinstance(event, RunFinished) and event.result is not None:
                output = event.result.text
    except RunCancelled:
        pass
    latency = time.monotonic() - started
    names = [tool.__name__ for tool in case.tools]
    invalid = call is None and (
        find_call_fault(output, names) is not None or output.lstrip().startswith("{")
    )
    return {
        "call": call,
        "outcome": score(case, call, invalid),
        "latency": latency,
        "prompt_tokens": prompt_tokens[0] if prompt_tokens else 0,
        "requests": requests,
        "corrections": faults,
        "reply": output[:300],
    }


def run_bare(case: Case, model: str) -> dict[str, Any]:
    alias, base = local_endpoint(model)
    body = {
        "model": alias.split("/", 1)[1],
        "messages": [
            {"role": "system", "content": INSTRUCTIONS},
            {"role": "user", "content": case.question},
        ],
        "tools": ToolRegistry(case.tools).schemas(),
        "temperature": 0,
        "max_tokens": MAX_TOKENS,
    }
    headers = {"Content-Type": "application/json"}
    token = endpoint_token(base)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        f"{base}/chat/completions", data=json.dumps(body).encode(), headers=headers
    )
    started = time.monotonic()
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=600) as response:
        reply = json.loads(response.read())
    latency = time.monotonic() - started
    message = reply["choices"][0]["message"]
    content = message.get("content") or ""
    call, invalid = first_call(message, content)
    timings = reply.get("timings") or {}
    return {
        "call": call,
        "outcome": score(case, call, invalid),
        "latency": latency,
        "prompt_tokens": (reply.get("usage") or {}).get("prompt_tokens", 0),
        "requests": 1,
        "prompt_ms": timings.get("prompt_ms"),
        "predicted_ms": timings.get("predicted_ms"),
        "reply": content[:300],
    }


def first_call(message: dict[str, Any], content: str) -> tuple[tuple[str, Any] | None, bool]:
    """The bare path's minimal parser: native ``tool_calls``, else the first JSON object."""
    for raw in message.get("tool_calls") or []:
        function = raw.get("function") or {}
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except ValueError:
            return None, True
        return (str(function.get("name")), arguments), False
    start = content.find("{")
    if start < 0:
        return None, False
    try:
        value, _ = json.JSONDecoder().raw_decode(content, start)
    except ValueError:
        return None, '"name"' in content
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None, False
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None, True
    return (value["name"], arguments), False


RUNNERS = {"praisonlike": run_praisonlike, "bare": run_bare}


def summary(results: dict[str, list[dict[str, Any]]], cases: list[Case]) -> str:
    lines = []
    rows = []
    for system, runs in results.items():
        counts = Counter(run["outcome"] for run in runs)
        rows.append(
            [
                system,
                f"{counts['correct']}/{len(runs)} ({100 * counts['correct'] / len(runs):.1f}%)",
                *(str(counts[o]) for o in OUTCOMES[1:]),
                f"{statistics.median(r['prompt_tokens'] for r in runs):.0f}",
                f"{statistics.median(r['latency'] for r in runs):.1f}",
            ]
        )
    headers = ["system", "correct", *OUTCOMES[1:], "median prompt tok", "median s"]
    lines.append(table("Tool calls, all cases", headers, rows))
    category_rows = []
    for category in CATEGORIES:
        indexes = [i for i, case in enumerate(cases) if case.category == category]
        if not indexes:
            continue
        cells = [category, str(len(indexes))]
        for runs in results.values():
            correct = sum(runs[i]["outcome"] == "correct" for i in indexes)
            cells.append(f"{correct}/{len(indexes)}")
        category_rows.append(cells)
    lines.append(table("Correct per category", ["category", "cases", *results], category_rows))
    bare = results.get("bare")
    if bare:
        prompt = [r["prompt_ms"] for r in bare if r.get("prompt_ms") is not None]
        predicted = [r["predicted_ms"] for r in bare if r.get("predicted_ms") is not None]
        if prompt and predicted:
            lines.append(
                f"bare path, llama.cpp timings: median prompt {statistics.median(prompt):.0f} ms, "
                f"median generation {statistics.median(predicted):.0f} ms"
            )
    plain = results.get("praisonlike")
    if plain:
        corrections = sum(r.get("corrections", 0) for r in plain)
        extra = sum(r["requests"] for r in plain) - len(plain)
        lines.append(f"praisonlike: {corrections} corrections sent, {extra} requests beyond one")
    return "\n\n".join(lines)


def save_chart(results: dict[str, list[dict[str, Any]]], cases: list[Case], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[dev]'); no chart", file=sys.stderr)
        return False
    categories = [c for c in CATEGORIES if any(case.category == c for case in cases)]
    width = 0.8 / max(1, len(results))
    figure, axes = plt.subplots(figsize=(9, 4))
    for offset, (system, runs) in enumerate(results.items()):
        rates = []
        for category in categories:
            indexes = [i for i, case in enumerate(cases) if case.category == category]
            rates.append(100 * sum(runs[i]["outcome"] == "correct" for i in indexes) / len(indexes))
        positions = [i + offset * width for i in range(len(categories))]
        axes.bar(positions, rates, width, label=system)
    axes.set_xticks([i + width * (len(results) - 1) / 2 for i in range(len(categories))])
    axes.set_xticklabels(categories)
    axes.set_ylabel("correct (%)")
    axes.set_ylim(0, 120)
    axes.set_yticks(range(0, 101, 20))
    axes.set_title("Tool calls of Qwen2.5-Coder-0.5B: praisonlike vs the bare server")
    axes.legend(loc="upper center", ncol=2)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-category", type=int, default=0, help="cases per category (0: all)")
    parser.add_argument("--category", default="", help="comma-separated categories (default: all)")
    parser.add_argument("--systems", default="praisonlike,bare")
    parser.add_argument("--model", default="local")
    parser.add_argument("--chart", type=Path, default=Path("docs/images/tool_calls.png"))
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    wanted = {c.strip() for c in args.category.split(",") if c.strip()}
    unknown = wanted - set(CATEGORIES)
    if unknown:
        parser.error(f"unknown categories {sorted(unknown)}; known: {', '.join(CATEGORIES)}")
    cases = [case for case in CASES if not wanted or case.category in wanted]
    if args.per_category:
        cases = [
            case
            for category in CATEGORIES
            for case in [c for c in cases if c.category == category][: args.per_category]
        ]
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    print(machine())
    print(f"model {args.model}, {len(cases)} cases, systems {', '.join(systems)}")
    local_endpoint(args.model)
    results: dict[str, list[dict[str, Any]]] = {system: [] for system in systems}
    for number, case in enumerate(cases, 1):
        for system in systems:
            run = RUNNERS[system](case, args.model)
            results[system].append(run)
            print(
                f"[{number}/{len(cases)}] {system:<11} {case.category:<8} {run['outcome']:<12} "
                f"{run['latency']:.1f}s {case.question!r} -> {run['call'] or run['reply'][:60]!r}",
                flush=True,
            )
    print()
    print(summary(results, cases))
    if args.json is not None:
        args.json.write_text(
            json.dumps({"cases": [c.question for c in cases], **results}, indent=1)
        )
    if save_chart(results, cases, args.chart):
        print(f"chart: {args.chart}")


if __name__ == "__main__":
    main()
