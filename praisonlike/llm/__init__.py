"""The former home of the model-call modules, kept so that old imports keep working.

The modules moved to :mod:`praisonlike.loop` (the tool loop),
:mod:`praisonlike.models` (model configuration, transports, errors, prices),
:mod:`praisonlike.react` and :mod:`praisonlike.redaction`. Importing
``praisonlike.llm.<module>`` still works: it returns a module that forwards
every attribute to the new one and emits a :class:`DeprecationWarning`
naming the new path. Classes and functions are the same objects either way.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

_MOVED: dict[str, str] = {
    "accounting": "praisonlike.loop.accounting",
    "answer_checks": "praisonlike.loop.answer_checks",
    "async_driver": "praisonlike.loop.async_driver",
    "backend": "praisonlike.models.litellm_backend",
    "call_faults": "praisonlike.react.call_faults",
    "capabilities": "praisonlike.models.capabilities",
    "config": "praisonlike.models.config",
    "drivers": "praisonlike.loop.drivers",
    "error_chain": "praisonlike.models.error_chain",
    "error_rules": "praisonlike.models.error_rules",
    "errors": "praisonlike.models.error_classification",
    "in_process": "praisonlike.models.in_process",
    "local": "praisonlike.models.local",
    "model_call": "praisonlike.models.codec",
    "model_map": "praisonlike.models.model_map",
    "model_round": "praisonlike.loop.model_round",
    "network_guard": "praisonlike.models.network_guard",
    "openai_wire": "praisonlike.models.openai_wire",
    "preflight": "praisonlike.models.preflight",
    "pricing": "praisonlike.models.pricing",
    "protocol": "praisonlike.loop.commands",
    "providers": "praisonlike.models.providers",
    "react": "praisonlike.react.parse",
    "react_prompt": "praisonlike.react.prompt",
    "react_stream": "praisonlike.react.stream",
    "recovery": "praisonlike.loop.recovery",
    "redaction": "praisonlike.redaction",
    "round_base": "praisonlike.loop.round_base",
    "round_context": "praisonlike.loop.round_context",
    "run": "praisonlike.loop.run",
    "side_call": "praisonlike.loop.side_call",
    "stop": "praisonlike.loop.stop",
    "stream_reader": "praisonlike.loop.stream_reader",
    "tool_grammar": "praisonlike.react.grammar",
    "tool_io": "praisonlike.loop.tool_io",
    "tool_loop": "praisonlike.loop.tool_loop",
    "transport": "praisonlike.models.transport",
    "turn_spec": "praisonlike.loop.turn_spec",
    "usage": "praisonlike.models.usage",
    "user_code": "praisonlike.loop.user_code",
}


def new_name(old: str) -> str | None:
    """The module that ``old`` (a ``praisonlike.llm.*`` name) became, or ``None``."""
    prefix = __name__ + "."
    if not old.startswith(prefix):
        return None
    first, _, rest = old[len(prefix) :].partition(".")
    target = _MOVED.get(first)
    if target is None:
        return None
    return f"{target}.{rest}" if rest else target


class _Forwarder(types.ModuleType):
    """A module standing for a moved one: every attribute is read from the new module."""

    def __init__(self, name: str, target: types.ModuleType) -> None:
        super().__init__(name, target.__doc__)
        self.__path__: list[str] = []
        self._target = target

    def __getattr__(self, name: str) -> object:
        return getattr(self._target, name)

    def __dir__(self) -> list[str]:
        return dir(self._target)


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if new_name(fullname) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        target = new_name(spec.name)
        assert target is not None
        warnings.warn(
            f"{spec.name} moved to {target}; import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        return _Forwarder(spec.name, importlib.import_module(target))

    def exec_module(self, module: types.ModuleType) -> None:
        return None


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.insert(0, _MovedModules())
