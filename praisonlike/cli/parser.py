"""The command line: ``praisonlike chat | models info | skills list | sessions list/show/delete |
serve | local status/stop``; ``--debug`` is accepted before or after any of them, and
``sessions``, ``skills`` and ``local`` alone list (``local``: show the status)."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from praisonlike import __version__

API_BASE_ENV = "PRAISONLIKE_API_BASE"
API_KEY_ENV = "PRAISONLIKE_API_KEY"
DEFAULT_INSTRUCTIONS = "You are a helpful assistant."


DEBUG_HELP = "log at DEBUG level to stderr (secrets redacted) and show tracebacks"


def _debug_flag(parser: argparse.ArgumentParser, *, top_level: bool) -> None:
    # Accepted before and after the subcommand; the subcommand's copy must not
    # overwrite a --debug given before it, hence SUPPRESS as its default.
    parser.add_argument(
        "--debug",
        action="store_true",
        default=False if top_level else argparse.SUPPRESS,
        help=DEBUG_HELP,
    )


def subcommand_parsers(
    parser: argparse.ArgumentParser,
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every command and subcommand parser under ``parser`` with its path
    (``("local", "status")``), depth first; an alias's parser is listed once."""
    found: list[tuple[tuple[str, ...], argparse.ArgumentParser]] = []
    seen: set[int] = set()

    def walk(current: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        for action in current._actions:
            if not isinstance(action, argparse._SubParsersAction):
                continue
            for name, sub in action.choices.items():
                if id(sub) in seen:
                    continue
                seen.add(id(sub))
                found.append(((*path, name), sub))
                walk(sub, (*path, name))

    walk(parser, ())
    return found


def _debug_everywhere(parser: argparse.ArgumentParser) -> None:
    """``--debug`` on every command and subcommand, so it is accepted after any of them."""
    for _, sub in subcommand_parsers(parser):
        if "--debug" not in sub._option_string_actions:
            _debug_flag(sub, top_level=False)


DEFAULT_ACTIONS = {"sessions": "list", "skills": "list", "local": "status"}
"""The action a command runs when the command line names none."""


def with_default_action(argv: Sequence[str]) -> list[str]:
    """``argv`` with the command's default action (:data:`DEFAULT_ACTIONS`) put in
    when it names none: ``sessions`` is ``sessions list``, ``skills --dir x`` is
    ``skills list --dir x``, ``local`` is ``local status``; ``sessions -h`` stays
    the command's help."""
    words = list(argv)
    at = next((i for i, word in enumerate(words) if not word.startswith("-")), None)
    if at is None or words[at] not in DEFAULT_ACTIONS:
        return words
    following = words[at + 1 : at + 2]
    if following and (not following[0].startswith("-") or following[0] in ("-h", "--help")):
        return words
    return [*words[: at + 1], DEFAULT_ACTIONS[words[at]], *words[at + 1 :]]


class CommandParser(argparse.ArgumentParser):
    """argparse's parser, more helpful when the command line is wrong: no command (or
    no action of a command that needs one, ``models``) prints the help that lists
    them with what they do, and a misspelt option is answered with the close one
    (``--mdoel`` -> ``did you mean --model?``)."""

    def error(self, message: str) -> NoReturn:
        if message.endswith(("required: COMMAND", "required: ACTION")):
            self.print_help(sys.stderr)
            self.exit(2, f"{self.prog}: error: {message}\n")
        prefix = "unrecognized arguments: "
        if message.startswith(prefix):
            message += _close_options(self, message[len(prefix) :].split())
        super().error(message)


def _close_options(parser: argparse.ArgumentParser, given: list[str]) -> str:
    known = {
        option
        for _, sub in [((), parser), *subcommand_parsers(parser)]
        for option in sub._option_string_actions
        if option.startswith("--")
    }
    hints = [
        f"{word.split('=', 1)[0]} -> {near[0]}"
        for word in given
        if word.startswith("--")
        for near in [difflib.get_close_matches(word.split("=", 1)[0], sorted(known), n=1)]
        if near
    ]
    return f" (did you mean: {', '.join(hints)}?)" if hints else ""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``praisonlike`` command."""
    parser: argparse.ArgumentParser = CommandParser(
        prog="praisonlike",
        description="Chat with a praisonlike agent and inspect models, skills and sessions.",
    )
    parser.add_argument("--version", action="version", version=f"praisonlike {__version__}")
    _debug_flag(parser, top_level=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_chat(commands)
    _add_models(commands)
    _add_skills(commands)
    _add_sessions(commands)
    from praisonlike.cli.serve_command import add_serve

    add_serve(commands)
    from praisonlike.cli.local_command import add_local

    add_local(commands)
    _debug_everywhere(parser)
    return parser


def _add_chat(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chat = commands.add_parser(
        "chat",
        help="run one turn, or an interactive session when no prompt is given",
        description=(
            "Run one turn with PROMPT, or start an interactive session without it. "
            "In a session: end a line with \\ to continue it, /help lists the commands "
            "and skills, /clear forgets the conversation, /exit or Ctrl-D leaves, "
            "Ctrl-C cancels the running turn, /skill args runs a skill."
        ),
    )
    chat.add_argument("prompt", nargs="?", help="the prompt; omit it for an interactive session")
    chat.add_argument("--model", "-m", help="a LiteLLM model string (default: from environment)")
    chat.add_argument(
        "--api-base",
        default=os.environ.get(API_BASE_ENV) or None,
        help=f"the provider's base URL (env {API_BASE_ENV})",
    )
    chat.add_argument(
        "--api-key",
        default=os.environ.get(API_KEY_ENV) or None,
        help=f"the provider's API key (env {API_KEY_ENV}; else the provider's own variable)",
    )
    chat.add_argument(
        "--tool",
        action="append",
        default=[],
        metavar="MODULE:FUNCTION",
        help="offer this function as a tool (repeatable), e.g. --tool mytools:search "
        "or --tool tools/mytools.py:search",
    )
    chat.add_argument(
        "--instructions", default=DEFAULT_INSTRUCTIONS, help="the agent's instructions"
    )
    chat.add_argument(
        "--context-window",
        type=_tokens("a context window"),
        metavar="TOKENS",
        help="the model's context window, for a model LiteLLM's map does not know "
        "(default: the map's, else 8192)",
    )
    chat.add_argument(
        "--max-tokens",
        type=_tokens("an output cap"),
        metavar="TOKENS",
        help="cap each answer at this many tokens (default: the provider's; 512 on local models)",
    )
    chat.add_argument(
        "--temperature",
        type=_temperature,
        metavar="T",
        help="sampling temperature, 0 for the most likely words (default: the provider's; "
        "0 on local models)",
    )
    chat.add_argument("--session", metavar="ID", help="keep the conversation in session ID")
    chat.add_argument(
        "--store", metavar="PATH", help="session database (default ~/.praisonlike/sessions.db)"
    )
    chat.add_argument(
        "--skills-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="skill folder (repeatable; default ./.praisonlike/skills and ~/.praisonlike/skills)",
    )
    chat.add_argument(
        "--stream",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="stream the answer as it is written (default: on)",
    )
    chat.add_argument(
        "--json", action="store_true", help="print the turn's RunResult as JSON on stdout"
    )


def _tokens(what: str) -> Callable[[str], int]:
    """An argparse type for a positive number of tokens, whose error names ``what``
    (argparse turns the error into exit code 2)."""

    def parse(text: str) -> int:
        try:
            tokens = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of tokens: {text!r}") from None
        if tokens <= 0:
            raise argparse.ArgumentTypeError(f"{tokens} is not {what}: give a positive int")
        return tokens

    return parse


def _temperature(text: str) -> float:
    """``--temperature``: a number >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a temperature: give a number >= 0")
    return value


def _add_models(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    models = commands.add_parser("models", help="what LiteLLM's local model map knows")
    actions = models.add_subparsers(dest="action", metavar="ACTION", required=True)
    info = actions.add_parser("info", help="context window, prices and features of a model")
    info.add_argument("model", help="a LiteLLM model string, e.g. gpt-4o-mini")


def _add_skills(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    skills = commands.add_parser("skills", help="the skills the agent can use")
    actions = skills.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="list the discovered skills")
    listing.add_argument(
        "--dir",
        action="append",
        default=[],
        dest="dirs",
        metavar="DIR",
        help="skill folder (repeatable; default ./.praisonlike/skills and ~/.praisonlike/skills)",
    )


def _add_sessions(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sessions = commands.add_parser("sessions", help="stored conversations")
    actions = sessions.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="list the stored conversations")
    listing.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    show = actions.add_parser("show", help="a conversation's turns and their steps")
    show.add_argument("session_id", metavar="ID")
    delete = actions.add_parser(
        "delete", help="delete conversations with their turns, steps and summary"
    )
    delete.add_argument("session_ids", metavar="ID", nargs="+")
    for sub in (listing, show, delete):
        sub.add_argument(
            "--store", metavar="PATH", help="session database (default ~/.praisonlike/sessions.db)"
        )
