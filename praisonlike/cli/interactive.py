"""The interactive session of ``praisonlike chat`` (no prompt given).

A prompt is one line; a line ending with ``\\`` continues on the next one.
``/exit`` (or ``/quit``) or Ctrl-D leaves, ``/help`` lists the commands and
skills, ``/clear`` forgets the conversation (:mod:`praisonlike.cli.session_commands`).
Ctrl-C at the prompt discards what was typed; Ctrl-C while a turn runs cancels
that turn and the session goes on. Any other ``/name args`` is sent as it is:
the agent runs skills itself. After every turn
the session's running cost is shown (``unknown`` when no call had a price).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from praisonlike.agent.agent import Agent
from praisonlike.cli.failures import CommandFailed, ExitCode, report
from praisonlike.cli.output import Output
from praisonlike.cli.session_commands import Handled, run_command
from praisonlike.cli.turn_runner import TurnRunner, cut_short_hint
from praisonlike.display import LiveDisplay, format_cost
from praisonlike.errors import RunCancelled, SkillError

PROMPT = "you> "
CONTINUATION = "...> "


def read_prompt(read_line: Callable[[str], str] = input) -> str:
    """One prompt, joining lines that end with a backslash (the backslash removed).

    Raises ``EOFError`` (Ctrl-D) and ``KeyboardInterrupt`` (Ctrl-C) from ``read_line``.
    """
    lines: list[str] = []
    label = PROMPT
    while True:
        line = read_line(label)
        if not line.endswith("\\"):
            lines.append(line)
            return "\n".join(lines)
        lines.append(line[:-1])
        label = CONTINUATION


def run_session(agent: Agent, output: Output, *, stream: bool, debug: bool) -> ExitCode:
    """Read prompts until ``/exit`` or end of input, running one turn for each (or
    the session command a line is)."""
    if sys.stdin.isatty():
        _enable_line_editing()
    runner = TurnRunner(
        agent,
        LiveDisplay(output.out, show_errors=False, secrets=output.secrets),
        on_cancel=lambda: output.info("cancelling the turn (Ctrl-C again to abandon it)"),
    )
    output.info(
        f"praisonlike chat with {agent.llm}. /help lists the commands, /exit or Ctrl-D "
        "leaves, Ctrl-C cancels a running turn, a line ending with \\ continues on the next."
    )
    try:
        while True:
            try:
                prompt = read_prompt()
            except EOFError:
                output.info("")
                break
            except KeyboardInterrupt:
                output.info("")
                continue
            if not prompt.strip():
                continue
            handled = _session_command(prompt, agent, output, debug=debug)
            if handled is Handled.LEAVE:
                break
            if handled is not Handled.NOT_A_COMMAND:
                continue
            if _run_turn(runner, prompt, output, stream=stream, debug=debug):
                output.info(f"session cost: {format_cost(agent.total_cost)}")
    finally:
        runner.close()
    return ExitCode.OK


def _session_command(prompt: str, agent: Agent, output: Output, *, debug: bool) -> Handled | None:
    """What the session did with ``prompt`` as a command; None when it refused it or
    the command failed (a malformed skill file under ``/help``): reported, the
    session goes on."""
    try:
        return run_command(prompt, agent, output)
    except Exception as exc:
        report(exc, output, debug=debug)
        return None


def _run_turn(
    runner: TurnRunner, prompt: str, output: Output, *, stream: bool, debug: bool
) -> bool:
    """Run the prompt's turn, reporting its failure; False when no turn began (a
    prompt refused before it: a misspelt ``/skill``, or a skill that cannot run)."""
    try:
        hint = cut_short_hint(runner.run(prompt, stream=stream))
        if hint:
            output.hint(hint)
    except (RunCancelled, KeyboardInterrupt):
        output.info("turn cancelled")
    except Exception as exc:
        report(exc, output, debug=debug)
        return not isinstance(exc, (CommandFailed, SkillError))
    return True


def _enable_line_editing() -> None:
    try:
        import readline  # noqa: F401  (importing it gives input() editing and history)
    except ImportError:
        return
