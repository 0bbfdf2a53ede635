"""ServeConfig: the settings of a served agent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from praisonlike.errors import ConfigurationError


@dataclass(frozen=True)
class ServeConfig:
    """How an agent is served (see :meth:`praisonlike.Agent.to_asgi`).

    ``tokens`` maps each bearer token to its owner's name; ``None`` means no
    auth, and then the app answers only on a loopback address. Times are
    seconds. Invalid values raise :class:`ConfigurationError` naming the field.
    """

    tokens: Mapping[str, str] | None = None
    store: Any = None
    ping_interval: float = 10.0
    max_body_bytes: int = 1 << 20
    run_timeout: float | None = None
    control_poll_interval: float = 0.5

    def __post_init__(self) -> None:
        problems = []
        if self.tokens is not None:
            if not isinstance(self.tokens, Mapping) or not self.tokens:
                problems.append("tokens must be a non-empty mapping of token to owner")
            elif not all(
                isinstance(t, str) and t and isinstance(o, str) and o
                for t, o in self.tokens.items()
            ):
                problems.append("tokens must map non-empty str tokens to non-empty str owners")
        for name in ("ping_interval", "control_poll_interval"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                problems.append(f"{name} must be a number > 0")
        if self.run_timeout is not None and (
            isinstance(self.run_timeout, bool)
            or not isinstance(self.run_timeout, int | float)
            or self.run_timeout <= 0
        ):
            problems.append("run_timeout must be a number > 0 or None")
        if (
            isinstance(self.max_body_bytes, bool)
            or not isinstance(self.max_body_bytes, int)
            or self.max_body_bytes < 1
        ):
            problems.append("max_body_bytes must be an int >= 1")
        if problems:
            raise ConfigurationError("invalid serve settings: " + "; ".join(problems))
