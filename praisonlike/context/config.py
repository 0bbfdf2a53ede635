"""The knobs of context budgeting, validated once at construction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from praisonlike._runtime.config_checks import is_int, is_number
from praisonlike.errors import ConfigurationError
from praisonlike.models.config import LLMConfig, model_entry

StrategyName = Literal["truncate", "sliding_window", "drop_oldest_tools", "summarise"]
STRATEGIES: tuple[str, ...] = get_args(StrategyName)

MIN_TOOL_OUTPUT_LIMIT = 64


@dataclass(frozen=True)
class ContextConfig:
    """How requests are kept inside the model's context window.

    Ratios are fractions of the *input budget* (the context window minus
    ``reserve_output_tokens``):

    - ``trigger``: compaction starts when a request uses more than this.
    - ``target``: compaction brings the request down to this.
    - ``hard_cap``: a compacted request still above this is cut hard, to 80% of
      the budget (or ``hard_cap`` when that is lower).

    ``keep_last_turns`` is how many turns ``sliding_window`` keeps
    (``drop_oldest_tools`` replaces tool results oldest first, whatever the
    turn, before it drops any turn). ``tool_output_limit`` is a number of
    characters: a longer tool result is cut to its head and tail.
    ``max_context_tokens`` overrides the model's window; ``summary_model`` is
    the model the ``summarise`` strategy should call (None: the agent's own), a
    string or a full configuration as :func:`~praisonlike.models.config.model_entry` says.

    Raises :class:`~praisonlike.errors.ConfigurationError` (a ``ValueError``)
    naming every invalid field.
    """

    trigger: float = 0.90
    target: float = 0.70
    keep_last_turns: int = 5
    strategy: StrategyName = "drop_oldest_tools"
    tool_output_limit: int = 16000
    hard_cap: float = 0.95
    max_context_tokens: int | None = None
    reserve_output_tokens: int = 1024
    summary_model: str | LLMConfig | None = None

    def __post_init__(self) -> None:
        problems = _problems(self)
        if self.summary_model is not None:
            try:
                object.__setattr__(
                    self, "summary_model", model_entry(self.summary_model, "summary_model")
                )
            except ConfigurationError as exc:
                problems.append(str(exc))
        if problems:
            raise ConfigurationError("invalid ContextConfig: " + "; ".join(problems))


def _problems(config: ContextConfig) -> list[str]:
    problems: list[str] = []
    ratios = {"trigger": config.trigger, "target": config.target, "hard_cap": config.hard_cap}
    bad = [name for name, value in ratios.items() if not is_number(value)]
    if bad:
        problems.append(f"{', '.join(bad)} must be numbers")
    elif not 0 < config.target < config.trigger <= config.hard_cap <= 1:
        problems.append(
            "ratios must satisfy 0 < target < trigger <= hard_cap <= 1, got "
            f"target={config.target}, trigger={config.trigger}, hard_cap={config.hard_cap}"
        )
    if not is_int(config.keep_last_turns) or config.keep_last_turns < 1:
        problems.append(f"keep_last_turns must be an int >= 1, got {config.keep_last_turns!r}")
    if config.strategy not in STRATEGIES:
        problems.append(f"strategy must be one of {', '.join(STRATEGIES)}, got {config.strategy!r}")
    limit = config.tool_output_limit
    if not is_int(limit) or limit < MIN_TOOL_OUTPUT_LIMIT:
        problems.append(
            f"tool_output_limit must be an int >= {MIN_TOOL_OUTPUT_LIMIT} characters, got {limit!r}"
        )
    reserve = config.reserve_output_tokens
    if not is_int(reserve) or reserve < 0:
        problems.append(f"reserve_output_tokens must be an int >= 0, got {reserve!r}")
    window = config.max_context_tokens
    if window is not None:
        if not is_int(window) or window <= 0:
            problems.append(f"max_context_tokens must be a positive int or None, got {window!r}")
        elif is_int(reserve) and reserve >= window:
            problems.append(
                f"reserve_output_tokens ({reserve}) must be smaller than "
                f"max_context_tokens ({window})"
            )
    return problems
