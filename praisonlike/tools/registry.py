"""The set of tools offered to the model in a turn."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from praisonlike.errors import ConfigurationError
from praisonlike.tools.function_tool import AnyTool, as_tool


class ToolRegistry:
    """Tools by name, offered in a deterministic order (sorted by name).

    Every entry goes through :func:`~praisonlike.tools.function_tool.as_tool`.

    Raises:
        ConfigurationError: (a ``ValueError``) two tools share a name; the
            message names it.
        TypeError: an entry is not a tool (from ``as_tool``).
    """

    def __init__(self, tools: Iterable[Any] = ()) -> None:
        self._tools: dict[str, AnyTool] = {}
        self._schemas: list[dict[str, Any]] | None = None
        for entry in tools:
            self.register(entry)

    def register(self, entry: Any) -> AnyTool:
        """Add one tool (normalised with ``as_tool``) and return it.

        Raises:
            ConfigurationError: a tool with the same name is already registered.
        """
        normalised = as_tool(entry)
        if normalised.name in self._tools:
            raise ConfigurationError(
                f"duplicate tool name '{normalised.name}': each tool needs a unique name "
                "(pass name=... to @tool to rename one)"
            )
        self._tools[normalised.name] = normalised
        self._schemas = None
        return normalised

    @property
    def names(self) -> list[str]:
        """The registered names, sorted."""
        return sorted(self._tools)

    def get(self, name: str) -> AnyTool | None:
        """The tool called ``name``, or ``None`` if no such tool is registered."""
        return self._tools.get(name)

    def schemas(self) -> list[dict[str, Any]]:
        """``openai_schema()`` of every tool, sorted by name.

        Built once and reused until a tool is registered; the list is a fresh
        copy each call, the schema dicts inside are shared and must not be mutated.
        """
        if self._schemas is None:
            self._schemas = [self._tools[name].openai_schema() for name in self.names]
        return list(self._schemas)

    def subset(self, names: Iterable[str]) -> ToolRegistry:
        """A new registry with only the tools called ``names``; unknown names are ignored."""
        wanted = set(names)
        return ToolRegistry(self._tools[name] for name in self.names if name in wanted)

    def with_tools(self, extra: Iterable[Any]) -> ToolRegistry:
        """A new registry with these tools plus ``extra``; this one is unchanged.

        Raises:
            ConfigurationError: an extra tool's name is already taken.
        """
        return ToolRegistry([*self._tools.values(), *extra])

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._tools

    def __iter__(self) -> Iterator[AnyTool]:
        return iter([self._tools[name] for name in self.names])

    def __repr__(self) -> str:
        return f"ToolRegistry({self.names!r})"
