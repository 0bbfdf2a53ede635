"""``praisonlike models info MODEL``: what praisonlike and LiteLLM's bundled model map know.

The bundled local models (``local``, ``local/<name>``) are described from their
:class:`~praisonlike.models.local.LocalModelSpec`; every other model from LiteLLM's
local map. Nothing is downloaded.
"""

from __future__ import annotations

import argparse

from rich.table import Table
from rich.text import Text

from praisonlike.cli.failures import CommandFailed, ExitCode
from praisonlike.cli.output import Output
from praisonlike.models.capabilities import ModelFeatures, model_features
from praisonlike.models.local import DEFAULT_LOCAL_MODEL, LOCAL_MODELS
from praisonlike.models.local import is_local_available as local_installed
from praisonlike.models.pricing import ModelPrice, resolve_price

LOCAL_PREFIX = "local"
Rows = list[tuple[str, str]]


def run_models(args: argparse.Namespace, output: Output) -> ExitCode:
    """Print the model's context window, prices and features.

    A model that is neither a bundled local model (or a ``local/<file>.gguf``)
    nor in LiteLLM's feature or price map raises :class:`CommandFailed` with
    exit code 2.
    """
    model = args.model
    if model == LOCAL_PREFIX or model.startswith(f"{LOCAL_PREFIX}/"):
        output.out.print(_table(local_rows(model)))
        return ExitCode.OK
    features = model_features(model)
    price = resolve_price(model)
    if not features.known and price is None:
        from praisonlike.models.preflight import model_suggestions

        close = model_suggestions(model)
        hint = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
        raise CommandFailed(
            f"unknown model {model!r}: LiteLLM's local model map has no entry for it "
            f"({hint}use the provider/model form, e.g. openai/gpt-4o-mini)",
            exit_code=ExitCode.USAGE,
        )
    output.out.print(info_table(model, features, price))
    return ExitCode.OK


def local_rows(model: str) -> Rows:
    """What a ``local`` model string runs: a bundled model, or a GGUF file of the user's.

    Raises :class:`CommandFailed` (exit code 2) for any other ``local/...`` name.
    """
    name = DEFAULT_LOCAL_MODEL if model == LOCAL_PREFIX else model[len(LOCAL_PREFIX) + 1 :]
    spec = LOCAL_MODELS.get(name)
    if spec is not None:
        title = model if model.endswith(spec.name) else f"{model} ({spec.name})"
        installed = "yes" if local_installed(spec.name) else f"no ({spec.install_hint})"
        context, native = spec.context_window, spec.native_tool_calls
        size = f"{spec.size / 1e6:,.0f} MB"
    elif name.endswith(".gguf"):
        title, installed, size = model, "a GGUF file of yours, run as given", "unknown"
        features = model_features(model)
        context, native = features.context_window or 0, features.native_tool_calls
    else:
        known = ", ".join(f"local/{name}" for name in sorted(LOCAL_MODELS))
        raise CommandFailed(
            f"unknown local model {model!r}: the bundled ones are local, {known} "
            "(or give local/<path to a .gguf file>)",
            exit_code=ExitCode.USAGE,
        )
    free = "$0 (runs on this machine)"
    return [
        ("Model", title),
        ("Runs", "on this machine, offline (praisonlike[local])"),
        ("Installed", installed),
        ("Context window", _tokens(context)),
        ("Max output", f"the context window ({context:,} tokens) less the prompt"),
        ("Input price", free),
        ("Output price", free),
        ("Cached input price", free),
        ("Tool calling", "yes" if native else "yes, written as text (ReAct)"),
        ("Vision", "no"),
        ("Structured output", "yes, held to the schema by a grammar (no response_format)"),
        ("Model file", size),
    ]


def info_table(model: str, features: ModelFeatures, price: ModelPrice | None) -> Table:
    return _table(
        [
            ("Model", model),
            ("Context window", _tokens(features.context_window)),
            ("Max output", _tokens(features.max_output_tokens)),
            ("Input price", _per_million(price.input_per_mtok if price else None)),
            ("Output price", _per_million(price.output_per_mtok if price else None)),
            ("Cached input price", _per_million(price.cached_input_per_mtok if price else None)),
            ("Cache write price", _per_million(price.cache_write_per_mtok if price else None)),
            ("Tool calling", _yes_no(features.native_tool_calls, features.known)),
            ("Vision", _yes_no(features.vision, features.known)),
            ("Structured output", _yes_no(features.response_schema, features.known)),
        ]
    )


def _table(rows: Rows) -> Table:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
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
