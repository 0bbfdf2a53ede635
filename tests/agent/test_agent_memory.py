"""Sessions through the Agent: stored turns and steps, history loading, summaries, state."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from praisonlike import Agent, ExecutionConfig
from praisonlike.errors import AuthenticationError, StateVersionError
from praisonlike.memory import (
    MessageStatus,
    SQLiteStore,
    TurnRecord,
    atomic_write_json,
    read_json,
)
from praisonlike.memory.config import MemoryConfig
from praisonlike.testing import Call, Fault, LocalLLMServer, Text, ToolCalls

SUMMARY_SYSTEM = "long-term memory of a conversation"
FAST_RETRIES = ExecutionConfig(retry_base=0.01, retry_max=0.05)


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def make_agent(llm: dict[str, Any], store: Any, **kwargs: Any) -> Agent:
    memory = kwargs.pop("memory", MemoryConfig(store=store, long_term=False))
    return Agent(
        instructions="You remember things",
        llm=llm,
        tools=[add],
        session_id=kwargs.pop("session_id", "s1"),
        memory=memory,
        **kwargs,
    )


def test_turn_and_steps_are_stored_in_order(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    server.extend([ToolCalls([Call("add", {"a": 2, "b": 3})]), Text("five")])
    agent = make_agent(llm, store, model_prices={"test-model": {"input": 1.0, "output": 2.0}})
    assert agent.chat("2+3?") == "five"
    turns = store.load_turns("s1")
    assert len(turns) == 1
    turn = turns[0]
    assert (turn.query, turn.answer, turn.status) == ("2+3?", "five", MessageStatus.NORMAL)
    assert turn.prompt_tokens == agent.usage.prompt_tokens > 0
    assert turn.cost == pytest.approx(agent.total_cost)
    kinds = [s.event_type for s in turn.steps]
    assert kinds == ["llm_response", "tool_call", "tool_result", "llm_response"]
    assert turn.steps[1].tool == "add" and turn.steps[1].tool_input == {"a": 2, "b": 3}
    assert turn.steps[2].observation == "5"
    first_sent = turn.steps[0].messages
    assert first_sent is not None and first_sent[-1] == {"role": "user", "content": "2+3?"}
    assert turn.steps[3].messages is not None and turn.steps[3].messages[-1]["role"] == "tool"
    assert all(s.prompt_tokens > 0 for s in turn.steps if s.event_type == "llm_response")


def test_a_text_calls_step_keeps_the_prose_not_the_call_nor_a_refused_attempt(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    """As a display shows the turn: a ReAct reply's thought is its text less the
    calls written in it; a reply whose call was not run has none (it stays in the
    next step's request)."""
    store = SQLiteStore(tmp_path / "s.db")
    react = {**llm, "features": {"native_tool_calls": False}}
    refused = '{"name": "add", "arguments": {"a": 7, "b": 9}}'
    server.extend(
        [
            Text(refused),
            Text('I will add them.\n{"name": "add", "arguments": {"a": 2, "b": 3}}'),
            Text("five"),
        ]
    )
    agent = make_agent(react, store)
    assert agent.chat("What is 2+3?") == "five"
    (turn,) = store.load_turns("s1")
    kinds = [s.event_type for s in turn.steps]
    assert kinds == ["llm_response", "llm_response", "tool_call", "tool_result", "llm_response"]
    assert [s.thought for s in turn.steps if s.event_type == "llm_response"] == [
        None,
        "I will add them.",
        "five",
    ]
    second_sent = turn.steps[1].messages
    assert second_sent is not None and second_sent[-2] == {"role": "assistant", "content": refused}


def test_failed_turn_is_stored_with_status_and_kept_out_of_history(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    server.extend([Text("hello back"), Fault.authentication()])
    agent = make_agent(llm, SQLiteStore(db))
    agent.chat("hello")
    with pytest.raises(AuthenticationError):
        agent.chat("this one fails")
    statuses = [t.status for t in SQLiteStore(db).load_turns("s1")]
    assert statuses == [MessageStatus.NORMAL, MessageStatus.ERROR]

    server.add(Text("resumed"))
    fresh = make_agent(llm, SQLiteStore(db))
    fresh.chat("again")
    sent = server.requests[-1].messages
    assert [m["content"] for m in sent[1:]] == ["hello", "hello back", "again"]


def test_history_rounds_limit_the_loaded_history(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    server.default = lambda request: Text(f"answer to {request.messages[-1]['content']}")
    writer = make_agent(llm, SQLiteStore(db))
    for n in range(5):
        writer.chat(f"q{n}")
    reader = make_agent(
        llm, None, memory=MemoryConfig(store=SQLiteStore(db), history_rounds=2, long_term=False)
    )
    reader.chat("new")
    contents = [m["content"] for m in server.requests[-1].messages[1:]]
    assert contents == ["q3", "answer to q3", "q4", "answer to q4", "new"]


def test_summary_updates_in_background_and_reaches_next_prompt(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    store = SQLiteStore(tmp_path / "s.db")

    def respond(request: Any) -> Text:
        system = request.messages[0]["content"]
        if "long-term memory of a conversation" in system:
            return Text("The user is called Ada.")
        return Text("Nice to meet you" if "Ada" in request.messages[-1]["content"] else "Hi Ada")

    server.default = respond
    with make_agent(llm, store, memory=MemoryConfig(store=store)) as agent:
        agent.chat("My name is Ada")
        agent.wait_for_summaries()
        assert store.get_summary("s1") == "The user is called Ada."
        agent.chat("what is my name?")
    last_answer_request = [
        r
        for r in server.requests
        if "long-term memory of a conversation" not in r.messages[0]["content"]
    ]
    assert "The user is called Ada." in last_answer_request[-1].messages[0]["content"]
    assert agent.usage.requests == 4  # two answers and two summaries, all counted


def test_failing_summary_model_does_not_affect_the_answer(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    errors: list[Any] = []
    server.extend([Text("the answer"), Fault.server_error()])
    agent = make_agent(
        llm,
        store,
        memory=MemoryConfig(store=store),
        execution=FAST_RETRIES,
        on_event=lambda e: errors.append(e) if e.type == "error" else None,
    )
    assert agent.chat("question") == "the answer"
    agent.close()
    assert store.get_summary("s1") is None
    assert errors and "summary update failed" in errors[0].message
    assert store.load_turns("s1")[0].answer == "the answer"


LOOPING = "The user is Ada and likes tea and the user is Ada and likes tea " * 4
# what Qwen2.5-0.5B answered to the summary request: its input, copied
ECHO = (
    "Current summary:\nThe user is called Ada.\n\nNew exchange:\nUser: I like tea\nAssistant: noted"
)
LONG = " ".join(f"Ada mentioned fact number {n}." for n in range(90))  # 450 words


@pytest.mark.parametrize(
    ("summary", "why"),
    [
        (Text(LOOPING), "repeated itself"),
        (Text("The user is called Ada and", finish_reason="length"), "cut at its token limit"),
        (Text(ECHO), "echoed its request"),
        (Text(LONG), "450 words, over twice the 200 asked for"),
    ],
    ids=["looping", "cut", "echo", "long"],
)
def test_a_looping_cut_echoed_or_overlong_summary_is_not_kept(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path, summary: Text, why: str
) -> None:
    """A small model looping on a phrase until the cap, or copying its request (which
    then grows by one exchange a turn), would put hundreds of tokens of it into every
    later prompt: such a summary is refused and the previous one kept."""
    store = SQLiteStore(tmp_path / "s.db")
    errors: list[Any] = []
    summaries = iter([Text("The user is called Ada."), summary, Text("Ada likes tea.")])

    def respond(request: Any) -> Text:
        if SUMMARY_SYSTEM in request.messages[0]["content"]:
            return next(summaries)
        return Text("noted")

    server.default = respond
    memory = MemoryConfig(store=store)
    on_event = lambda e: errors.append(e) if e.type == "error" else None  # noqa: E731
    with make_agent(llm, store, memory=memory, on_event=on_event) as agent:
        agent.chat("My name is Ada")
        agent.wait_for_summaries()
        agent.chat("I like tea")
        agent.wait_for_summaries()
        assert store.get_summary("s1") == "The user is called Ada."
        assert agent.summary == "The user is called Ada."
        agent.chat("what do you know?")
    assert [why in e.message for e in errors] == [True]
    summary_calls = [r for r in server.requests if SUMMARY_SYSTEM in r.messages[0]["content"]]
    answer_calls = [r for r in server.requests if r not in summary_calls]
    last_prompt = answer_calls[-1].messages[0]["content"]
    assert "The user is called Ada." in last_prompt and "likes tea" not in last_prompt


def test_closing_while_the_summary_is_written_says_so_on_a_terminal(
    server: LocalLLMServer,
    llm: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``close()`` waits for the summary (the CLI's one-shot ``--session`` turn ends
    there); a terminal's stderr shows what it waits for, and nothing when it waits
    for nothing."""
    monkeypatch.setenv("PRAISONLIKE_PROGRESS", "1")  # as on a terminal

    def respond(request: Any) -> Text:
        if SUMMARY_SYSTEM in request.messages[0]["content"]:
            time.sleep(0.3)
            return Text("The user is called Ada.")
        return Text("noted")

    server.default = respond
    store = SQLiteStore(tmp_path / "s.db")
    agent = make_agent(llm, store, memory=MemoryConfig(store=store))
    agent.chat("My name is Ada")
    assert capsys.readouterr().err == ""
    agent.close()
    assert "Updating the conversation's summary: done in" in capsys.readouterr().err
    assert store.get_summary("s1") == "The user is called Ada."
    agent.close()
    assert capsys.readouterr().err == ""


RESUME_SCRIPT = textwrap.dedent("""
    import sys
    from praisonlike import Agent
    from praisonlike.memory.config import MemoryConfig
    url, db, prompt = sys.argv[1:4]
    agent = Agent(instructions="x", llm={"model": "openai/test-model", "api_base": url,
                  "api_key": "k"}, session_id="resume", memory=MemoryConfig(store=db,
                  long_term=False))
    print(agent.chat(prompt))
    agent.close()
""")


def test_resume_across_two_processes(server: LocalLLMServer, tmp_path: Path) -> None:
    server.default = lambda request: Text(f"seen {len(request.messages)} messages")
    script = tmp_path / "resume.py"
    script.write_text(RESUME_SCRIPT)
    db = str(tmp_path / "s.db")
    env = {**os.environ, "PRAISONLIKE_ALLOW_MODEL_REQUESTS": "0"}
    for prompt in ("first", "second"):
        out = subprocess.run(
            [sys.executable, str(script), server.url, db, prompt],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
    second = server.requests[-1].messages
    assert [m["content"] for m in second[1:]] == ["first", "seen 2 messages", "second"]


KILL_SCRIPT = textwrap.dedent("""
    import sys, time
    from praisonlike import Agent
    from praisonlike.memory.config import MemoryConfig
    url, db = sys.argv[1:3]
    def slow(x: int) -> int:
        \"\"\"Slow tool.\"\"\"
        print("in-tool", flush=True)
        time.sleep(60)
        return x
    agent = Agent(instructions="x", llm={"model": "openai/test-model", "api_base": url,
                  "api_key": "k"}, tools=[slow], session_id="k",
                  memory=MemoryConfig(store=db, long_term=False))
    print(agent.chat("done before"), flush=True)
    agent.chat("killed during")
""")


def test_sigkill_mid_turn_leaves_a_sound_store(server: LocalLLMServer, tmp_path: Path) -> None:
    server.extend([Text("ok"), ToolCalls([Call("slow", {"x": 1})])])
    script = tmp_path / "kill.py"
    script.write_text(KILL_SCRIPT)
    db = tmp_path / "s.db"
    env = {**os.environ, "PRAISONLIKE_ALLOW_MODEL_REQUESTS": "0"}
    proc = subprocess.Popen(
        [sys.executable, str(script), server.url, str(db)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    lines = [proc.stdout.readline().strip(), proc.stdout.readline().strip()]
    assert lines == ["ok", "in-tool"]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    turns = SQLiteStore(db).load_turns("k")
    assert [(t.query, t.answer) for t in turns] == [("done before", "ok")]


def test_save_and_load_state_round_trip(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    server.extend([Text("one"), Text("two")])
    agent = Agent(
        instructions="x", llm=llm, model_prices={"test-model": {"input": 1.0, "output": 1.0}}
    )
    agent.chat("first")
    agent.steer("later, please be brief")
    path = tmp_path / "state.json"
    atomic_write_json(path, agent.save_state())
    state = read_json(path)
    assert state["version"] == 1
    json.dumps(state)
    restored = Agent.load_state(
        state, instructions="x", llm=llm, model_prices={"test-model": {"input": 1.0, "output": 1.0}}
    )
    assert restored.chat_history == agent.chat_history
    assert restored.usage == agent.usage
    assert restored.pending_steering() == ["later, please be brief"]
    restored.chat("second")
    sent = [m["content"] for m in server.requests[-1].messages[1:]]
    assert sent == ["first", "one", "later, please be brief", "second"] or sent == [
        "first",
        "one",
        "second",
        "later, please be brief",
    ]


def test_unknown_state_version_is_refused(llm: dict[str, Any]) -> None:
    agent = Agent(instructions="x", llm=llm)
    with pytest.raises(StateVersionError, match="version"):
        agent.load_state({"version": 99, "history": []})


CALL = {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}}


@pytest.mark.parametrize(
    ("state", "names"),
    [
        ({"history": [{"role": "wizard", "content": "hi"}]}, "role 'wizard'"),
        (
            {
                "history": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "tool_calls": [CALL]},
                ]
            },
            "tool calls without results: c1",
        ),
        (
            {
                "history": [
                    {"role": "assistant", "tool_calls": [CALL]},
                    {"role": "user", "content": "and?"},
                ]
            },
            "tool calls without results: c1",
        ),
        ({"history": [{"role": "tool", "tool_call_id": "c9", "content": "3"}]}, "answers no tool"),
        ({"pending_steering": "abc"}, "pending_steering"),  # was restored as a, b, c
        ({"summary": 5}, "summary"),
    ],
)
def test_a_malformed_state_is_refused_and_the_agent_left_as_it_was(
    llm: dict[str, Any], state: dict[str, Any], names: str
) -> None:
    """A dangling tool call would be sent, and refused by real providers, on every turn."""
    agent = Agent(instructions="x", llm=llm)
    with pytest.raises(StateVersionError, match=names):
        agent.load_state({"version": 1, **state})
    assert agent.chat_history == [] and agent.save_state()["pending_steering"] == []


def test_a_saved_tool_round_loads_back(llm: dict[str, Any]) -> None:
    history = [
        {"role": "user", "content": "add"},
        {"role": "assistant", "content": "", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
        {"role": "assistant", "content": "3"},
    ]
    agent = Agent.load_state({"version": 1, "history": history}, instructions="x", llm=llm)
    assert agent.chat_history == history


def test_memory_needs_a_session_id(llm: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="session_id"):
        Agent(instructions="x", llm=llm, memory=True)


def test_timeout_turn_is_stored_as_timeout(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    store = SQLiteStore(tmp_path / "s.db")

    def slow(x: int) -> int:
        """Slow."""
        time.sleep(0.5)
        return x

    server.extend([ToolCalls([Call("slow", {"x": 1})]), Text("late")])
    agent = Agent(
        instructions="x",
        llm=llm,
        tools=[slow],
        session_id="t",
        memory=MemoryConfig(store=store, long_term=False),
        execution=ExecutionConfig(max_execution_time=0.2),
    )
    with pytest.raises(Exception, match="deadline"):
        agent.chat("slow please")
    assert [t.status for t in store.load_turns("t")] == [MessageStatus.TIMEOUT]


def _dense_text(seed: int, words: int) -> str:
    """Text that tokenises at about two characters a token (hex ids), far from chars/4."""
    return " ".join(f"{(seed * 7919 + n * 104729) % 16**6:06x}" for n in range(words))


def test_history_tokens_is_counted_with_the_models_tokenizer(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    from praisonlike.context import TokenCounter

    store = SQLiteStore(tmp_path / "s.db")
    for n in range(12):
        store.save_turn(
            TurnRecord(
                id=f"t{n}",
                conversation_id="s1",
                query=f"question {n}: " + _dense_text(n, 12),
                answer=f"answer {n}: " + _dense_text(n + 100, 24),
                status=MessageStatus.NORMAL,
                created_at=1000.0 + n,
            )
        )
    server.add(Text("ok"))
    agent = make_agent(
        llm, None, memory=MemoryConfig(store=store, history_tokens=700, long_term=False)
    )
    agent.chat("new")
    history = server.requests[0].messages[1:-1]
    counter = TokenCounter(llm["model"])
    tokens = sum(counter.count_message(m) for m in history)
    pair = max(
        counter.count_message(history[i]) + counter.count_message(history[i + 1])
        for i in range(0, len(history), 2)
    )
    assert history and history[-1]["content"].startswith("answer 11:")
    assert 700 - pair < tokens <= 700


def test_summary_call_is_retried_on_a_503_and_counted_in_usage(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    summary_requests: list[Any] = []

    def respond(request: Any) -> Any:
        if SUMMARY_SYSTEM in request.messages[0]["content"]:
            summary_requests.append(request)
            if len(summary_requests) == 1:
                return Fault.unavailable()
            return Text("The user is called Ada.")
        return Text("Hi Ada")

    server.default = respond
    events: list[Any] = []
    agent = make_agent(
        llm, store, memory=MemoryConfig(store=store), execution=FAST_RETRIES, on_event=events.append
    )
    agent.chat("My name is Ada")
    agent.wait_for_summaries()
    assert len(summary_requests) == 2
    assert store.get_summary("s1") == "The user is called Ada."
    assert agent.summary == "The user is called Ada."
    assert agent.usage.requests == 2
    assert (agent.usage.prompt_tokens, agent.usage.completion_tokens) == server.tokens_served
    retries = [e for e in events if e.type == "retry"]
    assert [(e.attempt, e.model) for e in retries] == [(1, "openai/test-model")]
    assert [e.purpose for e in events if e.type == "llm_response"] == ["answer", "summary"]
    assert not [e for e in events if e.type == "error"]


def test_summary_call_falls_back_to_the_next_model(
    server: LocalLLMServer, llm: dict[str, Any], tmp_path: Path
) -> None:
    store = SQLiteStore(tmp_path / "s.db")

    def respond(request: Any) -> Any:
        if SUMMARY_SYSTEM not in request.messages[0]["content"]:
            return Text("Hi Ada")
        if request.model == "summary-model":
            return Fault.model_not_found("summary-model")
        return Text(f"Summary by {request.model}.")

    server.default = respond
    events: list[Any] = []
    agent = make_agent(
        llm,
        store,
        memory=MemoryConfig(store=store, summary_model="openai/summary-model"),
        execution=FAST_RETRIES,
        on_event=events.append,
    )
    agent.chat("My name is Ada")
    agent.wait_for_summaries()
    assert store.get_summary("s1") == "Summary by test-model."
    fallbacks = [(e.from_model, e.to_model) for e in events if e.type == "fallback"]
    assert fallbacks == [("openai/summary-model", "openai/test-model")]
    by_model = agent.cost_summary()["by_model"]
    assert by_model["openai/test-model"]["requests"] == 2
