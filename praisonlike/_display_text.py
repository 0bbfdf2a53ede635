"""The text of the live display's lines: costs, tool arguments, folded results,
compaction and the turn's summary (:mod:`praisonlike.display` prints them)."""

from __future__ import annotations

import json
from typing import Any

from praisonlike.events import CompactionEvent
from praisonlike.models.usage import Usage
from praisonlike.redaction import redact_secrets
from praisonlike.result import RunResult

MAX_RESULT_LINES = 4
MAX_LINE_CHARS = 200
MAX_ARGUMENT_CHARS = 200


def format_cost(cost: float | None, *, complete: bool = True) -> str:
    """``$0.000123`` style; ``unknown`` for ``None``; ``>= $x`` when partly unknown."""
    if cost is None:
        return "unknown"
    text = f"${cost:.2f}" if cost >= 0.1 else f"${cost:.6f}".rstrip("0").rstrip(".")
    return text if complete else f">= {text} (partly unknown)"


def format_arguments(arguments: dict[str, Any] | str, limit: int = MAX_ARGUMENT_CHARS) -> str:
    """``key=value, ...`` with JSON values (a raw string stays as sent), cut at ``limit``."""
    if isinstance(arguments, str):
        text = arguments
    else:
        text = ", ".join(
            f"{key}={json.dumps(value, ensure_ascii=False, default=str)}"
            for key, value in arguments.items()
        )
    return shorten(text, limit)


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"


def fold(
    text: str, max_lines: int = MAX_RESULT_LINES, line_chars: int = MAX_LINE_CHARS
) -> list[str]:
    """The first ``max_lines`` lines of ``text`` (each cut to ``line_chars``), then a line
    counting the lines left out."""
    lines = text.strip("\n").splitlines() or [""]
    shown = [
        line if len(line) <= line_chars else line[: line_chars - 1] + "…"
        for line in lines[:max_lines]
    ]
    hidden = len(lines) - len(shown)
    if hidden:
        shown.append(f"… {hidden} more line{'s' if hidden != 1 else ''}")
    return shown


def compaction_text(event: CompactionEvent) -> str:
    how = event.route if event.strategy is None else f"{event.route}, {event.strategy}"
    if event.failed:
        return f"context compaction failed ({how}): {redact_secrets(event.failed)}"
    text = (
        f"context compacted ({how}): {event.tokens_before} -> {event.tokens_after} tokens, "
        f"{event.messages_dropped} message{'s' if event.messages_dropped != 1 else ''} dropped"
    )
    if event.tool_outputs_truncated:
        text += f", {event.tool_outputs_truncated} tool output(s) truncated"
    return text


def tokens_text(usage: Usage) -> str:
    """``98 tokens (91 in, 7 out)``; ``~98 tokens (91 in, 7 out, estimated)`` for estimates."""
    if usage.estimated:
        return (
            f"~{usage.total_tokens} tokens ({usage.prompt_tokens} in, "
            f"{usage.completion_tokens} out, estimated)"
        )
    return f"{usage.total_tokens} tokens ({usage.prompt_tokens} in, {usage.completion_tokens} out)"


def summary_parts(result: RunResult) -> list[str]:
    usage = result.usage
    if usage.requests == 0 and not result.tool_calls:
        return [result.termination_reason.value, "no model call answered", f"{result.latency:.2f}s"]
    rounds = result.iterations
    parts = [result.termination_reason.value, f"{rounds} round{'s' if rounds != 1 else ''}"]
    if result.tool_calls:
        count = len(result.tool_calls)
        parts.append(f"{count} tool call{'s' if count != 1 else ''}")
    parts += [
        tokens_text(usage),
        f"cost {format_cost(usage.cost, complete=usage.cost_complete)}",
        f"{result.latency:.2f}s",
    ]
    return parts
