"""``praisonlike sessions list | show ID | delete ID...``: conversations kept in a SQLite
session store.

A store file that does not exist is reported, never created. ``delete`` checks
every ID before it deletes any: one unknown ID deletes nothing.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.table import Table
from rich.text import Text

from praisonlike.cli.failures import CommandFailed, ExitCode
from praisonlike.cli.output import Output
from praisonlike.display import format_cost, shorten
from praisonlike.memory import SQLiteStore, StepRecord, TurnRecord

CELL_CHARS = 80


def run_sessions(args: argparse.Namespace, output: Output) -> ExitCode:
    store = SQLiteStore(args.store)
    if store.path is not None and not store.path.exists():
        return _no_store(args, output, store.path)
    with store:
        if args.action == "list":
            return _list(store, output, limit=args.limit)
        if args.action == "delete":
            return _delete(store, output, args.session_ids)
        return _show(store, output, args.session_id)


def _no_store(args: argparse.Namespace, output: Output, path: Path) -> ExitCode:
    if args.action != "list":
        ids = [args.session_id] if args.action == "show" else args.session_ids
        raise CommandFailed(f"no session {ids[0]!r}: there is no session store at {path}")
    output.info(f"no sessions: there is no session store at {path}")
    return ExitCode.OK


def _list(store: SQLiteStore, output: Output, *, limit: int) -> ExitCode:
    conversations = store.list_conversations(limit=limit)
    if not conversations:
        output.info(f"no sessions in {store.path or 'the in-memory store'}")
        return ExitCode.OK
    table = Table(title=f"Sessions in {store.path}")
    for column in ("Session", "Agent", "Turns", "Created", "Updated", "Summary"):
        table.add_column(column, no_wrap=column == "Session")
    for conversation in conversations:
        turns = store.load_turns(conversation.id, include_steps=False)
        table.add_row(
            Text(conversation.id, style="bold cyan"),
            Text(conversation.agent_name or "-"),
            str(len(turns)),
            _when(conversation.created_at),
            _when(conversation.updated_at),
            _cell(conversation.summary),
        )
    output.out.print(table)
    return ExitCode.OK


def _show(store: SQLiteStore, output: Output, session_id: str) -> ExitCode:
    conversation = store.get_conversation(session_id)
    if conversation is None:
        raise CommandFailed(f"no session {session_id!r} in {store.path}")
    turns = store.load_turns(session_id)
    output.out.print(Text(f"Session {session_id}", style="bold"))
    if conversation.summary:
        output.out.print(Text(f"Summary: {conversation.summary}"))
    output.out.print(turns_table(turns))
    for number, turn in enumerate(turns, start=1):
        if turn.steps:
            output.out.print(steps_table(number, turn.steps))
    return ExitCode.OK


def _delete(store: SQLiteStore, output: Output, session_ids: list[str]) -> ExitCode:
    session_ids = list(dict.fromkeys(session_ids))
    unknown = [i for i in session_ids if store.get_conversation(i) is None]
    if unknown:
        names = ", ".join(repr(i) for i in unknown)
        raise CommandFailed(
            f"no session {names} in {store.path}: nothing deleted "
            "(`praisonlike sessions list` shows the stored ones)"
        )
    for session_id in session_ids:
        store.delete_conversation(session_id)
        output.info(f"deleted session {session_id!r}")
    return ExitCode.OK


def turns_table(turns: list[TurnRecord]) -> Table:
    """One row per turn: query, answer, status, tokens, cost, latency, model."""
    table = Table(title=f"{len(turns)} turn{'s' if len(turns) != 1 else ''}")
    for column in ("#", "Query", "Answer", "Status", "Tokens", "Cost", "Latency", "Model"):
        table.add_column(column)
    for number, turn in enumerate(turns, start=1):
        table.add_row(
            str(number),
            _cell(turn.query),
            _cell(turn.answer),
            Text(turn.status.value, style="green" if turn.status.value == "normal" else "red"),
            f"{turn.prompt_tokens} in / {turn.completion_tokens} out",
            format_cost(turn.cost),
            _seconds(turn.latency),
            Text(turn.model or "-"),
        )
    return table


def steps_table(number: int, steps: list[StepRecord]) -> Table:
    """One row per step of turn ``number``: event type, tool, what happened, figures."""
    table = Table(title=f"Turn {number} steps")
    for column in ("Step", "Event", "Tool", "Detail", "Tokens", "Cost", "Latency"):
        table.add_column(column)
    for step in steps:
        tokens = step.prompt_tokens + step.completion_tokens
        table.add_row(
            str(step.position),
            Text(step.event_type),
            Text(step.tool or "-"),
            _cell(_detail(step)),
            str(tokens) if tokens else "-",
            format_cost(step.cost) if step.cost is not None else "-",
            _seconds(step.latency),
        )
    return table


def _detail(step: StepRecord) -> str | None:
    if step.tool_input is not None and step.event_type == "tool_call":
        return json.dumps(step.tool_input, ensure_ascii=False)
    return (
        step.observation
        or step.thought
        or (
            json.dumps(step.tool_input, ensure_ascii=False) if step.tool_input is not None else None
        )
    )


def _cell(text: str | None) -> Text:
    return Text(shorten(text, CELL_CHARS) if text else "-")


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}s"
