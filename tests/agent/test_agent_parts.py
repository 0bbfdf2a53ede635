"""Each runtime part of an Agent alone (no Agent): built by AgentParts.build from a spec,
checked through its own methods; and the mixins touch no private state but their own."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

import praisonlike.agent
from praisonlike import Agent, LLMConfig
from praisonlike._runtime.cancellation import CancelToken
from praisonlike.agent.conversation import Conversation
from praisonlike.agent.parts import AgentParts, HasParts
from praisonlike.agent.spec import AgentSpec
from praisonlike.errors import ConfigurationError
from praisonlike.hooks import HookPoint
from praisonlike.memory import MessageStatus, SQLiteStore, TurnRecord
from praisonlike.memory.config import MemoryConfig
from praisonlike.memory.history import estimate_tokens
from praisonlike.result import RunResult
from praisonlike.run_enums import TerminationReason


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def sub(a: int, b: int) -> int:
    """Subtract b from a."""
    return a - b


def parts_of(**arguments: Any) -> tuple[AgentSpec, AgentParts]:
    spec = AgentSpec.build(**{"instructions": "Be brief.", **arguments})
    return spec, AgentParts.build(spec)


def turn(turn_id: str, query: str, answer: str, status: MessageStatus) -> TurnRecord:
    return TurnRecord(
        id=turn_id, conversation_id="s1", query=query, answer=answer, status=status, created_at=1.0
    )


def test_every_build_makes_fresh_parts_and_reports_invalid_tools_and_hooks() -> None:
    spec, first = parts_of(tools=[add])
    second = AgentParts.build(spec)
    for name in ("session", "tools", "hooks", "models", "contexts", "skills", "prompts"):
        assert getattr(first, name) is not getattr(second, name), name
    assert first.observers is not second.observers
    with pytest.raises(ConfigurationError, match="tools"):
        parts_of(tools=[add, add])
    with pytest.raises(ConfigurationError, match="hooks"):
        parts_of(hooks={"no_such_point": lambda context: None})
    _, hooked = parts_of(hooks={HookPoint.BEFORE_TOOL: [lambda context: None]})
    assert hooked.hooks.has(HookPoint.BEFORE_TOOL)
    assert not hooked.hooks.has(HookPoint.AFTER_TOOL)


# -- SessionBinding ---------------------------------------------------------------------


def test_session_opens_its_store_on_first_use_and_loads_answered_turns_once(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions" / "s.db"
    with SQLiteStore(db) as earlier:
        earlier.save_turn(turn("t1", "q1", "a1", MessageStatus.NORMAL))
        earlier.save_turn(turn("t2", "q2", "", MessageStatus.ERROR))
        earlier.set_summary("s1", "they asked twice")
    db_new = tmp_path / "fresh" / "s.db"
    _, fresh = parts_of(session_id="s1", memory=MemoryConfig(store=db_new), name="bot")
    assert not db_new.parent.exists()
    fresh.session.prepare(Conversation(), estimate_tokens)
    assert db_new.exists()
    store = fresh.session.store
    assert store is not None and store.get_conversation("s1") is not None

    _, parts = parts_of(session_id="s1", memory=MemoryConfig(store=db))
    conversation = Conversation()
    parts.session.prepare(conversation, estimate_tokens)
    assert conversation.history() == [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "a1"},
    ]
    assert conversation.summary == "they asked twice"
    conversation.clear()
    parts.session.prepare(conversation, estimate_tokens)
    assert conversation.history() == []

    _, resumed = parts_of(session_id="s1", memory=MemoryConfig(store=db, long_term=False))
    own = Conversation()
    own.start_from([{"role": "user", "content": "mine"}])
    resumed.session.prepare(own, estimate_tokens)
    assert [m["content"] for m in own.history()] == ["mine"] and own.summary is None


def test_session_records_turns_and_closes_only_the_store_it_opened(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _, parts = parts_of(session_id="s1", memory=MemoryConfig(store=db))
    session = parts.session
    recorder = session.recorder()
    assert recorder is not None
    ok = RunResult(run_id="r1", output="four", termination_reason=TerminationReason.COMPLETED)
    bad = RunResult(run_id="r2", output="half", termination_reason=TerminationReason.ERROR)
    session.record("2+2?", ok, False, recorder)
    session.record("again?", bad, True, session.recorder())
    opened = session.store
    assert opened is not None
    stored = [(t.query, t.answer, t.status) for t in opened.load_turns("s1")]
    assert stored == [("2+2?", "four", MessageStatus.NORMAL), ("again?", "", MessageStatus.ERROR)]
    assert session.request_stop("enough") is False and session.poll(CancelToken()) == []
    assert Path(f"{db}-wal").exists()
    session.close()
    assert not Path(f"{db}-wal").exists()
    assert session.store is not opened

    given = SQLiteStore(":memory:")
    _, parts = parts_of(session_id="s1", memory=MemoryConfig(store=given))
    parts.session.save_summary("kept")
    parts.session.close()
    assert given.get_summary("s1") == "kept"


def test_session_wait_and_close_wait_for_background_work(tmp_path: Path) -> None:
    _, parts = parts_of(session_id="s1", memory=MemoryConfig(store=tmp_path / "s.db"))
    done: list[str] = []

    def slow(label: str) -> None:
        time.sleep(0.05)
        done.append(label)

    parts.session.in_background(lambda: slow("waited"))
    parts.session.wait()
    assert done == ["waited"]
    parts.session.in_background(lambda: slow("closed"))
    parts.session.close()
    assert done == ["waited", "closed"]


@pytest.mark.parametrize("arguments", [{}, {"session_id": "s1", "memory": False}])
def test_session_without_memory_does_nothing_and_creates_no_file(
    arguments: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRAISONLIKE_HOME", str(tmp_path))
    _, parts = parts_of(**arguments)
    session = parts.session
    conversation = Conversation()
    session.prepare(conversation, estimate_tokens)
    result = RunResult(run_id="r", output="x", termination_reason=TerminationReason.COMPLETED)
    session.record("q", result, False, session.recorder())
    session.save_summary("s")
    assert session.store is None and session.recorder() is None
    assert conversation.history() == [] and conversation.summary is None
    assert session.request_stop("x") is False and session.request_steer("y") is False
    assert session.poll(CancelToken()) == []
    session.close()
    assert list(tmp_path.iterdir()) == []


# -- Toolset, AgentModels ---------------------------------------------------------------


def test_toolset_is_built_once_and_a_call_list_replaces_it_for_that_call_only() -> None:
    _, parts = parts_of(tools=[add])
    registry = parts.tools.registry
    assert parts.tools.for_call(None) is registry and registry.names == ["add"]
    for_call = parts.tools.for_call([sub])
    assert for_call is not registry and for_call.names == ["sub"]
    assert len(parts.tools.for_call([])) == 0
    assert registry.names == ["add"] and parts.tools.for_call(None) is registry


def test_toolset_close_closes_its_providers() -> None:
    closed: list[bool] = []

    class Provider:
        def as_tools(self) -> list[Any]:
            return [add]

        def close(self) -> None:
            closed.append(True)

    _, parts = parts_of(tools=[Provider()])
    assert parts.tools.registry.names == ["add"]
    parts.tools.close()
    assert closed == [True]


def test_models_are_primary_then_fallbacks_in_order_resolved_at_first_use() -> None:
    primary = LLMConfig(
        model="openai/a", api_base="http://127.0.0.1:9/v1", fallback_models=("openai/b",)
    )
    other = LLMConfig(model="openai/d")
    spec, parts = parts_of(llm=primary, fallback_models=["openai/c", "openai/b", other])
    models = parts.models
    assert models.resolved() is None
    chain = models.for_turn(spec.llm_config, spec.fallback_models)
    assert [m.model for m in chain] == ["openai/a", "openai/b", "openai/c", "openai/d"]
    assert [m.api_base for m in chain] == [primary.api_base] * 3 + [None]
    assert chain[1].fallback_models == () and chain[3] is other
    assert models.resolved() is spec.llm_config
    replaced = spec.replace(llm_config=LLMConfig(model="openai/e"))
    assert models.primary(replaced.llm_config).model == "openai/e"
    models.override = other
    assert models.for_turn(spec.llm_config, spec.fallback_models) == [other]


def test_building_parts_and_choosing_models_imports_no_litellm() -> None:
    script = textwrap.dedent(
        """
        import sys
        from praisonlike.agent.parts import AgentParts
        from praisonlike.agent.spec import AgentSpec
        from praisonlike.models.config import LLMConfig
        spec = AgentSpec.build(instructions="x", llm=LLMConfig(model="openai/a"),
                               fallback_models=["openai/b"])
        parts = AgentParts.build(spec)
        parts.models.for_turn(spec.llm_config, spec.fallback_models)
        print("litellm" in sys.modules)
        """
    )
    ran = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert ran.stdout.strip() == "False"


# -- SystemPrompts, ContextSeams, AgentSkills, AgentObservers -----------------------------


def test_stable_prompt_is_cached_per_spec_and_rebuilt_for_a_replaced_one(tmp_path: Path) -> None:
    rules = tmp_path / "rules.md"
    rules.write_text("Never guess.", encoding="utf-8")
    spec, parts = parts_of(role="Clerk", goal="File things", rules=rules)
    first = parts.prompts.stable(spec, "")
    assert first.index("Your Role: Clerk") < first.index("Your Goal: File things")
    assert "Never guess." in first
    rules.write_text("Always guess.", encoding="utf-8")
    assert parts.prompts.stable(spec, "") is first
    rebuilt = parts.prompts.stable(spec.replace(goal="Sort things"), "")
    assert "Your Goal: Sort things" in rebuilt and "Always guess." in rebuilt
    tools = AgentParts.build(spec).tools.for_call([add]).schemas()
    assert "- add: Add two numbers." in parts.prompts.stable(spec, "", tools=tools)


def test_context_seams_make_one_seam_per_model() -> None:
    from praisonlike import LLMConfig

    spec, parts = parts_of()
    a, b = LLMConfig(model="openai/a"), LLMConfig(model="openai/b")
    seam = parts.contexts.for_model(spec.context_config, a)
    assert parts.contexts.for_model(spec.context_config, a) is seam
    assert parts.contexts.for_model(spec.context_config, b) is not seam
    assert parts.contexts.counter(spec.context_config, a) is seam.counter


def test_skills_are_discovered_once_and_combined_with_load_skill(tmp_path: Path) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "SKILL.md").write_text(
        "---\nname: demo\ndescription: Does demo\n---\nDo the demo for $ARGUMENTS.\n"
    )
    spec, parts = parts_of(skills=tmp_path)
    folders, skills = spec.skill_folders, parts.skills
    found = skills.of(folders)
    assert found.names == ("demo",) and "demo" in skills.catalogue(folders)
    prompt, name, _ = skills.expand(folders, "/demo now", "r1")
    assert (prompt, name) == ("Do the demo for now.", "demo")
    registry = parts.tools.registry
    kept = skills.with_load_skill(folders, registry, keep=True)
    assert kept.names == ["load_skill"]
    assert skills.with_load_skill(folders, registry, keep=True) is kept
    assert skills.with_load_skill(folders, registry, keep=False) is not kept
    assert len(registry) == 0 and skills.of(folders) is found
    assert skills.of(None).names == () and skills.catalogue(None) == ""


def test_observers_get_events_in_order_and_one_that_raises_skips_only_itself(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[tuple[str, Any]] = []

    def broken(event: Any) -> None:
        raise RuntimeError("observer down")

    observers = [lambda e: seen.append(("a", e)), broken, lambda e: seen.append(("b", e))]
    spec, parts = parts_of(on_event=observers)
    assert parts.observers.of(spec) == observers
    parts.observers.notify(spec, "event-1")
    assert seen == [("a", "event-1"), ("b", "event-1")]
    assert "an event observer failed" in caplog.text
    assert parts.observers.of(spec.replace(on_event=())) == observers


# -- mixins touch only their own private state -------------------------------------------


def foreign_private_accesses(source: str, shared: set[str]) -> dict[str, list[str]]:
    """For each HasParts mixin in ``source``: its ``x._name`` accesses that name neither
    a HasParts attribute (``shared``) nor a member the mixin itself declares."""
    found: dict[str, list[str]] = {}
    for cls in ast.parse(source).body:
        if not isinstance(cls, ast.ClassDef) or "HasParts" not in map(ast.unparse, cls.bases):
            continue
        own = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        own |= {ast.unparse(n.target) for n in cls.body if isinstance(n, ast.AnnAssign)}
        found[cls.name] = [
            ast.unparse(node)
            for node in ast.walk(cls)
            if isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and node.attr not in own | shared
        ]
    return found


def test_no_mixin_reads_or_writes_private_state_of_a_part_or_another_mixin() -> None:
    shared = set(HasParts.__annotations__)
    assert shared == {"spec", "usage_tracker", "_conversation", "_parts"}
    leak = "class M(HasParts):\n    def f(self):\n        return self._parts.session._store\n"
    assert foreign_private_accesses(leak, shared) == {"M": ["self._parts.session._store"]}
    found: dict[str, list[str]] = {}
    for path in sorted(Path(praisonlike.agent.__file__).parent.glob("*.py")):
        found.update(foreign_private_accesses(path.read_text(encoding="utf-8"), shared))
    mixins = {c.__name__ for c in Agent.__mro__ if issubclass(c, HasParts)} - {"Agent", "HasParts"}
    assert set(found) == mixins
    assert {name: accesses for name, accesses in found.items() if accesses} == {}
