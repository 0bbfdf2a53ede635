"""The fault matrix: every fault LocalLLMServer injects, through every entry point.

Each cell runs one turn of an agent whose session (a SQLite store) already
holds one answered turn. The primary model fails with the fault either once
or on every request; the fallback model, when configured, always answers.
With tools, the primary first answers with a tool call, so the fault hits the
turn's second round. ``MATRIX`` writes down, per fault, what must happen in
the four (once / always) x (no fallback / fallback) situations, following the
policy of docs/errors.md with ``max_retries=1`` and ``max_context_retries=2``.

Every cell runs on both transports (the openai SDK sent directly, and LiteLLM)
and on a provider LiteLLM translates (an ``anthropic/...`` primary on the
server's Messages wire, its fallback on the OpenAI wire), and checks: the call
returns before a deadline, it gives an answer or raises exactly the typed error
(never ``None``), how many requests reached the server, for which model and on
which wire, the RunResult, the agent's history (unchanged by a
failed turn, extended by a recovered one) and the stored turn (status, answer,
retry and fallback steps).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from reliability_support import (
    FAULTS,
    FIRST_ANSWER,
    FIRST_QUESTION,
    PRICES,
    SESSION,
    SLOW,
    WAYS,
    add,
    call_timeout,
    run_turn,
    seed_session,
    stored_turns,
)
from transport_support import ANTHROPIC, ROUTES, route_llm, text_messages

from praisonlike import Agent, ExecutionConfig, MemoryConfig, TerminationReason
from praisonlike.errors import (
    APIConnectionError,
    AuthenticationError,
    BadRequestError,
    ContextWindowExceededError,
    LLMTimeoutError,
    MalformedResponseError,
    ModelNotFoundError,
    PraisonlikeError,
    RateLimitError,
    ServiceUnavailableError,
)
from praisonlike.events import RunFinished
from praisonlike.memory import MessageStatus
from praisonlike.testing import (
    Call,
    Delay,
    Fault,
    LocalLLMServer,
    RecordedRequest,
    Text,
    ToolCalls,
)
from praisonlike.testing.playback import PLAYABLE
from praisonlike.testing.script import Response

PRIMARY, FALLBACK = "test-model", "other-model"
QUESTION = "second question"
ANSWER = "the primary answered"
FALLBACK_ANSWER = "the fallback answered"
ErrorTypes = type[PraisonlikeError] | tuple[type[PraisonlikeError], ...]


@dataclass(frozen=True)
class Recovered:
    """The primary model answered after ``requests`` requests (tool round excluded)."""

    requests: int
    retries: int = 0


@dataclass(frozen=True)
class FellBack:
    """The fallback model answered; ``requests`` counts both models' requests."""

    requests: int
    retries: int = 0


@dataclass(frozen=True)
class Raised:
    """The turn failed with ``error`` after ``requests`` requests and ``retried`` retries."""

    error: ErrorTypes
    requests: int
    retried: int = 0


Outcome = Recovered | FellBack | Raised


@dataclass(frozen=True)
class Row:
    fault: Response
    once: Outcome
    once_with_fallback: Outcome
    always: Outcome
    always_with_fallback: Outcome


def retryable(fault: Response, error: ErrorTypes) -> Row:
    return Row(
        fault,
        once=Recovered(2, retries=1),
        once_with_fallback=Recovered(2, retries=1),
        always=Raised(error, 2, retried=1),
        always_with_fallback=FellBack(3, retries=1),
    )


def falls_back_at_once(fault: Response, error: ErrorTypes) -> Row:
    return Row(
        fault,
        once=Raised(error, 1),
        once_with_fallback=FellBack(2),
        always=Raised(error, 1),
        always_with_fallback=FellBack(2),
    )


