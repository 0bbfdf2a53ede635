"""Tools versus the host: failing, hanging, flooding and unprintable tools, offered sets, approval.

Whatever a tool does, the turn goes on (the model reads an error) and what
reaches the history, the events, the session store and the model stays small
and serialisable. Only offered tools run, and approval-required tools run only
when the approver says exactly ``True``.
"""

from __future__ import annotations

import asyncio
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reliability_support import WAYS, CallLog, recording_tools, run_turn

from praisonlike import Agent, ExecutionConfig, MemoryConfig, TerminationReason, tool
from praisonlike.context import ContextConfig
from praisonlike.errors import ConfigurationError, ToolError
from praisonlike.events import ToolResultEvent
from praisonlike.loop.commands import ToolCall
from praisonlike.memory import SQLiteStore
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls
from praisonlike.tools import ToolRegistry, format_tool_result
from praisonlike.tools.approval import console_approver
from praisonlike.tools.executor import TurnTools
from praisonlike.tools.results import DEFAULT_RESULT_LIMIT

DONE = "done with the tools"
HUNDRED_MB = 100 * 1024 * 1024


def tool_messages(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "tool"]


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at teardown, so tools left hanging by a timeout finish and free their threads."""
    event = threading.Event()
    yield event
    event.set()


class BrokenText:
    """Neither str() nor repr() works."""

    def __str__(self) -> str:
        raise RuntimeError("no str")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class BrokenError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no str for this error either")


@pytest.mark.parametrize("way", WAYS)
def test_tool_exceptions_go_back_to_the_model(server: LocalLLMServer, way: str) -> None:
    def explode() -> str:
        """Always raises."""
        raise RuntimeError("kaboom")

    def unprintable_error() -> str:
        """Raises an error that cannot be printed."""
        raise BrokenError()

    def wordy_error() -> str:
        """Raises an error with a megabyte of text."""
        raise ValueError("w" * 1_000_000)

    server.extend(
        [
            ToolCalls(
                [Call("explode", {}), Call("unprintable_error", {}), Call("wordy_error", {})]
            ),
            Text(DONE),
        ]
    )
    agent = Agent(
        instructions="Use tools.",
        llm=server.llm_config(),
        tools=[explode, unprintable_error, wordy_error],
    )

    run = run_turn(agent, way, "go")

    assert run.error is None, repr(run.error)
    assert run.answer == DONE
    explode_text, unprintable_text, wordy_text = tool_messages(server.requests[1].messages)
    assert explode_text == "Error: tool 'explode' raised RuntimeError: kaboom"
    assert unprintable_text.startswith("Error: tool 'unprintable_error' raised BrokenError")
    assert wordy_text.startswith("Error: tool 'wordy_error' raised ValueError: www")
    assert len(wordy_text) < 2100
    assert agent.last_result is not None
    assert [c.is_error for c in agent.last_result.tool_calls] == [True, True, True]


@pytest.mark.parametrize("way", WAYS)
def test_hanging_tools_time_out_and_the_loop_goes_on(
    server: LocalLLMServer, release: threading.Event, way: str
) -> None:
    def hang_sync() -> str:
        """Blocks until the test ends."""
        release.wait(60)
        return "too late"

    async def hang_async() -> str:
        """Awaits until the test ends."""
        while not release.is_set():
            await asyncio.sleep(0.05)
        return "too late"

    server.extend([ToolCalls([Call("hang_sync", {}), Call("hang_async", {})]), Text(DONE)])
    agent = Agent(
        instructions="Use tools.",
        llm=server.llm_config(),
        tools=[hang_sync, hang_async],
        execution=ExecutionConfig(tool_timeout=0.3),
    )

    run = run_turn(agent, way, "go", deadline=20)

    assert run.error is None, repr(run.error)
    assert run.answer == DONE
    assert tool_messages(server.requests[1].messages) == [
        "Error: tool 'hang_sync' timed out after 0.3s",
        "Error: tool 'hang_async' timed out after 0.3s",
    ]
    assert not release.is_set()


def test_hung_tools_do_not_starve_later_tools(
    server: LocalLLMServer, release: threading.Event
) -> None:
    @tool(parallel_safe=True)
    def hang() -> str:
        """Blocks until the test ends."""
        release.wait(60)
        return "too late"

    def quick() -> str:
        """Answers at once."""
        return "quick answer"

    server.extend([ToolCalls([Call("hang", {}, id=f"hang-{n}") for n in range(33)]), Text(DONE)])
    hanging = Agent(
        instructions="Use tools.",
        llm=server.llm_config(),
        tools=[hang],
        execution=ExecutionConfig(tool_timeout=0.2),
    )
    assert run_turn(hanging, "chat", "hang").answer == DONE
    server.extend([ToolCalls([Call("quick", {})]), Text(DONE)])
    later = Agent(
        instructions="Use tools.",
        llm=server.llm_config(),
        tools=[quick],
        execution=ExecutionConfig(tool_timeout=2),
    )

    run = run_turn(later, "chat", "quick")

    assert run.answer == DONE
    assert tool_messages(server.requests[-1].messages) == ["quick answer"]


@pytest.mark.parametrize("way", WAYS)
def test_a_100_mb_result_is_cut_before_history_store_and_model(
    server: LocalLLMServer, tmp_path: Path, way: str
) -> None:
    def flood() -> str:
        """Returns 100 MB of text."""
        return "HEAD" + "x" * (HUNDRED_MB - 8) + "TAIL"

    events: list[Any] = []
    server.extend([ToolCalls([Call("flood", {})]), Text(DONE)])
    db = tmp_path / "sessions.db"
    agent = Agent(
        instructions="Use tools.",
        llm=server.llm_config(),
        tools=[flood],
        session_id="flood",
        memory=MemoryConfig(store=str(db), long_term=False),
        on_event=events.append,
    )

    run = run_turn(agent, way, "flood me", deadline=60)
    agent.close()

    assert run.error is None, repr(run.error)
    assert run.answer == DONE
    (kept,) = tool_messages(agent.chat_history)
    assert len(kept) <= DEFAULT_RESULT_LIMIT
    assert kept.startswith("HEADxxx") and kept.endswith("xxxTAIL")
    assert "[truncated " in kept
    (sent,) = tool_messages(server.requests[1].messages)
    assert len(sent) <= ContextConfig().tool_output_limit
    (result_event,) = [e for e in events if isinstance(e, ToolResultEvent)]
    assert result_event.result == kept
    with SQLiteStore(db) as store:
        (turn,) = store.load_turns("flood")
    (step,) = [s for s in turn.steps if s.event_type == "tool_result"]
    assert step.observation == kept
    assert db.stat().st_size < 10 * DEFAULT_RESULT_LIMIT


def test_huge_bytes_and_containers_are_cut_too(server: LocalLLMServer) -> None:
    def flood_bytes() -> bytes:
        """Returns 100 MB of bytes."""
        return b"b" * HUNDRED_MB

    def flood_list() -> list[str]:
        """Returns a list that is 20 MB as JSON."""
        return ["item" * 250] * 20_000

    server.extend([ToolCalls([Call("flood_bytes", {}), Call("flood_list", {})]), Text(DONE)])
    agent = Agent(
        instructions="Use tools.", llm=server.llm_config(), tools=[flood_bytes, flood_list]
    )

    assert run_turn(agent, "chat", "flood").answer == DONE

    as_bytes, as_list = tool_messages(agent.chat_history)
    assert len(as_bytes) <= DEFAULT_RESULT_LIMIT and as_bytes.startswith("bbbb")
    assert len(as_list) <= DEFAULT_RESULT_LIMIT and as_list.startswith('["itemitem')


def _call(name: str) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments="{}")


def test_the_result_limit_is_configurable() -> None:
    def long_text() -> str:
        """Returns 5000 characters."""
        return "a" * 2500 + "b" * 2500

    registry = ToolRegistry([long_text])
    capped = TurnTools(registry, run_id="r", result_limit=200).run(
        _call("long_text"), deadline=None
    )
    whole = TurnTools(registry, run_id="r", result_limit=None).run(
        _call("long_text"), deadline=None
    )

    assert not isinstance(capped, Exception) and not isinstance(whole, Exception)
    assert len(capped.result) <= 200
    assert capped.result.startswith("aaa") and capped.result.endswith("bbb")
    assert whole.result == "a" * 2500 + "b" * 2500
    assert format_tool_result("z" * 10, limit=None) == "z" * 10
    assert len(format_tool_result("z" * (DEFAULT_RESULT_LIMIT + 1))) <= DEFAULT_RESULT_LIMIT
    with pytest.raises(ConfigurationError):
        TurnTools(registry, run_id="r", result_limit=10)


@pytest.mark.parametrize("way", WAYS)
def test_unserialisable_results_never_break_the_loop(
    server: LocalLLMServer, tmp_path: Path, way: str
) -> None:
    circular: list[Any] = []
    circular.append(circular)
    values: dict[str, Any] = {
        "broken_text": BrokenText(),
        "broken_inside": {"key": BrokenText(), "set": {1, 2}},
        "circular": circular,
        "generator": (n for n in range(3)),
        "plain_object": object(),
        "not_a_number": float("nan"),
        "a_type": int,
    }

    def make(name: str, value: Any) -> Any:
        def produce() -> Any:
            """Returns an awkward value."""
            return value

        produce.__name__ = name
        return produce

    tools = [make(name, value) for name, value in values.items()]
    server.extend([ToolCalls([Call(name, {}) for name in values]), Text(DONE)])
    db = tmp_path / "sessions.db"
    agent = Agent(
        instructions="Use tools.",
        llm=server.llm_config(),
        tools=tools,
        session_id="awkward",
        memory=MemoryConfig(store=str(db), long_term=False),
    )

    run = run_turn(agent, way, "go")
    agent.close()

    assert run.error is None, repr(run.error)
    assert run.answer == DONE
    texts = tool_messages(server.requests[1].messages)
    assert len(texts) == len(values)
    assert all(isinstance(text, str) and text for text in texts)
    assert texts[0] == "<unprintable BrokenText object>"
    assert json.loads(json.dumps(agent.chat_history)) == agent.chat_history
    with SQLiteStore(db) as store:
        (turn,) = store.load_turns("awkward")
    assert [s.observation for s in turn.steps if s.event_type == "tool_result"] == texts


def echo_only(log: CallLog) -> list[Any]:
    return [t for t in recording_tools(log) if t.__name__ == "echo"]


NOT_QUITE_ECHO = [
    "add",
    "ECHO",
    " echo",
    "echo ",
    "echo\n",
    "../echo",
    "echo\x00",
    "ech",
    "e" * 5000,
]


@pytest.mark.parametrize("way", WAYS)
def test_only_offered_tools_run_native(server: LocalLLMServer, way: str) -> None:
    log = CallLog()
    agent = Agent(instructions="Use tools.", llm=server.llm_config(), tools=recording_tools(log))
    calls = [Call(name, {"text": "hi"}, id=f"c{n}") for n, name in enumerate(NOT_QUITE_ECHO)]
    server.extend([ToolCalls([*calls, Call("echo", {"text": "offered"}, id="ok")]), Text(DONE)])

    run = run_turn(agent, way, "go", tools=echo_only(log))

    assert run.error is None, repr(run.error)
    assert run.answer == DONE
    assert log.calls == [("echo", {"text": "offered"})]
    messages = tool_messages(server.requests[1].messages)
    assert all(m.startswith("Error: there is no tool named") for m in messages[:-1])
    assert all("Available tools: echo." in m for m in messages[:-1])
    assert max(len(m) for m in messages) < 300


def test_only_offered_tools_run_react(server: LocalLLMServer) -> None:
    log = CallLog()
    llm = {**server.llm_config(), "features": {"native_tool_calls": False}}
    agent = Agent(instructions="Use tools.", llm=llm, tools=recording_tools(log))
    server.default = Text(DONE)

    for name in ("ECHO", "../echo", "add", " echo", "echo"):
        call = json.dumps({"name": name, "arguments": {"text": name}})
        server.reset()
        server.add(Text(f"```json\n{call}\n```"))

        assert isinstance(agent.chat(f"call {name}", tools=echo_only(log)), str)

    assert log.calls == [("echo", {"text": "echo"})]


def test_skill_allowed_tools_limit_what_runs(server: LocalLLMServer, tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "restricted"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: restricted\ndescription: Only echo\nallowed-tools: [echo]\n---\n"
        "Echo $ARGUMENTS\n"
    )
    log = CallLog()
    agent = Agent(
        instructions="Use tools.",
        llm=server.llm_config(),
        tools=recording_tools(log),
        skills=tmp_path / "skills",
    )
    server.extend(
        [
            ToolCalls([Call("add", {"a": 1, "b": 2}), Call("echo", {"text": "allowed"})]),
            Text(DONE),
        ]
    )

    assert agent.chat("/restricted hello") == DONE

    assert log.calls == [("echo", {"text": "allowed"})]
    assert [t["function"]["name"] for t in server.requests[0].tools] == ["echo"]


async def _async_no(name: str, arguments: dict[str, Any]) -> bool:
    return False


def _raises(name: str, arguments: dict[str, Any]) -> bool:
    raise RuntimeError("the approval service is down")


APPROVERS: dict[str, Any] = {
    "no-approver": None,
    "false": lambda name, arguments: False,
    "truthy-string": lambda name, arguments: "yes",
    "truthy-int": lambda name, arguments: 1,
    "async-false": _async_no,
    "console-without-a-terminal": console_approver(stdin=io.StringIO("y\n"), stdout=io.StringIO()),
    "raises": _raises,
}


@pytest.mark.parametrize("way", ("chat", "achat"))
@pytest.mark.parametrize("approver", APPROVERS.values(), ids=APPROVERS.keys())
def test_approval_required_tools_never_run_unapproved(
    server: LocalLLMServer, approver: Any, way: str
) -> None:
    wiped: list[str] = []

    @tool(requires_approval=True)
    def wipe(path: str) -> str:
        """Delete everything under a path."""
        wiped.append(path)
        return "wiped"

    server.extend([ToolCalls([Call("wipe", {"path": "/"})]), Text(DONE)])
    agent = Agent(
        instructions="Use tools.", llm=server.llm_config(), tools=[wipe], approval=approver
    )

    run = run_turn(agent, way, "clean up")

    assert wiped == []
    if approver is _raises:
        assert isinstance(run.error, ToolError)
        assert agent.chat_history == []
        assert agent.last_result is not None
        assert agent.last_result.termination_reason is TerminationReason.ERROR
    else:
        assert run.answer == DONE
        assert tool_messages(server.requests[1].messages) == [
            "Error: the call to tool 'wipe' was denied by the approver"
        ]


@pytest.mark.parametrize("way", ("chat", "achat"))
def test_approved_tools_do_run(server: LocalLLMServer, way: str) -> None:
    wiped: list[str] = []

    @tool(requires_approval=True)
    def wipe(path: str) -> str:
        """Delete everything under a path."""
        wiped.append(path)
        return "wiped"

    server.extend([ToolCalls([Call("wipe", {"path": "/tmp/x"})]), Text(DONE)])
    agent = Agent(
        instructions="Use tools.",
        llm=server.llm_config(),
        tools=[wipe],
        approval=lambda name, arguments: name == "wipe" and arguments == {"path": "/tmp/x"},
    )

    assert run_turn(agent, way, "clean up").answer == DONE
    assert wiped == ["/tmp/x"]
