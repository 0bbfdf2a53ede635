""":class:`MCPTools`: the tools of one MCP server, offered to an agent."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import re
import threading
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from praisonlike.errors import ConfigurationError, ToolError
from praisonlike.tools.async_bridge import submit_coroutine
from praisonlike.tools.callables import check_timeout
from praisonlike.tools.mcp.connection import Connection, MCPServerError, describe
from praisonlike.tools.mcp.content import result_text
from praisonlike.tools.mcp.server_spec import server_spec
from praisonlike.tools.raw_tool import RawTool

if TYPE_CHECKING:
    from mcp_types import Tool

T = TypeVar("T")

_CLOSE_WAIT = 15.0
_ABORT_MARGIN = 10.0
_INVALID_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")

_open_connections: set[Connection] = set()


def _model_name(remote_name: str) -> str:
    """The server's tool name made acceptable to model providers (``[A-Za-z0-9_-]{1,64}``)."""
    return _INVALID_NAME_CHARS.sub("_", remote_name)[:64] or "tool"


def _is_refusal(exc: BaseException) -> bool:
    """True when the server answered with an error, so the connection itself is fine."""
    from mcp import MCPError
    from mcp_types import CONNECTION_CLOSED
    from pydantic import ValidationError

    if isinstance(exc, MCPError):
        return exc.code != CONNECTION_CLOSED
    return isinstance(exc, ValidationError)


