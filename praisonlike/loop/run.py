"""One Run: a turn of the tool loop, from its input to its result.

A :class:`Run` is what the entry points (``chat``, ``achat``,
``stream_events``, ...) hand to the loop: its input (the :class:`TurnSpec`,
the turn's tool pipeline, an opaque ``owner``), the driver that performs its
I/O (chosen by iterating :meth:`Run.events` with blocking calls or
:meth:`Run.aevents` with asyncio), its events, and its outcome. The loop
makes no decision from ``owner``: it is handed untouched to user code as
``HookContext.agent`` (and the tool pipeline's ``RunContext.agent``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from praisonlike._runtime.loggers import get_logger
from praisonlike.loop.async_driver import AsyncDriver
from praisonlike.loop.drivers import SyncDriver
from praisonlike.loop.tool_loop import ToolLoop

if TYPE_CHECKING:
    from praisonlike.loop.turn_spec import TurnOutcome, TurnSpec
    from praisonlike.result import RunResult
    from praisonlike.tools.executor import TurnTools

Observer = Callable[[Any], None]


class Run:
    """One turn. Iterate :meth:`events` or :meth:`aevents` once, then read :attr:`outcome`.

    ``opening`` events (``RunStarted``, a skill's events) are yielded before
    the loop's own. Every event goes to each of ``observers``, in order,
    before it is yielded; an observer that raises is logged and skipped.
    """

    def __init__(
        self,
        spec: TurnSpec,
        tools: TurnTools | None = None,
        *,
        owner: Any = None,
        opening: Sequence[Any] = (),
        observers: Sequence[Observer] = (),
    ) -> None:
        self.spec = spec
        self.tools = tools
        self.owner = owner
        self.opening = tuple(opening)
        self.observers = tuple(observers)
        self.outcome: TurnOutcome | None = None

    def events(self) -> Iterator[Any]:
        """Run the turn with blocking I/O (usable inside a running event loop), yielding events."""
        return SyncDriver(self).drive(ToolLoop(self).steps(), self._finish)

    def aevents(self) -> AsyncIterator[Any]:
        """Run the turn with asyncio on the caller's loop, yielding events."""
        return AsyncDriver(self).drive(ToolLoop(self).steps(), self._finish)

    @property
    def result(self) -> RunResult:
        """The turn's RunResult once its events are exhausted (also when it failed)."""
        if self.outcome is None:
            raise RuntimeError("the run's events have not been consumed to the end")
        return self.outcome.result

    def observe(self, event: Any) -> None:
        """Hand ``event`` to every observer."""
        for observer in self.observers:
            try:
                observer(event)
            except Exception:
                get_logger().exception(
                    "an event observer failed on %s", getattr(event, "type", event)
                )

    def _finish(self, outcome: TurnOutcome) -> None:
        self.outcome = outcome