# Each raises its own type on both transports, although LiteLLM wraps both in a synthetic 500.
DROPPED = APIConnectionError
MALFORMED = MalformedResponseError
MATRIX: dict[str, Row] = {
    "rate_limit": retryable(FAULTS["rate_limit"], RateLimitError),
    "rate_limit_retry_after": retryable(FAULTS["rate_limit_retry_after"], RateLimitError),
    "server_error": retryable(FAULTS["server_error"], ServiceUnavailableError),
    "unavailable": retryable(FAULTS["unavailable"], ServiceUnavailableError),
    "authentication": falls_back_at_once(FAULTS["authentication"], AuthenticationError),
    "model_not_found": falls_back_at_once(FAULTS["model_not_found"], ModelNotFoundError),
    "context_length_exceeded": Row(
        FAULTS["context_length_exceeded"],
        once=Recovered(2),
        once_with_fallback=Recovered(2),
        always=Raised(ContextWindowExceededError, 3),
        always_with_fallback=Raised(ContextWindowExceededError, 3),
    ),
    "bad_request": Row(
        FAULTS["bad_request"],
        once=Raised(BadRequestError, 1),
        once_with_fallback=Raised(BadRequestError, 1),
        always=Raised(BadRequestError, 1),
        always_with_fallback=Raised(BadRequestError, 1),
    ),
    "delay_past_timeout": retryable(FAULTS["delay_past_timeout"], LLMTimeoutError),
    "drop_connection": retryable(FAULTS["drop_connection"], DROPPED),
    "malformed_body": retryable(FAULTS["malformed_body"], MALFORMED),
}


def test_the_matrix_covers_every_fault_the_server_can_inject() -> None:
    factories = {name for name, value in vars(Fault).items() if isinstance(value, classmethod)}
    assert factories <= {fault_id.removesuffix("_retry_after") for fault_id in FAULTS}
    injectable = {*PLAYABLE, Delay} - {Text, ToolCalls}
    assert injectable <= {type(fault) for fault in FAULTS.values()}
    assert MATRIX.keys() == FAULTS.keys()


SITUATIONS: dict[str, tuple[bool, bool]] = {
    "once": (False, False),
    "once_with_fallback": (False, True),
    "always": (True, False),
    "always_with_fallback": (True, True),
}
ADD_CALL = Call("add", {"a": 2, "b": 3}, id="call-add")


class PrimaryFails:
    """The server's answers: the primary model fails with ``fault`` (on its first answer
    request, or on all of them); the fallback model always answers."""

    def __init__(self, fault: Response, *, always: bool, tools: bool) -> None:
        self._fault = fault
        self._always = always
        self._tools = tools
        self._primary_requests = 0
        self._failed = False

    def __call__(self, request: RecordedRequest) -> Response:
        if request.model != PRIMARY:
            return Text(FALLBACK_ANSWER)
        self._primary_requests += 1
        if self._tools and self._primary_requests == 1:
            return ToolCalls([ADD_CALL])
        if self._always or not self._failed:
            self._failed = True
            return self._fault
        return Text(ANSWER)