class MCPTools:
    """The tools of one MCP server, for ``Agent(tools=[MCPTools(...)])``.

    ``MCPTools("python server.py")`` (or ``command=[...]``, with ``env`` and
    ``cwd``) runs a stdio server as a subprocess; ``MCPTools(url=...)`` talks
    to a running server over streamable HTTP. Nothing is started when the
    object is built: the first :meth:`as_tools` (the agent calls it when a
    turn first needs its tools) starts the server and lists its tools, and one
    session then serves every call until :meth:`close`.

    Each tool is a :class:`~praisonlike.tools.raw_tool.RawTool` with the
    server's own input schema, so the agent's executor validates, times out,
    asks approval and reports events as for any tool. A name the providers
    would refuse is offered with each character outside ``[A-Za-z0-9_-]``
    replaced by ``_`` (and the server still called by its own name).

    A call's result is text: the text blocks of the result, placeholders such
    as ``"[image: image/png, 2048 bytes]"`` for binary content, or the
    structured content as JSON when there are no blocks. A result the server
    marks as an error, or an error answer, raises
    :class:`~praisonlike.errors.ToolError` from the tool (the model reads it
    as an error tool message). A broken connection (the server died) raises
    :class:`MCPServerError`, and the next call starts the server again.

    Args:
        command: the server command line, split with ``shlex.split`` when a string.
        url: the server's streamable-HTTP endpoint, e.g. ``http://127.0.0.1:8000/mcp``.
        env: variables added to the minimal environment a stdio server gets
            (``HOME``, ``PATH``, ...; the rest of this process's environment is
            not passed on).
        cwd: the working directory of a stdio server.
        requires_approval: ``True`` for every tool, or the names of the tools
            that need the agent's approver before they run.
        timeout: seconds allowed per call of these tools (else the agent's
            ``tool_timeout`` applies).
        startup_timeout: seconds allowed for the whole start: starting the
            server (or connecting), the MCP handshake and listing the tools,
            as one deadline. When it runs out the start fails with
            :class:`MCPServerError` naming the timeout; a stdio server has
            been killed (with its process group) and an HTTP connection
            closed by then. A restart after a broken connection has the same
            allowance for starting the server and the handshake.

    Raises:
        ConfigurationError: the arguments name no server, or two; bad timeouts.
    """

    def __init__(
        self,
        command: str | Sequence[str] | None = None,
        *,
        url: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        requires_approval: bool | Collection[str] = False,
        timeout: float | None = None,
        startup_timeout: float = 30.0,
    ) -> None:
        self._spec = server_spec(command, url=url, env=env, cwd=cwd)
        if isinstance(requires_approval, str):
            raise ConfigurationError("requires_approval takes True/False or a collection of names")
        self._approval: bool | frozenset[str] = (
            requires_approval
            if isinstance(requires_approval, bool)
            else frozenset(requires_approval)
        )
        self._timeout = check_timeout(timeout)
        if isinstance(startup_timeout, bool) or not startup_timeout > 0:
            raise ConfigurationError(f"startup_timeout must be > 0 seconds: {startup_timeout!r}")
        self._startup_timeout = float(startup_timeout)
        self._tools: list[RawTool] | None = None
        self._list_lock = threading.Lock()
        self._connection: Connection | None = None
        self._connect_lock: asyncio.Lock | None = None

    @property
    def server(self) -> str:
        """The server's command line or URL, as used in error messages."""
        return self._spec.label

    def __repr__(self) -> str:
        return f"MCPTools({self.server!r})"

    def __enter__(self) -> MCPTools:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- the ToolProvider hook ----------------------------------------------------------

    def as_tools(self) -> list[RawTool]:
        """The server's tools, sorted as the server lists them; blocks on the first call.

        The first call starts the server (or connects) and lists the tools;
        later calls return the same tools without asking the server again.
        Must not be called from a coroutine running on praisonlike's bridge loop.

        Raises:
            MCPServerError: the server could not be started or listed, or not
                within ``startup_timeout`` seconds.
            ConfigurationError: a name in ``requires_approval`` is not a tool of
                the server, or two tool names collide once made valid.
        """
        with self._list_lock:
            if self._tools is None:
                declared = self._wait(self._list(), self._startup_timeout + _ABORT_MARGIN)
                self._tools = self._build_tools(declared)
            return list(self._tools)

    def _build_tools(self, declared: list[Tool]) -> list[RawTool]:
        if isinstance(self._approval, frozenset):
            known = {t.name for t in declared} | {_model_name(t.name) for t in declared}
            unknown = sorted(self._approval - known)
            if unknown:
                raise ConfigurationError(
                    f"requires_approval names tools that MCP server {self.server} does not "
                    f"have: {', '.join(unknown)}"
                )
        tools = [self._raw_tool(tool) for tool in declared]
        names = [tool.name for tool in tools]
        if len(set(names)) != len(names):
            raise ConfigurationError(
                f"MCP server {self.server} has tools whose names collide once made valid: {names}"
            )
        return tools

    def _raw_tool(self, declared: Tool) -> RawTool:
        name = _model_name(declared.name)
        approval = (
            self._approval
            if isinstance(self._approval, bool)
            else bool({declared.name, name} & self._approval)
        )
        schema = {
            "name": name,
            "description": declared.description or declared.title or "",
            "parameters": declared.input_schema,
        }
        return RawTool(
            schema,
            self._handler(declared.name),
            requires_approval=approval,
            timeout=self._timeout,
        )

    def _handler(self, remote_name: str) -> Callable[..., Awaitable[str]]:
        async def call_remote(**arguments: Any) -> str:
            return await asyncio.wrap_future(submit_coroutine(self._call(remote_name, arguments)))

        return call_remote

    # -- lifecycle ----------------------------------------------------------------------

    def close(self) -> None:
        """Stop the server (stdio) or end the session (HTTP); blocks for a few seconds at most.

        Idempotent. The tools stay usable: a later call starts the server again.
        """
        if self._connection is not None:
            self._wait(self._disconnect(), _CLOSE_WAIT)

    async def aclose(self) -> None:
        """:meth:`close` for async code."""
        await asyncio.wrap_future(submit_coroutine(self._disconnect()))

    def _wait(self, coroutine: Coroutine[Any, Any, T], timeout: float) -> T:
        future = submit_coroutine(coroutine)
        try:
            return future.result(timeout)
        except FutureTimeout:
            future.cancel()
            raise MCPServerError(
                f"MCP server {self.server} did not answer within {timeout:g}s", server=self.server
            ) from None

    # -- on the bridge loop -------------------------------------------------------------

    def _lock(self) -> asyncio.Lock:
        if self._connect_lock is None:
            self._connect_lock = asyncio.Lock()
        return self._connect_lock

    async def _connected(self, deadline: float | None = None) -> Connection:
        """The open session, or a new one started by ``deadline`` (loop time).

        Without a deadline a start may take ``startup_timeout`` seconds.
        """
        loop = asyncio.get_running_loop()
        if deadline is None:
            deadline = loop.time() + self._startup_timeout
        try:
            return await asyncio.wait_for(self._connect(), max(deadline - loop.time(), 0.0))
        except asyncio.TimeoutError:
            raise self._startup_error("complete the handshake") from None

    async def _connect(self) -> Connection:
        async with self._lock():
            current = self._connection
            if current is not None and current.alive:
                return current
            if current is not None:
                await self._discard(current)
            connection = Connection(self._spec)
            await connection.open()
            self._connection = connection
            _open_connections.add(connection)
            return connection

    def _startup_error(self, what: str) -> MCPServerError:
        return MCPServerError(
            f"MCP server {self.server} did not {what} within startup_timeout="
            f"{self._startup_timeout:g}s; raise startup_timeout if it needs longer to start",
            server=self.server,
        )

    async def _discard(self, connection: Connection, *, abort: bool = False) -> None:
        connection.mark_broken()
        if self._connection is connection:
            self._connection = None
        _open_connections.discard(connection)
        await (connection.abort() if abort else connection.close())

    async def _disconnect(self) -> None:
        async with self._lock():
            if self._connection is not None:
                await self._discard(self._connection)

    async def _list(self) -> list[Tool]:
        """Start the server (or reuse the session) and list its tools, in ``startup_timeout``.

        A failure, or the time running out, aborts the session before this raises.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._startup_timeout
        connection = await self._connected(deadline)
        try:
            return await asyncio.wait_for(connection.list_tools(), max(deadline - loop.time(), 0.0))
        except asyncio.TimeoutError:
            await self._discard(connection, abort=True)
            raise self._startup_error("list its tools") from None
        except BaseException as exc:
            await self._discard(connection, abort=True)
            if not isinstance(exc, Exception):
                raise
            raise MCPServerError(
                f"cannot list the tools of MCP server {self.server}: {describe(exc)}",
                server=self.server,
            ) from exc

    async def _call(self, name: str, arguments: dict[str, Any]) -> str:
        connection = await self._connected()
        try:
            result = await connection.call_tool(name, arguments)
        except Exception as exc:
            if _is_refusal(exc):
                raise ToolError(
                    f"MCP server {self.server} refused the call: {describe(exc)}", tool_name=name
                ) from exc
            await self._discard(connection)
            raise MCPServerError(
                f"lost the connection to MCP server {self.server} ({describe(exc)}); "
                "it is started again at the next call",
                server=self.server,
                tool_name=name,
            ) from exc
        if result.is_error:
            raise ToolError(result_text(result), tool_name=name)
        return result_text(result)


def _close_open_connections() -> None:
    connections = list(_open_connections)
    if not connections:
        return

    async def close_all() -> None:
        await asyncio.gather(*(connection.close() for connection in connections))

    with contextlib.suppress(Exception):
        submit_coroutine(close_all()).result(_CLOSE_WAIT)


atexit.register(_close_open_connections)
