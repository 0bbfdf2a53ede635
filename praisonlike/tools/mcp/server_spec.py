"""Which MCP server to talk to, and how to open a client session to it."""

from __future__ import annotations

import functools
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from praisonlike.errors import ConfigurationError

if TYPE_CHECKING:
    from mcp import Client

    from praisonlike.tools.mcp.stdio import StdioTransport


@dataclass(frozen=True)
class StdioServer:
    """A server started as a subprocess and spoken to over its stdin/stdout.

    The process gets the MCP SDK's minimal environment (``HOME``, ``PATH``,
    ``USER``, ...) plus ``env``, not the whole environment of this process.
    """

    command: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None

    @property
    def label(self) -> str:
        return shlex.join(self.command)


@dataclass(frozen=True)
class HttpServer:
    """A server already running, reached over the streamable HTTP transport."""

    url: str

    @property
    def label(self) -> str:
        return self.url


ServerSpec = StdioServer | HttpServer


def server_spec(
    command: str | Sequence[str] | None,
    *,
    url: str | None,
    env: Mapping[str, str] | None,
    cwd: str | Path | None,
) -> ServerSpec:
    """Check the arguments of ``MCPTools`` and say which server they name.

    A ``command`` string is split like a POSIX shell would (``shlex.split``).

    Raises:
        ConfigurationError: neither or both of ``command`` and ``url``; an empty
            command; a URL that is not ``http(s)://``; ``env``/``cwd`` with a URL.
    """
    if (command is None) == (url is None):
        raise ConfigurationError("MCPTools needs exactly one of a command (stdio) or url= (HTTP)")
    if url is not None:
        if not url.startswith(("http://", "https://")):
            raise ConfigurationError(f"an MCP server URL must be http:// or https://, got {url!r}")
        if env is not None or cwd is not None:
            raise ConfigurationError("env= and cwd= apply to a stdio server, not to url=")
        return HttpServer(url)
    argv = tuple(shlex.split(command)) if isinstance(command, str) else tuple(command or ())
    if not argv or not all(isinstance(part, str) and part for part in argv):
        raise ConfigurationError(f"an MCP server command must be non-empty strings: {command!r}")
    environment = {str(key): str(value) for key, value in (env or {}).items()}
    return StdioServer(argv, environment, None if cwd is None else str(cwd))


@functools.cache
def _null_device() -> TextIO:
    return open(os.devnull, "w")  # noqa: SIM115 -- shared for the life of the process


def _error_log() -> TextIO:
    """Where the server's stderr goes: ours when it is a real file, else the null device."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return _null_device()
    return sys.stderr


def new_client(spec: ServerSpec) -> tuple[Client, StdioTransport | None]:
    """An unopened ``mcp.Client`` for the server (enter it to connect).

    For a stdio server the second item is the transport that runs it, whose
    ``kill()`` ends the server at once; for an HTTP server it is ``None``.

    Raises:
        ConfigurationError: the ``mcp`` package is not installed.
    """
    try:
        from mcp import Client
    except ImportError as exc:
        raise ConfigurationError(
            "MCP tools need the mcp package: pip install 'praisonlike[mcp]'"
        ) from exc
    if isinstance(spec, HttpServer):
        return Client(spec.url, cache=None), None
    from praisonlike.tools.mcp.stdio import StdioTransport

    transport = StdioTransport(spec, _error_log())
    return Client(transport, cache=None), transport
