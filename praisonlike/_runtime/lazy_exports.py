"""Package namespaces whose names are imported on first access.

A package ``__init__`` that re-exports names from its submodules would import
all of them whenever any one submodule is imported. With :func:`lazy_exports`
the ``__init__`` stays empty at run time and each name is imported the first
time it is read, so ``import praisonlike.tools.registry`` costs only what the
registry itself needs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``.

    ``exports`` maps each public name to the module that defines it (absolute,
    or relative to ``package`` when it starts with a dot). A name, once read,
    is stored in ``namespace`` (the package's ``globals()``), so later reads
    are plain attribute lookups.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
