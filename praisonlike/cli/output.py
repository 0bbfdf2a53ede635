"""Where the CLI writes: rich consoles on stdout and stderr that never show a secret.

Every write goes through a :class:`~praisonlike.logging_setup.Redactor`, so an
API key (one that looks like a key, or the exact one given with ``--api-key``)
cannot reach the terminal, a pipe or a log file, whatever printed it. Text
written in pieces (a streamed answer) must be scrubbed whole first, with
:class:`~praisonlike.redaction.StreamRedactor` and :attr:`Output.secrets`: a
key split across two writes is not recognised here. When a stream is not a
terminal, lines are not wrapped at the console's width.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO, cast

from rich.console import Console

from praisonlike.logging_setup import Redactor


class RedactingWriter:
    """A text stream that forwards to ``target`` with secrets redacted.

    It reports the target's ``isatty()``, ``fileno()`` and ``encoding``, so rich
    still detects a terminal through it.
    """

    def __init__(self, target: TextIO, redactor: Redactor) -> None:
        self._target = target
        self._redact = redactor

    def write(self, text: str) -> int:
        self._target.write(self._redact(text))
        return len(text)

    def flush(self) -> None:
        self._target.flush()

    def isatty(self) -> bool:
        return self._target.isatty()

    def fileno(self) -> int:
        return self._target.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self._target, "encoding", None) or "utf-8"


@dataclass(frozen=True)
class Output:
    """The CLI's two consoles, the redactor behind them and the exact secrets it removes."""

    out: Console
    err: Console
    redact: Redactor
    secrets: tuple[str, ...] = ()

    @classmethod
    def create(
        cls,
        *,
        secrets: Iterable[str] = (),
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
    ) -> Output:
        known = tuple(secrets)
        redactor = Redactor(known)
        out = _console(RedactingWriter(stdout or sys.stdout, redactor))
        err = _console(RedactingWriter(stderr or sys.stderr, redactor))
        return cls(out=out, err=err, redact=redactor, secrets=known)

    def error(self, message: str) -> None:
        """One line on stderr: ``praisonlike: error: <message>`` (whitespace collapsed)."""
        self.err.print(
            f"praisonlike: error: {one_line(message)}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )

    def hint(self, message: str) -> None:
        self.err.print(
            f"praisonlike: hint: {message}", markup=False, highlight=False, soft_wrap=True
        )

    def raw(self, text: str) -> None:
        """``text`` and a newline on stdout, untouched by rich (still redacted)."""
        self.out.file.write(text + "\n")
        self.out.file.flush()

    def info(self, message: str) -> None:
        self.out.print(message, markup=False, highlight=False, soft_wrap=True)


def _console(writer: RedactingWriter) -> Console:
    """A console on ``writer`` that wraps lines only on a terminal."""
    console = Console(file=cast(TextIO, writer))
    console.soft_wrap = not console.is_terminal
    return console


def one_line(text: str, limit: int = 600) -> str:
    """``text`` with every run of whitespace (newlines included) made one space."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
