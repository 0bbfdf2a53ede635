"""How a session is stored and remembered: :class:`MemoryConfig` and ``Agent(memory=...)``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from praisonlike._runtime.config_checks import is_int
from praisonlike.errors import ConfigurationError, ConfigurationTypeError

if TYPE_CHECKING:
    from praisonlike.models.config import LLMConfig


@dataclass(frozen=True)
class MemoryConfig:
    """How a session is stored and remembered.

    ``store`` is a :class:`SessionStore`, a path, a ``sqlite:///`` or
    ``postgresql://`` URL, or None for ``~/.praisonlike/sessions.db``.
    ``owner`` is the identity recorded on a new session and sent with remote
    stop and steer requests. On a session's first turn the last
    ``history_rounds`` answered turns are loaded as history; with
    ``history_tokens``, the oldest of them are left out until the rest fit
    that many tokens, counted with the agent's token counter (the model's
    tokenizer, as for the context budget). ``summary_model`` takes what an
    ``Agent(fallback_models=...)`` entry takes, with the same rule for a string.
    """

    store: Any = None
    history_rounds: int = 10
    history_tokens: int | None = None
    long_term: bool = True
    summary_model: str | LLMConfig | None = None
    owner: str | None = None

    def __post_init__(self) -> None:
        if self.summary_model is not None:
            from praisonlike.models.config import model_entry

            entry = model_entry(self.summary_model, "MemoryConfig.summary_model")
            object.__setattr__(self, "summary_model", entry)
        for name in ("history_rounds", "history_tokens"):
            value = getattr(self, name)
            if not (is_int(value) or (value is None and name == "history_tokens")):
                raise ConfigurationTypeError(f"MemoryConfig.{name} must be an int, got {value!r}")
        if not isinstance(self.long_term, bool):
            raise ConfigurationTypeError(
                f"MemoryConfig.long_term must be True or False, got {self.long_term!r}"
            )
        if self.owner is not None and not isinstance(self.owner, str):
            raise ConfigurationTypeError(f"MemoryConfig.owner must be a str, got {self.owner!r}")
        if self.history_rounds < 0:
            raise ConfigurationError(
                f"MemoryConfig.history_rounds must be >= 0, got {self.history_rounds}"
            )
        if self.history_tokens is not None and self.history_tokens < 1:
            raise ConfigurationError(
                f"MemoryConfig.history_tokens must be positive, got {self.history_tokens}"
            )


def memory_config(value: bool | MemoryConfig | None, session_id: str | None) -> MemoryConfig | None:
    """``None`` means on exactly when a session id is given."""
    if value is None:
        value = session_id is not None
    if value is False:
        return None
    config = MemoryConfig() if value is True else value
    if not isinstance(config, MemoryConfig):
        raise ConfigurationTypeError("memory must be True, False or a MemoryConfig")
    if session_id is None:
        raise ConfigurationError("memory needs a session_id: Agent(session_id='...', memory=...)")
    return config
