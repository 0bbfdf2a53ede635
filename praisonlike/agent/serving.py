"""ServingMixin: serve the agent over HTTP (``agent.to_asgi()``).

The served agent is a template: an agent is one conversation, so each run the
server starts gets a fresh agent built with the same constructor arguments,
the run's ``session_id`` and the server's session store. Its history comes
from the store, so any worker sharing the store can run a session's next turn.
Starlette is imported only when ``to_asgi`` is called.

An adapter over the agent's spec (``memory_config``, ``execution``), its
usage tracker, and the constructor arguments it was built with.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from praisonlike.agent.parts import HasParts

if TYPE_CHECKING:
    from starlette.applications import Starlette


class ServingMixin(HasParts):
    _serving_arguments: tuple[tuple[Any, ...], dict[str, Any]]

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        instance = super().__new__(cls)
        instance._serving_arguments = (args, dict(kwargs))
        return instance

    def to_asgi(
        self,
        *,
        tokens: Mapping[str, str] | None = None,
        store: Any = None,
        ping_interval: float = 10.0,
        max_body_bytes: int = 1 << 20,
        run_timeout: float | None = None,
        control_poll_interval: float = 0.5,
    ) -> Starlette:
        """A Starlette app serving this agent (see docs/serving.md).

        ``tokens`` maps bearer tokens to owner names; without it the app
        answers only on a loopback address. ``store`` is where sessions are
        kept (a store, path or URL); by default the agent's own
        ``MemoryConfig`` store, else an in-memory SQLite store that lives as
        long as the app. ``run_timeout`` caps every run (a request may ask
        for less). Needs ``praisonlike[serve]``; raises
        :class:`~praisonlike.errors.ConfigurationError` for invalid settings.
        """
        from praisonlike.serve.app import create_app
        from praisonlike.serve.config import ServeConfig

        config = ServeConfig(
            tokens=dict(tokens) if tokens is not None else None,
            store=store,
            ping_interval=ping_interval,
            max_body_bytes=max_body_bytes,
            run_timeout=run_timeout,
            control_poll_interval=control_poll_interval,
        )
        return create_app(self, config)

    def served_store(self, store: Any = None) -> Any:
        """The session store a server of this agent uses for ``store`` (see :meth:`to_asgi`)."""
        from praisonlike.memory.store import open_store

        if store is not None:
            return open_store(store)
        if self.spec.memory_config is not None:
            return open_store(self.spec.memory_config.store)
        from praisonlike.memory.sqlite_store import SQLiteStore

        return SQLiteStore(":memory:")

    def agent_for_run(
        self,
        *,
        session_id: str | None,
        owner: str | None,
        store: Any,
        timeout: float | None = None,
        history: Sequence[Mapping[str, Any]] = (),
    ) -> Any:
        """A fresh agent like this one for one run of ``session_id``, kept in ``store``.

        ``session_id=None`` gives an agent without memory. It shares this
        agent's usage tracker, so ``agent.usage`` counts every served run.
        ``timeout`` (seconds) replaces a longer ``max_execution_time``.
        ``history`` (chat messages) is the conversation so far, for an agent
        without a session.
        It runs this agent's hooks, those registered with ``agent.on(...)``
        after construction included (the hook runner is shared). A subclass whose
        constructor does not take the Agent's keyword arguments raises
        :class:`~praisonlike.errors.ConfigurationError` here; it can override
        this method.
        """
        from praisonlike.agent.state import STATE_VERSION
        from praisonlike.errors import ConfigurationError
        from praisonlike.memory.config import MemoryConfig
        from praisonlike.models.usage import UsageTracker

        args, kwargs = self._serving_arguments
        execution = self.spec.execution
        if timeout is not None and (
            execution.max_execution_time is None or timeout < execution.max_execution_time
        ):
            execution = dataclasses.replace(execution, max_execution_time=timeout)
        if session_id is None:
            memory: Any = False
        else:
            base = self.spec.memory_config or MemoryConfig(long_term=False)
            memory = dataclasses.replace(base, store=store, owner=owner)
        overrides = {
            "session_id": session_id,
            "memory": memory,
            "execution": execution,
            "usage_tracker": UsageTracker() if history else self.usage_tracker,
        }
        try:
            agent = type(self)(*args, **{**kwargs, **overrides})
        except TypeError as exc:
            raise ConfigurationError(
                f"cannot build a {type(self).__name__} for a served run: its constructor must "
                f"accept {', '.join(overrides)} as keyword arguments, or override "
                f"agent_for_run ({exc})"
            ) from exc
        agent._parts = dataclasses.replace(agent._parts, hooks=self._parts.hooks)
        if history:
            agent.load_state({"version": STATE_VERSION, "history": [dict(m) for m in history]})
            agent.usage_tracker = self.usage_tracker
        return agent
