"""Do all the systems the benchmarks compare send the same two requests per one-tool turn?

A per-turn ratio means something only if both sides do the same work. This
script runs one turn of every mode ``overhead.py`` times -- praisonlike on
the direct transport and through LiteLLM, the plain openai SDK, plain
LiteLLM, PraisonAI where installed -- against an in-process recording
``LocalLLMServer`` and prints, per mode, what reached the server: the number
of requests, whether each was streamed, how many messages and tool schemas
it carried. It exits non-zero when a mode does not send two requests, both
offering the tool, streamed exactly when the mode streams. (A model
registered without ``supports_function_calling`` once made the agent send
one tool-less request per "one-tool turn", and the benchmark did not see it.)

    .venv/bin/python benchmarks/same_requests.py
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from agent_turns import PROMPT, direct_llm, make_agent
from plain import PlainOpenAITurn, PlainTurn, capture_request, close_loop
from praisonai import PraisonAI, Worker, absent, find
from report import table, verdict
from served import MODEL, _respond

from praisonlike import Agent
from praisonlike.testing import LocalLLMServer


class _Endpoint:
    """The in-process server's URL and ``llm=`` dict, as ``ServerProcess`` gives them."""

    def __init__(self, server: LocalLLMServer) -> None:
        self.url = server.url

    def llm_config(self) -> dict[str, str]:
        return {"model": f"openai/{MODEL}", "api_base": self.url, "api_key": "sk-test"}


def _modes(
    endpoint: _Endpoint, loop: asyncio.AbstractEventLoop
) -> dict[str, tuple[Callable[[], object], bool]]:
    """Mode name -> (one turn, whether it streams)."""
    llm = endpoint.llm_config()
    plain = PlainTurn(llm, capture_request(make_agent, PROMPT))
    sdk = PlainOpenAITurn(llm, plain.request)
    direct = make_agent(direct_llm(llm))
    via = make_agent({**llm, "transport": "litellm"})

    def cleared(agent: Agent, turn: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            try:
                return turn()
            finally:
                agent.clear_history()

        return run

    def agent_modes(label: str, agent: Agent) -> dict[str, tuple[Callable[[], object], bool]]:
        return {
            f"{label} chat": (cleared(agent, lambda: agent.chat(PROMPT)), False),
            f"{label} achat": (
                cleared(agent, lambda: loop.run_until_complete(agent.achat(PROMPT))),
                False,
            ),
            f"{label} iter_stream": (
                cleared(agent, lambda: "".join(agent.iter_stream(PROMPT))),
                True,
            ),
        }

    return {
        **agent_modes("praisonlike direct", direct),
        **agent_modes("praisonlike transport=litellm", via),
        "openai SDK create": (sdk.run, False),
        "openai SDK acreate": (lambda: loop.run_until_complete(sdk.arun()), False),
        "openai SDK create(stream)": (sdk.run_streamed, True),
        "litellm completion": (plain.run, False),
        "litellm acompletion": (lambda: loop.run_until_complete(plain.arun()), False),
        "litellm completion(stream)": (plain.run_streamed, True),
    }


def _row(name: str, requests: list[Any], streams: bool) -> tuple[list[str], bool]:
    shapes = [
        f"{len(r.messages)} msgs, {len(r.tools)} tools, stream={bool(r.body.get('stream'))}"
        for r in requests
    ]
    ok = len(requests) == 2 and all(
        len(r.tools) == 1 and bool(r.body.get("stream")) == streams for r in requests
    )
    return [name, str(len(requests)), " | ".join(shapes), verdict(ok)], ok


def main() -> int:
    praisonai = find()
    rows: list[list[str]] = []
    ok = True
    loop = asyncio.new_event_loop()
    with LocalLLMServer(default=_respond) as server:
        endpoint = _Endpoint(server)
        try:
            for name, (turn, streams) in _modes(endpoint, loop).items():
                before = len(server.requests)
                turn()
                row, passed = _row(name, server.requests[before:], streams)
                rows.append(row)
                ok = ok and passed
        finally:
            close_loop(loop)
        if isinstance(praisonai, PraisonAI):
            with Worker(praisonai, endpoint.url) as worker:
                for entry, streams in (("chat", False), ("achat", False), ("iter_stream", True)):
                    before = len(server.requests)
                    worker.turn(entry)
                    row, passed = _row(f"PraisonAI {entry}", server.requests[before:], streams)
                    rows.append(row)
                    ok = ok and passed
    print(
        table(
            "What reached the server in one one-tool turn", ["mode", "requests", "shape", ""], rows
        )
    )
    if not isinstance(praisonai, PraisonAI):
        print(absent(praisonai))
    print(f"\nsame requests: {verdict(ok)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
