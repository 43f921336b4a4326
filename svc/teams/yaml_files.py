"""Reading the team's YAML files with errors that point at the file and line.

A syntax error names the line and column the parser stopped at; a schema error
(a wrong type, an unknown role) names the field and the line where that field
is written, so the person editing the file knows where to look.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..convert import structure
from ..errors import ValidationFailed
from .errors import TeamConfigInvalid

if TYPE_CHECKING:
    import yaml

T = TypeVar("T")

_SEGMENT = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


def read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    """The document in ``path`` and its node tree (for line numbers); None/None when empty."""
    # PyYAML is imported on first use: the files are read only when a team is
    # configured, and the import is a noticeable share of engine start-up.
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TeamConfigInvalid(
            f"{path}: cannot read the file: {exc.strerror}", file=str(path)
        ) from None
    except UnicodeDecodeError:
        raise TeamConfigInvalid(f"{path}: the file is not UTF-8 text", file=str(path)) from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        where = f" line {line}, column {column}" if line is not None else ""
        problem = exc.problem or exc.context or "invalid YAML"
        raise TeamConfigInvalid(
            f"{path}:{where}: {problem}", file=str(path), line=line, column=column
        ) from None
    except yaml.YAMLError as exc:
        raise TeamConfigInvalid(f"{path}: invalid YAML: {exc}", file=str(path)) from None
    finally:
        loader.dispose()
    return data, node


def structure_document(cls: type[T], data: Any, node: yaml.Node | None, path: Path) -> T:
    """``data`` structured into ``cls``; a schema error names the file, field and line."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        line = node.start_mark.line + 1 if node is not None else None
        raise TeamConfigInvalid(
            f"{path}: the document must be a mapping of keys to values", file=str(path), line=line
        )
    try:
        return structure(cls, data, what=str(path))
    except ValidationFailed as exc:
        field = str(exc.extra.get("field") or "$")
        line = line_of(node, field)
        where = f" line {line}:" if line is not None else ""
        raise TeamConfigInvalid(
            f"{path}:{where} {exc.message}", file=str(path), line=line, field=field
        ) from None


def line_of(node: yaml.Node | None, field: str) -> int | None:
    """The 1-based line where ``field`` (``spawn_edges[worker].behavior``) is written, best effort.

    Fields are matched to keys directly or by their camelCase spelling
    (``template_id`` is written ``templateID``); when a step cannot be found,
    the line of the deepest node found is returned.
    """
    if node is None:
        return None
    current = node
    for name, key in _SEGMENT.findall(field):
        step = name or key
        found = _child(current, step)
        if found is None:
            break
        current = found
    return current.start_mark.line + 1


def _child(node: yaml.Node, step: str) -> yaml.Node | None:
    import yaml  # already loaded: a node exists

    if isinstance(node, yaml.MappingNode):
        wanted = _squash(step)
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and _squash(str(key.value)) == wanted:
                return value
        return None
    if isinstance(node, yaml.SequenceNode) and step.isdigit():
        index = int(step)
        return node.value[index] if index < len(node.value) else None
    return None


def _squash(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


__all__ = ["line_of", "read_yaml", "structure_document"]