def turn_messages(tools: bool, answer: str) -> list[dict[str, Any]]:
    """The messages a successful turn adds to the history."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
    if tools:
        messages += [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": ADD_CALL.id,
                        "type": "function",
                        "function": {"name": "add", "arguments": ADD_CALL.arguments_json},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": ADD_CALL.id, "content": "5"},
        ]
    messages.append({"role": "assistant", "content": answer})
    return messages


def cells() -> list[Any]:
    """Every cell under PRAISONLIKE_SLOW_TESTS=1; in CI one entry point per (fault,
    situation, tools), rotated so that each fault still meets every entry point twice."""
    params = []
    for fault_number, fault_id in enumerate(MATRIX):
        combos = [(s, t) for s in SITUATIONS for t in (False, True)]
        for combo_number, (situation, tools) in enumerate(combos):
            ways = WAYS if SLOW else [WAYS[(fault_number + combo_number) % len(WAYS)]]
            label = "tools" if tools else "plain"
            params += [
                pytest.param(
                    fault_id, situation, tools, way, id=f"{fault_id}-{situation}-{label}-{way}"
                )
                for way in ways
            ]
    return params


def fallback_for(server: LocalLLMServer, route: str) -> str | dict[str, str]:
    """The fallback model: on the OpenAI wire a bare name (it shares the primary's
    endpoint and key); after an Anthropic primary, its own endpoint and key."""
    return server.llm_config(FALLBACK) if route == ANTHROPIC else f"openai/{FALLBACK}"


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("fault_id", "situation", "tools", "way"), cells())
def test_fault_cell(
    server: LocalLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fault_id: str,
    situation: str,
    tools: bool,
    way: str,
    route: str,
) -> None:
    """Every cell on both transports (the direct openai SDK one and LiteLLM) and on
    Anthropic's wire through LiteLLM."""
    llm = route_llm(monkeypatch, server, route, PRIMARY)
    row = MATRIX[fault_id]
    always, fallback = SITUATIONS[situation]
    expected: Outcome = getattr(row, situation)
    db = tmp_path / "sessions.db"
    before = seed_session(db)
    server.default = PrimaryFails(row.fault, always=always, tools=tools)
    agent = Agent(
        instructions="You answer questions.",
        llm=llm,
        tools=[add] if tools else None,
        fallback_models=[fallback_for(server, route)] if fallback else None,
        execution=ExecutionConfig(max_retries=1, retry_base=0.01, timeout=call_timeout(fault_id)),
        session_id=SESSION,
        memory=MemoryConfig(store=str(db), long_term=False),
        model_prices=PRICES,
    )

    run = run_turn(agent, way, QUESTION)
    agent.close()

    tool_round = 1 if tools else 0
    models = [request.model for request in server.requests]
    wires = {(request.model, request.anthropic) for request in server.requests}
    assert wires <= {(PRIMARY, route == ANTHROPIC), (FALLBACK, False)}
    first = text_messages(server.requests[0].messages[-3:])
    assert first == [*before, {"role": "user", "content": QUESTION}]
    result = agent.last_result
    assert result is not None
    if isinstance(expected, Raised):
        assert isinstance(run.error, expected.error), repr(run.error)
        assert run.answer is None
        assert getattr(run.error, "retried", None) == expected.retried
        assert models == [PRIMARY] * (expected.requests + tool_round)
        assert result.termination_reason is TerminationReason.ERROR
        assert result.error
        assert agent.chat_history == before
        status, stored_answer, retries = MessageStatus.ERROR, "", expected.retried
    else:
        fell_back = isinstance(expected, FellBack)
        answer = FALLBACK_ANSWER if fell_back else ANSWER
        assert run.error is None, repr(run.error)
        assert isinstance(run.answer, str)
        assert run.answer.endswith(answer) if way == "iter_stream" else run.answer == answer
        primary_requests = expected.requests + tool_round - fell_back
        assert models == [PRIMARY] * primary_requests + [FALLBACK] * fell_back
        assert result.termination_reason is TerminationReason.COMPLETED
        assert result.output == answer
        assert result.retries == expected.retries
        assert result.fallbacks == [f"openai/{FALLBACK}"] * fell_back
        assert agent.chat_history == [*before, *turn_messages(tools, answer)]
        status, stored_answer, retries = MessageStatus.NORMAL, answer, expected.retries
    if way == "stream_events":
        finished = run.events[-1]
        assert isinstance(finished, RunFinished)
        assert finished.termination_reason is result.termination_reason
    first, last = stored_turns(db)
    assert (first.query, first.answer, first.status) == (
        FIRST_QUESTION,
        FIRST_ANSWER,
        MessageStatus.NORMAL,
    )
    assert (last.query, last.answer, last.status) == (QUESTION, stored_answer, status)
    kinds = [step.event_type for step in last.steps]
    assert kinds.count("retry") == retries
    assert kinds.count("fallback") == int(isinstance(expected, FellBack))
    assert kinds.count("tool_result") == tool_round
