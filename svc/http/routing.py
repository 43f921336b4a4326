"""URL rules whose URL builders are compiled on first use.

Werkzeug compiles two URL-building functions per rule (Python source, through
``ast`` and ``compile``) as each rule is added. The engine has some two hundred
routes and never builds a URL from a rule, yet that compilation was the largest
single cost of start-up. The matching side (the rule's regex and parts) is
untouched; only the builders wait until someone asks for one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from quart.routing import QuartRule
from werkzeug.routing import IntegerConverter, Map


class Int64Converter(IntegerConverter):
    """``<int:...>`` bounded to signed 64 bits: a larger number matches no route (404).

    Every integer in a path ends up bound to SQLite, whose integers are signed
    64-bit; ``/versions/18446744073709551615`` was an ``OverflowError`` (500).
    """

    def __init__(self, map: Map, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", 2**63 - 1)
        super().__init__(map, *args, **kwargs)


class LazyBuildRule(QuartRule):
    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        compiled: Callable[..., tuple[str, str]] | None = None

        def build(rule: LazyBuildRule, *args: Any, **kwargs: Any) -> tuple[str, str]:
            nonlocal compiled
            if compiled is None:
                compiled = QuartRule._compile_builder(rule, append_unknown).__get__(rule, None)
            return compiled(*args, **kwargs)

        return build
