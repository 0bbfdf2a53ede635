"""The live display of a turn: every event rendered as it happens.

:class:`LiveDisplay` is called with each event of a turn (``display(event)``).
On a terminal it shows a spinner while the model is being waited for, streams
the answer, and prints one styled line per tool call, tool result, retry,
fallback, stream reset, compaction, budget warning and error, then a summary
of the turn (tokens, cost, latency). When the console is not a terminal the
same information comes as plain text lines: no ANSI codes, no spinner.
Free text from events is scrubbed of API keys before it is printed; the
answer is scrubbed as it streams (see :class:`~praisonlike.redaction.StreamRedactor`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.status import Status
from rich.text import Text

from praisonlike._display_text import (
    compaction_text,
    fold,
    format_arguments,
    format_cost,
    shorten,
    summary_parts,
)
from praisonlike.events import (
    TOOL_CALL_FAULT,
    BudgetWarning,
    CompactionEvent,
    ErrorEvent,
    FallbackEvent,
    LLMRequest,
    LLMResponse,
    ReflectionEvent,
    RetryEvent,
    RunFinished,
    RunStarted,
    SkillInvoked,
    SteeringEvent,
    StreamReset,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
)
from praisonlike.react.parse import text_around_calls
from praisonlike.redaction import StreamRedactor, redact_secrets
from praisonlike.result import TerminationReason

# Line prefixes on a terminal, and in plain text.
_GLYPHS = {
    True: {
        "call": "→ ",
        "result": "← ",
        "error": "✗ ",
        "retry": "↻ ",
        "fallback": "⇄ ",
        "ok": "✓ ",
        "sep": " · ",
    },
    False: {
        "call": "-> ",
        "result": "<- ",
        "error": "! ",
        "retry": "",
        "fallback": "",
        "ok": "",
        "sep": " | ",
    },
}


class LiveDisplay:
    """Renders a turn's events on a rich console (stdout by default).

    Call it with every event of a turn, in order; it may be reused for the
    next turn (a ``run_started`` event resets it). Calls are serialised by a
    lock, so events may come from any thread. Events it does not know are
    ignored. :meth:`close` stops a spinner left running by an aborted turn.

    An answer that is not streamed is shown once the next event says whether
    the model wrote tool calls in it as text: the text of those calls is left
    out (the calls are shown as ``-> name(arguments)`` lines), the rest of the
    answer is shown.

    The error that ends a turn is shown once, as its own line; the summary
    line after it gives only how the turn ended. With ``show_errors=False``
    that line is left out too, for a caller that reports the raised error
    itself (the ``praisonlike`` command does); recovered errors are still shown.

    The answer's text is printed without API keys and without the exact
    ``secrets`` given, exactly as if it had been scrubbed whole, even when a key
    is split across streamed chunks: a tail that could still be the start of
    one (and the word being written) is held back until the next chunk or the
    end of the text.
    """

    def __init__(
        self,
        console: Console | None = None,
        *,
        show_errors: bool = True,
        secrets: Iterable[str] = (),
    ) -> None:
        self.console = console if console is not None else Console()
        self._show_errors = show_errors
        self._fancy = self.console.is_terminal
        self._glyph = _GLYPHS[self._fancy]
        self._lock = threading.RLock()
        self._status: Status | None = None
        self._mid_line = False
        self._streamed_round = False
        self._held: LLMResponse | None = None
        self._held_calls: list[ToolCallEvent] = []
        self._answer = StreamRedactor(secrets)

    def __call__(self, event: Any) -> None:
        with self._lock:
            if not isinstance(event, LLMRequest):
                self._stop_spinner()
            if self._held is not None:
                if self._calls_of_held(event):
                    self._held_calls.append(event)
                    return
                if isinstance(event, ErrorEvent) and event.error_type == TOOL_CALL_FAULT:
                    self._held, self._held_calls = None, []  # a call not run, not the answer
                self._show_held()
            self._render(event)

    def close(self) -> None:
        """Stop the spinner and end an unfinished line of streamed text."""
        with self._lock:
            self._stop_spinner()
            self._show_held()
            self._end_text()

    def __enter__(self) -> LiveDisplay:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- dispatch -------------------------------------------------------------------

    def _render(self, event: Any) -> None:
        if isinstance(event, RunStarted):
            self._end_text()
            self._streamed_round = False
        elif isinstance(event, LLMRequest):
            self._on_request(event)
        elif isinstance(event, TextDelta):
            self._write_text(event.text)
            self._streamed_round = True
        elif isinstance(event, LLMResponse):
            self._on_response(event)
        elif isinstance(event, ToolCallEvent):
            self._on_tool_call(event)
        elif isinstance(event, ToolResultEvent):
            self._on_tool_result(event)
        elif isinstance(event, RunFinished):
            self._on_finished(event)
        else:
            self._on_notice(event)

    def _on_notice(self, event: Any) -> None:
        g = self._glyph
        if isinstance(event, RetryEvent):
            detail = f": {self._clean(event.message)}" if event.message else ""
            self._line(
                f"{g['retry']}retry {event.attempt} in {event.wait:.2f}s after "
                f"{event.error_kind} on {event.model}{detail}",
                "yellow",
            )
        elif isinstance(event, FallbackEvent):
            self._line(
                f"{g['fallback']}falling back from {event.from_model} to {event.to_model}: "
                f"{self._clean(event.reason)}",
                "yellow",
            )
        elif isinstance(event, StreamReset):
            self._line(
                f"stream reset ({event.reason}): the text above is void, the round restarts",
                "yellow",
            )
        elif isinstance(event, CompactionEvent):
            self._line(compaction_text(event), "red" if event.failed else "magenta")
        elif isinstance(event, BudgetWarning):
            self._line(
                f"budget warning: {format_cost(event.spent)} of {format_cost(event.limit)} "
                f"spent: {self._clean(event.message)}",
                "bold yellow",
            )
        elif isinstance(event, ErrorEvent) and (self._show_errors or not event.fatal):
            label = "error" if event.fatal else "recovered from"
            self._line(
                f"{g['error']}{label} {event.error_type}: {self._clean(event.message)}",
                "bold red" if event.fatal else "yellow",
            )
        elif isinstance(event, SteeringEvent):
            self._line(f"steering: {self._clean(event.text)}", "blue")
        elif isinstance(event, SkillInvoked):
            self._line(f"skill /{event.skill} {self._clean(event.arguments)}".rstrip(), "blue")
        elif isinstance(event, ReflectionEvent):
            verdict = "satisfactory" if event.satisfactory else "not satisfactory"
            self._line(
                f"reflection {event.round} ({verdict}): {self._clean(event.reflection)}", "blue"
            )

    def _on_request(self, event: LLMRequest) -> None:
        self._streamed_round = False
        if not self._fancy or event.purpose != "answer":
            return
        self._end_text()
        label = f"waiting for {event.model}"
        if event.iteration > 1:
            label += f" (round {event.iteration})"
        if self._status is None:
            self._status = self.console.status(label, spinner="dots")
            self._status.start()
        else:
            self._status.update(label)

    def _on_response(self, event: LLMResponse) -> None:
        if event.purpose == "answer" and not self._streamed_round and event.content:
            self._held = event
        self._end_text()

    def _calls_of_held(self, event: Any) -> bool:
        """Whether ``event`` is a tool call read from the held answer's text."""
        held = self._held
        return (
            held is not None
            and held.tool_call_count == 0
            and isinstance(event, ToolCallEvent)
            and event.iteration == held.iteration
        )

    def _show_held(self) -> None:
        held, calls = self._held, self._held_calls
        self._held, self._held_calls = None, []
        if held is None:
            return
        text = held.content
        if calls:
            text = text_around_calls(text, {call.name for call in calls})
        if text.strip():
            self._write_text(text)
            self._end_text()
        for call in calls:
            self._on_tool_call(call)

    def _on_tool_call(self, event: ToolCallEvent) -> None:
        arguments = format_arguments(event.arguments)
        self._line(f"{self._glyph['call']}{event.name}({arguments})", "cyan")

    def _on_tool_result(self, event: ToolResultEvent) -> None:
        g = self._glyph
        if event.is_error:
            head = f"{g['error']}{event.name} failed"
        else:
            head = f"{g['result']}{event.name}"
        lines = fold(redact_secrets(event.result))
        style = "red" if event.is_error else "green"
        self._line(f"{head} ({event.latency:.2f}s): {lines[0]}", style)
        for line in lines[1:]:
            self._line(f"    {line}", "dim")

    def _on_finished(self, event: RunFinished) -> None:
        self._end_text()
        result = event.result
        ok = event.termination_reason is TerminationReason.COMPLETED
        mark = self._glyph["ok"] if ok else self._glyph["error"]
        if result is None:
            self._line(f"{mark}{event.termination_reason.value}", "green" if ok else "red")
            return
        self._line(
            f"{mark}{self._glyph['sep'].join(summary_parts(result))}", "dim" if ok else "red"
        )

    # -- output ---------------------------------------------------------------------

    def _clean(self, text: str) -> str:
        return shorten(redact_secrets(text), 500)

    def _write_text(self, text: str) -> None:
        self._print_text(self._answer.feed(text))

    def _print_text(self, text: str) -> None:
        if not text:
            return
        self.console.print(text, end="", markup=False, highlight=False, soft_wrap=True)
        self._mid_line = not text.endswith("\n")

    def _end_text(self) -> None:
        self._print_text(self._answer.flush())
        if self._mid_line:
            self.console.print(soft_wrap=True)
            self._mid_line = False

    def _line(self, text: str, style: str) -> None:
        self._end_text()
        self.console.print(Text(text, style=style if self._fancy else ""), soft_wrap=True)

    def _stop_spinner(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


__all__ = ["LiveDisplay", "fold", "format_arguments", "format_cost", "shorten"]
