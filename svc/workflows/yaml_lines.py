"""YAML documents that remember where things are: a line for every mapping, key and item.

Workflow and hook files are parsed with a safe loader that records the line where each
mapping, key and sequence item starts (so a malformed definition is reported at its line),
refuses duplicate keys, and reads only ``true``/``false`` as booleans (YAML 1.2).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml


class DefinitionError(Exception):
    """A malformed definition; ``line`` and ``column`` are 1-based when known."""

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.field = field
        self.column = column


class _Map(dict[str, Any]):
    line: int | None = None
    key_lines: dict[str, int]


class _Seq(list[Any]):
    line: int | None = None
    item_lines: list[int]


@functools.cache
def _line_loader() -> type[Any]:
    """A safe loader that remembers where each mapping and sequence starts, and refuses duplicate
    keys.

    Built (and PyYAML imported) on first use: definitions are parsed only when
    workflow files exist, and the import is a noticeable share of engine start-up.
    """
    import yaml

    class LineLoader(yaml.SafeLoader):
        pass

    LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
    # YAML 1.2 booleans: only true/false. YAML 1.1 also reads yes/no/on/off as
    # booleans, which silently turns an id such as `off` or an event named `on`
    # into False; those stay strings here.
    LineLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    LineLoader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )
    return LineLoader


def _construct_mapping(loader: Any, node: yaml.MappingNode) -> _Map:
    loader.flatten_mapping(node)
    result = _Map()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str | int | float | bool) and key is not None:
            raise DefinitionError(
                "mapping keys must be plain values", line=key_node.start_mark.line + 1
            )
        key = str(key)
        if key in result:
            raise DefinitionError(
                f"duplicate key `{key}`", line=key_node.start_mark.line + 1, field=key
            )
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: Any, node: yaml.SequenceNode) -> _Seq:
    result = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


def parse_yaml(text: str) -> Any:
    """Parse one YAML document; raise :class:`DefinitionError` with the line of a syntax error."""
    loader = _line_loader()
    import yaml  # loaded by _line_loader

    try:
        return yaml.load(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        raise DefinitionError(f"invalid YAML: {problem}", line=line, column=column) from None
    except yaml.YAMLError as exc:
        raise DefinitionError(f"invalid YAML: {exc}") from None


def line_of(value: Any) -> int | None:
    return getattr(value, "line", None)


def key_line(mapping: Any, key: Any) -> int | None:
    """The line of ``key`` in ``mapping`` (else where the mapping starts)."""
    lines = getattr(mapping, "key_lines", None)
    return lines[key] if lines and key in lines else line_of(mapping)


def item_line(sequence: Any, index: int) -> int | None:
    """The line of item ``index`` of ``sequence`` (else where the sequence starts)."""
    lines = getattr(sequence, "item_lines", None)
    return lines[index] if lines and index < len(lines) else line_of(sequence)


def plain(value: Any) -> Any:
    """Line-tracking containers back to plain JSON-shaped values."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


__all__ = ["DefinitionError", "item_line", "key_line", "line_of", "parse_yaml", "plain"]
