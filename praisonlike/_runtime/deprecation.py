"""Old names of renamed public objects, still importable with a :class:`DeprecationWarning`."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping


def renamed_attributes(
    module: str, renamed: Mapping[str, tuple[str, object]]
) -> Callable[[str], object]:
    """A module ``__getattr__`` serving each old name in ``renamed`` as its new object.

    ``renamed`` maps an old name to (new name, object). Reading an old name
    warns once per call site, naming the new one; any other missing name
    raises :class:`AttributeError` as usual.
    """

    def __getattr__(name: str) -> object:
        if name in renamed:
            new_name, value = renamed[name]
            warnings.warn(
                f"{module}.{name} was renamed {new_name}; use {module}.{new_name}",
                DeprecationWarning,
                stacklevel=2,
            )
            return value
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
