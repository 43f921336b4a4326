"""Package namespaces whose public names load with their module, on first use.

A domain package re-exports its public names, but importing every module of
every domain whenever any one name was used made start-up pay for code it never
ran (most domains' parsers, tools and executors wait for their first request).
A package declares instead which module holds each name; the module is
imported when the name is first read (PEP 562), and the value is then stored
on the package, so later reads are plain attribute lookups::

    _exports = LazyExports(__name__, {".service": ["GoalService"], ...})
    __getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Mapping
from typing import Any


class LazyExports:
    """Where each public name of a package lives."""

    __slots__ = ("names", "package", "where")

    def __init__(self, package: str, exports: Mapping[str, Iterable[str]]) -> None:
        """``exports`` maps a relative module (``".service"``) to the names it provides,
        each ``"name"`` or ``"name as alias"``, as an import statement would."""
        self.package = package
        self.where: dict[str, tuple[str, str]] = {}
        for module, names in exports.items():
            for entry in names:
                attribute, _, alias = entry.partition(" as ")
                self.where[alias or attribute] = (module, attribute)
        self.names = sorted(self.where)

    def getattr(self, name: str) -> Any:
        try:
            module, attribute = self.where[name]
        except KeyError:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module, self.package), attribute)
        setattr(sys.modules[self.package], name, value)
        return value

    def dir(self) -> list[str]:
        return sorted(set(vars(sys.modules[self.package])) | set(self.where))
