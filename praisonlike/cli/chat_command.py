"""``praisonlike chat``: one turn with a prompt, an interactive session without one."""

from __future__ import annotations

import argparse

from praisonlike.cli.agent_setup import build_agent
from praisonlike.cli.failures import CommandFailed, ExitCode
from praisonlike.cli.interactive import run_session
from praisonlike.cli.output import Output
from praisonlike.cli.turn_runner import TurnRunner, cut_short_hint
from praisonlike.display import LiveDisplay
from praisonlike.errors import PraisonlikeError


def run_chat(args: argparse.Namespace, output: Output) -> ExitCode:
    """Run the command; a failed turn raises its typed error (the caller reports it).

    With ``--json`` stdout carries only the turn's RunResult as JSON (also for a
    failed turn, before the error is raised) and the live display goes to stderr.
    """
    if args.json and args.prompt is None:
        raise CommandFailed("--json needs a prompt", exit_code=ExitCode.USAGE)
    agent = build_agent(args)
    try:
        if args.prompt is None:
            return run_session(agent, output, stream=args.stream, debug=args.debug)
        display = LiveDisplay(
            output.err if args.json else output.out, show_errors=False, secrets=output.secrets
        )
        runner = TurnRunner(agent, display)
        try:
            result = runner.run(args.prompt, stream=args.stream)
        except PraisonlikeError:
            if args.json and agent.last_result is not None:
                output.raw(agent.last_result.model_dump_json())
            raise
        finally:
            runner.close()
        if args.json:
            output.raw(result.model_dump_json())
        hint = cut_short_hint(result)
        if hint:
            output.hint(hint)
        return ExitCode.OK
    finally:
        agent.close()
