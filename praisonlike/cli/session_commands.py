"""The interactive session's own commands: ``/help``, ``/clear``, ``/exit`` and ``/quit``.

A line is a session command when, stripped, it is exactly one of them; the
session handles it and nothing reaches the model. A command wins over a skill
of the same name. A line whose first word is neither a command nor a skill but
closest to a command's name (``/exti``) is refused with the command it seems
to mean, so a typo is not sent to the model as a prompt.
"""

from __future__ import annotations

import difflib
import enum

from rich.table import Table
from rich.text import Text

from praisonlike.agent.agent import Agent
from praisonlike.cli.failures import CommandFailed, ExitCode
from praisonlike.cli.output import Output

COMMANDS = {
    "/help": "this list",
    "/clear": "forget the conversation's messages: the model no longer sees earlier turns",
    "/exit": "leave the session (Ctrl-D too)",
    "/quit": "the same as /exit",
}
"""Each session command and what it does, in the order ``/help`` lists them."""


class Handled(enum.Enum):
    """What :func:`run_command` did with a line."""

    LEAVE = "leave"
    DONE = "done"
    NOT_A_COMMAND = "not a command"


def run_command(line: str, agent: Agent, output: Output) -> Handled:
    """Run ``line`` if it is a session command.

    Raises :class:`CommandFailed` (exit code 2) for a line that starts with a
    misspelt command, such as ``/exti``; nothing is run then.
    """
    command = line.strip()
    if command in ("/exit", "/quit"):
        return Handled.LEAVE
    if command == "/help":
        _show_help(agent, output)
        return Handled.DONE
    if command == "/clear":
        agent.clear_history()
        output.info("conversation cleared: the model no longer sees the earlier turns")
        return Handled.DONE
    _refuse_misspelt(line, agent)
    return Handled.NOT_A_COMMAND


def _refuse_misspelt(line: str, agent: Agent) -> None:
    """Refuse ``line`` when its first word is closer to a command than to any skill (a
    near miss of a skill is left to the turn runner, which names the skill)."""
    if not line.startswith("/"):
        return
    first = line.split(maxsplit=1)[0]
    if "/" in first[1:] or first[1:] in agent.skills:
        return
    skills = [f"/{skill.name}" for skill in agent.skills if skill.user_invocable]
    close = difflib.get_close_matches(first, [*COMMANDS, *skills], n=1, cutoff=0.75)
    if close and close[0] in COMMANDS:
        raise CommandFailed(
            f"there is no command {first}: did you mean {close[0]}? (/help lists the "
            "commands; to send the text as a prompt, start it with a space)",
            exit_code=ExitCode.USAGE,
        )


def _show_help(agent: Agent, output: Output) -> None:
    commands = Table.grid(padding=(0, 2))
    for name, summary in COMMANDS.items():
        commands.add_row(Text(name, style="bold"), Text(summary))
    output.out.print(Text("Session commands:"), commands)
    skills = [skill for skill in agent.skills if skill.user_invocable]
    if skills:
        table = Table.grid(padding=(0, 2))
        for skill in skills:
            shadowed = " (hidden by the command)" if f"/{skill.name}" in COMMANDS else ""
            usage = f"/{skill.name} {skill.argument_hint or ''}".rstrip()
            table.add_row(Text(usage, style="bold"), Text(skill.description + shadowed))
        output.out.print(Text("Skills (/name arguments):"), table)
    output.info(
        "Anything else is sent to the model. A line ending with \\ continues on the next; "
        "Ctrl-C cancels a running turn."
    )
