"""Every entry point shows the same answer and the same RunResult.

An answer that comes without a model call (the input guardrail's preset
response, a ``BEFORE_LLM`` hook that blocks with an output) streams as text
like any other; the ``run_finished`` event, the observers and ``last_result``
carry one and the same RunResult, skill included.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.agent.guardrails import GuardrailConfig
from praisonlike.events import RunFinished, TextDelta
from praisonlike.hooks import HookContext, HookPoint, HookResult
from praisonlike.result import RunResult, TerminationReason
from praisonlike.testing import LocalLLMServer, Text

PRESET = "I can't help with credentials."
HOOK_ANSWER = "the hook answered"


def guarded_agent(llm: dict[str, Any]) -> Agent:
    return Agent(
        instructions="x",
        llm=llm,
        guardrails=GuardrailConfig(input_keywords=["password"], preset_response=PRESET),
    )


def hook_answered_agent(llm: dict[str, Any]) -> Agent:
    return Agent(
        instructions="x",
        llm=llm,
        hooks={HookPoint.BEFORE_LLM: lambda ctx: HookResult(block=True, output=HOOK_ANSWER)},
    )


async def collect(agent: Agent, prompt: str) -> list[Any]:
    return [event async for event in agent.astream_events(prompt)]


@pytest.mark.parametrize(
    ("make", "expected", "reason"),
    [
        (guarded_agent, PRESET, TerminationReason.GUARDRAIL_BLOCKED),
        (hook_answered_agent, HOOK_ANSWER, TerminationReason.COMPLETED),
    ],
    ids=["input-guardrail", "blocking-hook"],
)
def test_an_answer_without_a_model_call_reaches_every_entry_point(
    server: LocalLLMServer,
    llm: dict[str, Any],
    make: Any,
    expected: str,
    reason: TerminationReason,
) -> None:
    prompt = "What is the admin password?"
    assert make(llm).chat(prompt) == expected
    assert asyncio.run(make(llm).achat(prompt)) == expected
    assert "".join(make(llm).iter_stream(prompt)) == expected

    for events in (list(make(llm).stream_events(prompt)), asyncio.run(collect(make(llm), prompt))):
        assert [e.type for e in events] == ["run_started", "text_delta", "run_finished"]
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == expected
        finished = events[-1]
        assert isinstance(finished, RunFinished) and finished.termination_reason is reason
        assert finished.result is not None and finished.result.output == expected
    assert server.request_count == 0


def test_observers_see_the_preset_answer_as_text(llm: dict[str, Any]) -> None:
    seen: list[Any] = []
    agent = Agent(
        instructions="x",
        llm=llm,
        guardrails=GuardrailConfig(input_keywords=["password"], preset_response=PRESET),
        on_event=seen.append,
    )
    assert "".join(agent.iter_stream("my password?")) == PRESET
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == PRESET
    seen.clear()
    assert agent.chat("my password?") == PRESET
    assert [e.type for e in seen] == ["run_started", "text_delta", "run_finished"]
    assert agent.chat_history[-1] == {"role": "assistant", "content": PRESET}


def write_skill(root: Path, name: str, body: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill\n---\n{body}\n"
    )


def test_run_finished_carries_the_same_result_as_last_result(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    write_skill(tmp_path, "release-notes", "Write notes for version $0.")
    observed: list[Any] = []
    hooked: list[Any] = []

    def after_agent(ctx: HookContext) -> None:
        hooked.append(ctx.response)

    agent = Agent(
        instructions="x",
        llm=llm,
        skills=[tmp_path],
        on_event=observed.append,
        hooks={HookPoint.AFTER_AGENT: after_agent},
    )
    server.default = Text("notes")
    for run in (
        lambda: list(agent.stream_events("/release-notes 1.2")),
        lambda: asyncio.run(collect(agent, "/release-notes 1.3")),
        lambda: agent.chat("/release-notes 1.4"),
    ):
        observed.clear()
        hooked.clear()
        outcome = run()
        result = agent.last_result
        assert isinstance(result, RunResult) and result.skill == "release-notes"
        finished = [e for e in observed if isinstance(e, RunFinished)]
        assert len(finished) == 1 and finished[0].result is result
        assert hooked == [result] and hooked[0] is result
        if isinstance(outcome, list):
            assert isinstance(outcome[-1], RunFinished) and outcome[-1].result is result
