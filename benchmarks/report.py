"""Statistics and the plain-text tables every benchmark prints."""

from __future__ import annotations

import os
import platform
import random
import statistics
from collections.abc import Callable, Sequence
from importlib.metadata import version


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def median_ratio(top: Sequence[float], bottom: Sequence[float]) -> float:
    """``median(top) / median(bottom)``; infinite when the bottom median is not positive."""
    base = median(bottom)
    return median(top) / base if base > 0 else float("inf")


def p90(values: Sequence[float]) -> float:
    """The 90th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * 9 // 10) - 1)]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def kib(size: float) -> str:
    return f"{size / 1024:.1f}"


def ratio(value: float, reference: float) -> str:
    return f"{value / reference:.3f}" if reference > 0 else "n/a"


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def machine_load() -> str:
    """The 1, 5 and 15 minute load averages, as ``uptime`` prints them."""
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def machine() -> str:
    """One line naming the machine, its load and the versions measured."""
    return (
        f"{os.cpu_count()} CPUs (load average {machine_load()}), {platform.machine()}, "
        f"Python {platform.python_version()}, litellm {version('litellm')}, "
        f"openai {version('openai')}, httpx {version('httpx')}"
    )


def table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A left-aligned text table under ``title``."""
    cells = [list(headers), *(list(row) for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))

    rule = "  ".join("-" * width for width in widths)
    body = "\n".join(line(row) for row in cells[1:])
    return f"\n{title}\n{line(cells[0])}\n{rule}\n{body}"


def bootstrap_interval(
    statistic: Callable[[Sequence[float], Sequence[float]], float],
    first: Sequence[float],
    second: Sequence[float],
    *,
    resamples: int = 1000,
    seed: int = 0,
) -> tuple[float, float]:
    """The 5th and 95th percentiles of ``statistic`` over resamples of both samples.

    Each resample draws ``len(first)`` values from ``first`` and
    ``len(second)`` from ``second`` with replacement; the seed makes a report
    reproducible from its samples.
    """
    rng = random.Random(seed)
    values = sorted(
        statistic(rng.choices(first, k=len(first)), rng.choices(second, k=len(second)))
        for _ in range(resamples)
    )
    return values[resamples // 20], values[resamples - 1 - resamples // 20]
