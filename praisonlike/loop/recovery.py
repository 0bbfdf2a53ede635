"""What to do about a failed model call: compress, retry, fall back, or give up.

Pure decisions over an :class:`ErrorClass`; the tool loop carries them out.
Backoff uses tenacity's jittered exponential wait, honouring Retry-After.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from praisonlike.models.config import ExecutionConfig
from praisonlike.models.error_classification import ErrorClass, ErrorKind


@dataclass(frozen=True)
class Compress:
    """Compact the request (emergency) and send it again."""


@dataclass(frozen=True)
class Retry:
    wait: float


@dataclass(frozen=True)
class Fallback:
    to_model_index: int


@dataclass(frozen=True)
class GiveUp:
    """Raise the typed error."""


Recovery = Compress | Retry | Fallback | GiveUp


@dataclass
class RecoveryState:
    """Counters of one model call's recovery attempts."""

    model_index: int = 0
    retries_on_model: int = 0
    context_retries: int = 0
    total_retries: int = 0


_wait_strategies: dict[tuple[float, float], Any] = {}


def backoff_seconds(attempt: int, config: ExecutionConfig, retry_after: float | None) -> float:
    """Jittered exponential wait for ``attempt`` (1-based), within Retry-After..retry_max."""
    key = (config.retry_base, config.retry_max)
    strategy = _wait_strategies.get(key)
    if strategy is None:
        import tenacity

        strategy = tenacity.wait_exponential_jitter(
            initial=config.retry_base, max=config.retry_max, jitter=config.retry_base
        )
        _wait_strategies[key] = strategy
    from tenacity import RetryCallState

    state = RetryCallState(retry_object=None, fn=None, args=(), kwargs={})  # type: ignore[arg-type]
    state.attempt_number = attempt
    wait = float(strategy(state))
    if retry_after is not None:
        wait = max(wait, retry_after)
    return min(wait, config.retry_max)


def decide(
    error: ErrorClass,
    state: RecoveryState,
    config: ExecutionConfig,
    *,
    model_count: int,
    retry_timeouts: bool = True,
) -> Recovery:
    """The next recovery step, in the order: compress, retry, fall back, give up.

    With ``retry_timeouts`` False (a model on a server of this machine, see
    :attr:`~praisonlike.models.capabilities.ModelFeatures.local_server`), a timed-out
    call is not retried on the same model.
    """
    if error.should_compress_context:
        if state.context_retries < config.max_context_retries:
            return Compress()
        return GiveUp()
    retryable = error.retryable and (retry_timeouts or error.kind is not ErrorKind.TIMEOUT)
    if retryable and state.retries_on_model < config.max_retries:
        return Retry(backoff_seconds(state.retries_on_model + 1, config, error.retry_after))
    if (error.should_fallback_model or error.retryable) and state.model_index + 1 < model_count:
        return Fallback(state.model_index + 1)
    return GiveUp()
