"""ServerState: what every route of one app shares."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from praisonlike.serve.auth import Authenticator
from praisonlike.serve.config import ServeConfig
from praisonlike.serve.runs import RunRegistry


@dataclass
class ServerState:
    """The template agent, the settings, the session store, auth and the live runs."""

    agent: Any
    config: ServeConfig
    store: Any
    auth: Authenticator
    runs: RunRegistry
    owns_store: bool = False
    """True when the app opened the store itself (it closes it at shutdown)."""

    @classmethod
    def build(cls, agent: Any, config: ServeConfig) -> ServerState:
        store = agent.served_store(config.store)
        given = [config.store, agent.memory_config.store if agent.memory_config else None]
        return cls(
            agent=agent,
            config=config,
            store=store,
            auth=Authenticator(config.tokens),
            runs=RunRegistry(config.control_poll_interval),
            owns_store=all(store is not g for g in given),
        )

    def run_timeout(self, requested: float | None) -> float | None:
        """The shorter of the request's timeout and the server's cap."""
        limits = [t for t in (requested, self.config.run_timeout) if t is not None]
        return min(limits) if limits else None

    def agent_for(
        self,
        session_id: str | None,
        owner: str | None,
        timeout: float | None,
        history: list[dict[str, Any]] | None = None,
    ) -> Any:
        return self.agent.agent_for_run(
            session_id=session_id,
            owner=owner,
            store=self.store if session_id is not None else None,
            timeout=self.run_timeout(timeout),
            history=history or (),
        )

    async def in_thread(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Call a (blocking) store method off the event loop."""
        return await asyncio.to_thread(getattr(self.store, method), *args, **kwargs)
