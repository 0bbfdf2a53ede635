"""The per-turn overhead by system and entry point: the side-by-side table and its plot.

``overhead.py`` measures every mode in one interleaved run; this module
regroups its samples by system (praisonlike on the direct transport,
praisonlike through LiteLLM, PraisonAI's native openai path, the plain openai
SDK, plain LiteLLM) and entry point (``chat``, ``achat``, ``iter_stream``),
judges praisonlike on the direct transport against PraisonAI (target: at
most PraisonAI's time, net wall and CPU), and draws the plot (``--plot``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from report import bootstrap_interval, median, median_ratio, table, verdict

ENTRIES = ("chat", "achat", "iter_stream")
SERVER_OF = {"chat": "server", "achat": "server", "iter_stream": "server(stream)"}
PRAISONLIKE = "praisonlike, direct transport"
PRAISONAI = "PraisonAI, native openai path"
SYSTEMS: dict[str, dict[str, str]] = {
    PRAISONLIKE: {"chat": "agent.chat", "achat": "agent.achat", "iter_stream": "agent.iter_stream"},
    "praisonlike, transport=litellm": {
        "chat": "agent.chat, transport=litellm",
        "achat": "agent.achat, transport=litellm",
        "iter_stream": "agent.iter_stream, transport=litellm",
    },
    PRAISONAI: {
        "chat": "praisonai.chat",
        "achat": "praisonai.achat",
        "iter_stream": "praisonai.iter_stream",
    },
    "plain openai SDK": {
        "chat": "openai.create",
        "achat": "openai.acreate",
        "iter_stream": "openai.create(stream)",
    },
    "plain LiteLLM": {
        "chat": "litellm.completion",
        "achat": "litellm.acompletion",
        "iter_stream": "litellm.completion(stream)",
    },
}
PRAISONAI_TARGET = 1.0
PLOT_PATH = Path(__file__).resolve().parent.parent / "docs" / "images" / "overhead_by_system.png"

Figure = tuple[float, float, float]
"""(median, low, high of its 90% bootstrap interval), ms of net wall time per turn."""


def _net_median(server_time: float, values: Sequence[float], _: Sequence[float]) -> float:
    return (median(values) - server_time) * 1000


def _net_ratio(server_time: float, top: Sequence[float], bottom: Sequence[float]) -> float:
    return (median(top) - server_time) / (median(bottom) - server_time)


def by_system(
    wall: Mapping[str, Sequence[float]],
    cpu: Mapping[str, Sequence[float]],
    server_time: Mapping[str, float],
) -> tuple[bool, dict[str, dict[str, Figure]]]:
    """Print the side-by-side table; (praisonlike within PraisonAI's time, figures to plot).

    Systems whose modes were not measured (PraisonAI without its environment)
    are left out; the judgement is then ``True`` (nothing to compare with).
    """
    measured = {
        system: modes for system, modes in SYSTEMS.items() if all(m in wall for m in modes.values())
    }
    figures: dict[str, dict[str, Figure]] = {}
    for system, modes in measured.items():
        figures[system] = {}
        for entry, mode in modes.items():
            own = server_time[SERVER_OF[entry]]
            low, high = bootstrap_interval(
                lambda a, b, own=own: _net_median(own, a, b), wall[mode], wall[mode]
            )
            figures[system][entry] = (_net_median(own, wall[mode], ()), low, high)
    headers = ["entry point", *(f"{system}, net ms [90%]" for system in measured)]
    compared = PRAISONAI in measured
    if compared:
        headers += ["praisonlike / PraisonAI, net [90%]", "cpu"]
    ok = True
    rows = []
    for entry in ENTRIES:
        row = [entry] + [
            f"{value:.2f} [{low:.2f}-{high:.2f}]"
            for value, low, high in (figures[system][entry] for system in measured)
        ]
        if compared:
            ours, theirs = SYSTEMS[PRAISONLIKE][entry], SYSTEMS[PRAISONAI][entry]
            own = server_time[SERVER_OF[entry]]
            net = _net_ratio(own, wall[ours], wall[theirs])
            low, high = bootstrap_interval(
                lambda a, b, own=own: _net_ratio(own, a, b), wall[ours], wall[theirs]
            )
            cpu_ratio = median_ratio(cpu[ours], cpu[theirs])
            passed = net <= PRAISONAI_TARGET and cpu_ratio <= PRAISONAI_TARGET
            ok = ok and passed
            row += [f"{net:.3f} [{low:.2f}-{high:.2f}] {verdict(passed)}", f"{cpu_ratio:.3f}"]
        rows.append(row)
    print(
        table(
            "By system: net ms per one-tool turn (median, 90% bootstrap interval); "
            "praisonlike on the direct transport judged against PraisonAI's native path "
            f"(target <= {PRAISONAI_TARGET:.2f}, net wall and CPU; cpu = each process's own)",
            headers,
            rows,
        )
    )
    return ok, figures


def plot_overhead(figures: Mapping[str, Mapping[str, Figure]], path: Path, subtitle: str) -> None:
    """Grouped bars of net ms per turn by entry point, one per system; a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    systems = list(figures)
    width = 0.8 / len(systems)
    fig, axes = plt.subplots(figsize=(10, 5.5), dpi=120)
    for index, system in enumerate(systems):
        values = [figures[system][entry] for entry in ENTRIES]
        positions = [e + (index - (len(systems) - 1) / 2) * width for e in range(len(ENTRIES))]
        heights = [v[0] for v in values]
        errors = [[v[0] - v[1] for v in values], [v[2] - v[0] for v in values]]
        bars = axes.bar(positions, heights, width, yerr=errors, capsize=3, label=system)
        axes.bar_label(bars, labels=[f"{h:.1f}" for h in heights], fontsize=7, padding=2)
    axes.set_xticks(range(len(ENTRIES)), list(ENTRIES))
    axes.set_ylabel("ms per one-tool turn (2 requests), net of the server's own time")
    axes.set_title(f"Per-turn overhead by system and entry point\n{subtitle}", fontsize=10)
    axes.legend(fontsize=8)
    axes.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    print(f"plot saved: {path}")
