"""One live client session with an MCP server, held open by a task on the bridge loop.

The MCP SDK's client is an async context manager whose transport runs task
groups, so it must be entered and left by the same task. A :class:`Connection`
therefore owns a task that enters the client, reports readiness and waits to
be told to stop; calls are made from other tasks on the same loop.
Every method must be awaited on the praisonlike bridge loop
(:mod:`praisonlike.tools.async_bridge`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from praisonlike._runtime.loggers import get_logger
from praisonlike.errors import ToolError
from praisonlike.tools.mcp.server_spec import ServerSpec, new_client

if TYPE_CHECKING:
    from anyio import CancelScope
    from mcp import Client
    from mcp_types import CallToolResult, Tool

    from praisonlike.tools.mcp.stdio import StdioTransport


_CLOSE_TIMEOUT = 10.0
_ABORT_WAIT = 5.0
_MAX_PAGES = 100


class MCPServerError(ToolError):
    """The MCP server could not be started or reached, or the connection to it broke.

    ``server`` is the command line or URL of the server. After a broken
    connection the next call starts (or reconnects to) the server again.
    """

    def __init__(self, message: str, *, server: str, tool_name: str | None = None) -> None:
        super().__init__(message, tool_name=tool_name)
        self.server = server


def describe(exc: BaseException) -> str:
    """A one-line account of ``exc``, looking inside exception groups."""
    inner = getattr(exc, "exceptions", None)
    while isinstance(inner, tuple) and inner and isinstance(inner[0], BaseException):
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _retrieve(future: asyncio.Future[None]) -> None:
    """Mark the outcome as seen, so an abandoned start does not log "never retrieved"."""
    if not future.cancelled():
        future.exception()


class Connection:
    """An open session with one server; see the module docstring."""

    def __init__(self, spec: ServerSpec) -> None:
        self.spec = spec
        self._client: Client | None = None
        self._stdio: StdioTransport | None = None
        self._scope: CancelScope | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._broken = False

    @property
    def alive(self) -> bool:
        """Open and not known to be broken."""
        return (
            self._client is not None
            and not self._broken
            and self._task is not None
            and not self._task.done()
        )

    def mark_broken(self) -> None:
        """Record that the connection failed; :attr:`alive` becomes ``False``."""
        self._broken = True

    async def open(self) -> None:
        """Start the server (stdio) or connect to it (HTTP) and complete the MCP handshake.

        Waits as long as that takes: the caller bounds it. If it fails or is
        cancelled the session is aborted (:meth:`abort`) before it returns.

        Raises:
            MCPServerError: the server did not start or refused the handshake.
        """
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(_retrieve)
        self._task = asyncio.create_task(self._hold(ready), name=f"mcp {self.spec.label}")
        try:
            await asyncio.shield(ready)
        except BaseException as exc:
            await self.abort()
            if isinstance(exc, MCPServerError) or not isinstance(exc, Exception):
                raise
            raise MCPServerError(
                f"cannot start MCP server {self.spec.label}: {describe(exc)}",
                server=self.spec.label,
            ) from exc

    async def _hold(self, ready: asyncio.Future[None]) -> None:
        try:
            client, self._stdio = new_client(self.spec)
            import anyio

            with anyio.CancelScope() as self._scope:
                async with client:
                    self._client = client
                    ready.set_result(None)
                    await self._stop.wait()
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            else:
                get_logger(__name__).debug(
                    "MCP session with %s ended: %s", self.spec.label, describe(exc)
                )
        finally:
            self._client = None
            if not ready.done():
                ready.set_exception(
                    MCPServerError(
                        f"MCP server {self.spec.label} was stopped while starting",
                        server=self.spec.label,
                    )
                )

    def _session(self) -> Client:
        if self._client is None:
            raise MCPServerError(
                f"the connection to MCP server {self.spec.label} is closed",
                server=self.spec.label,
            )
        return self._client

    async def list_tools(self) -> list[Tool]:
        """Every tool the server declares, following pagination."""
        client = self._session()
        tools: list[Tool] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        """Send one ``tools/call``; SDK exceptions propagate unchanged."""
        return await self._session().call_tool(name, arguments)

    async def close(self) -> None:
        """Stop the session (a stdio server is asked to exit, then killed); never raises.

        A session still starting is aborted rather than waited for.
        """
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        if self._client is None:
            await self.abort()
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), _CLOSE_TIMEOUT)
        except asyncio.TimeoutError:
            await self.abort()
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
        except Exception as exc:
            get_logger(__name__).debug(
                "closing MCP session with %s: %s", self.spec.label, describe(exc)
            )

    async def abort(self) -> None:
        """End the session at once; never raises.

        A stdio server is killed with its process group, without the grace
        period of :meth:`close`, and is reaped before this returns; an HTTP
        session is dropped without ending it on the server.
        """
        self._stop.set()
        if self._stdio is not None:
            self._stdio.kill()
        task = self._task
        if task is None or task.done():
            return
        if self._scope is None:
            task.cancel()
        else:
            self._scope.cancel()
        await asyncio.wait({task}, timeout=_ABORT_WAIT)
