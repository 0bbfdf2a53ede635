"""``praisonlike models info MODEL``: what LiteLLM's bundled model map says about a model."""

from __future__ import annotations

import argparse

from rich.table import Table
from rich.text import Text

from praisonlike.cli.failures import CommandFailed, ExitCode
from praisonlike.cli.output import Output
from praisonlike.llm.capabilities import ModelFeatures, model_features
from praisonlike.llm.pricing import ModelPrice, resolve_price


def run_models(args: argparse.Namespace, output: Output) -> ExitCode:
    """Print the model's context window, prices and features.

    A model neither the feature map nor the price map knows raises
    :class:`CommandFailed` with exit code 2.
    """
    model = args.model
    features = model_features(model)
    price = resolve_price(model)
    if not features.known and price is None:
        raise CommandFailed(
            f"unknown model {model!r}: LiteLLM's local model map has no entry for it "
            "(use the provider/model form, e.g. openai/gpt-4o-mini)",
            exit_code=ExitCode.USAGE,
        )
    output.out.print(info_table(model, features, price))
    return ExitCode.OK


def info_table(model: str, features: ModelFeatures, price: ModelPrice | None) -> Table:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    rows = [
        ("Model", model),
        ("Context window", _tokens(features.context_window)),
        ("Max output", _tokens(features.max_output_tokens)),
        ("Input price", _per_million(price.input_per_mtok if price else None)),
        ("Output price", _per_million(price.output_per_mtok if price else None)),
        ("Cached input price", _per_million(price.cached_input_per_mtok if price else None)),
        ("Tool calling", _yes_no(features.native_tool_calls, features.known)),
        ("Vision", _yes_no(features.vision, features.known)),
        ("Structured output", _yes_no(features.response_schema, features.known)),
    ]
    for label, value in rows:
        table.add_row(label, Text(value))
    return table


def _tokens(count: int | None) -> str:
    return "unknown" if count is None else f"{count:,} tokens"


def _per_million(usd: float | None) -> str:
    return "unknown" if usd is None else f"${usd:g} per 1M tokens"


def _yes_no(value: bool, known: bool) -> str:
    if not known:
        return "unknown"
    return "yes" if value else "no"
