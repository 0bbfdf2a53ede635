"""``praisonlike skills list [--dir D ...]``: the skills an agent would find."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table
from rich.text import Text

from praisonlike.cli.failures import CommandFailed, ExitCode
from praisonlike.cli.output import Output
from praisonlike.skills import SkillSet


def run_skills(args: argparse.Namespace, output: Output) -> ExitCode:
    """List the skills of ``--dir`` folders (the default folders without one).

    A malformed skill raises its :class:`~praisonlike.errors.SkillError` (exit code 1);
    a ``--dir`` that is not a folder, :class:`CommandFailed` (exit code 2).
    """
    missing = [d for d in args.dirs if not Path(d).expanduser().is_dir()]
    if missing:
        raise CommandFailed(f"--dir {', '.join(missing)}: no such folder", exit_code=ExitCode.USAGE)
    folders = [Path(d).expanduser() for d in args.dirs] or SkillSet.default_folders()
    skills = SkillSet.discover(folders)
    if not len(skills):
        output.info("no skills found in " + ", ".join(str(f) for f in folders))
        return ExitCode.OK
    table = Table(title=f"{len(skills)} skill{'s' if len(skills) != 1 else ''}")
    table.add_column("Name", style="bold cyan", no_wrap=True)
    table.add_column("Description")
    table.add_column("User-invocable")
    table.add_column("Model-invocable")
    for skill in skills:
        table.add_row(
            Text(skill.name),
            Text(skill.description),
            "yes" if skill.user_invocable else "no",
            "yes" if skill.model_invocable else "no",
        )
    output.out.print(table)
    return ExitCode.OK
