"""Load workflow and hook definitions from YAML files.

A *source* is a directory. Workflow files live under ``<root>/workflows`` and
hook files under ``<root>/hooks`` (both searched recursively, ``.yaml`` and
``.yml``, in sorted order). The engine reads two sources, later ones
overriding earlier ones by workflow id:

* ``<state_dir>/builtin_workflows`` (kind ``built_in``; YAML files placed
  directly in this directory are read as well),
* ``<workspace>/.svc`` (kind ``workspace``), i.e. ``<workspace>/.svc/workflows``.

The file format is parsed by :mod:`svc.workflows.definition_parser`.

Loading never stops at a broken file: a YAML syntax error or a malformed
definition becomes an ``error`` :class:`ValidationMessage` naming the file and
line, the file is skipped, and everything else loads.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import attrs

from .definitions import (
    SourceKind,
    ValidationMessage,
    WorkflowHook,
    WorkflowRegistry,
    WorkflowSourceRef,
    WorkflowSpec,
)
from .yaml_lines import DefinitionError

YAML_SUFFIXES = (".yaml", ".yml")


@attrs.frozen
class LoadSource:
    root: Path
    kind: SourceKind
    pack_id: str | None = None
    top_level_files: bool = False
    """Also read YAML files placed directly in ``root`` (the built-in directory)."""


@attrs.frozen
class LoadResult:
    registry: WorkflowRegistry
    messages: tuple[ValidationMessage, ...]
    files: tuple[str, ...]
    """Every file read, in order (for change detection and reporting)."""


def load_registry(sources: Iterable[LoadSource]) -> LoadResult:
    """Read every source in order; later definitions of a workflow id replace earlier ones."""
    workflows: dict[str, WorkflowSpec] = {}
    hooks: list[WorkflowHook] = []
    messages: list[ValidationMessage] = []
    files: list[str] = []
    for source in sources:
        for path, role in _source_files(source):
            files.append(str(path))
            ref = WorkflowSourceRef(kind=source.kind, path=str(path), pack_id=source.pack_id)
            try:
                spec, standalone = _read_definition_file(path, ref, role)
            except DefinitionError as exc:
                messages.append(
                    ValidationMessage(
                        "error",
                        f"{path}: {exc.message}",
                        source_path=str(path),
                        field=exc.field,
                        line=exc.line,
                        column=exc.column,
                    )
                )
                continue
            except (OSError, UnicodeDecodeError) as exc:
                messages.append(
                    ValidationMessage(
                        "error", f"{path}: cannot read file: {exc}", source_path=str(path)
                    )
                )
                continue
            if spec is not None:
                previous = workflows.get(spec.workflow_id)
                if previous is not None:
                    # The replaced definition's own hooks go with it; standalone hook files stay.
                    hooks = [
                        h
                        for h in hooks
                        if not (
                            h.workflow_id == spec.workflow_id
                            and h.source is not None
                            and h.source.path == previous.source_path
                        )
                    ]
                    messages.append(
                        ValidationMessage(
                            "info",
                            f"workflow `{spec.workflow_id}` from {path} overrides "
                            f"{previous.source_path}",
                            source_path=str(path),
                            workflow_id=spec.workflow_id,
                        )
                    )
                workflows[spec.workflow_id] = spec
                hooks.extend(spec.hooks)
            hooks.extend(standalone)
    registry = WorkflowRegistry(workflows=workflows, hooks=tuple(hooks)).with_hook_overrides({})
    return LoadResult(registry=registry, messages=tuple(messages), files=tuple(files))


def _read_definition_file(
    path: Path, ref: WorkflowSourceRef, role: str
) -> tuple[WorkflowSpec | None, list[WorkflowHook]]:
    # The parser is imported with the first definition file: start-up on a fresh workspace
    # reads none (docs/architecture.md, "Start-up budget").
    from .definition_parser import parse_definition_file
    from .yaml_lines import parse_yaml

    text = path.read_text(encoding="utf-8")
    return parse_definition_file(parse_yaml(text), path, ref, role=role)


def source_files(sources: Iterable[LoadSource]) -> list[tuple[str, int, int]]:
    """``(path, mtime_ns, size)`` of every definition file: a cheap change fingerprint."""
    found = []
    for source in sources:
        for path, _role in _source_files(source):
            try:
                stat = path.stat()
            except OSError:
                continue
            found.append((str(path), stat.st_mtime_ns, stat.st_size))
    return found


def _source_files(source: LoadSource) -> Iterator[tuple[Path, str]]:
    if source.top_level_files and source.root.is_dir():
        for path in sorted(source.root.iterdir()):
            if path.is_file() and path.suffix in YAML_SUFFIXES:
                yield path, "any"
    for path in _yaml_files(source.root / "workflows"):
        yield path, "workflow"
    for path in _yaml_files(source.root / "hooks"):
        yield path, "hooks"


def _yaml_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.rglob("*") if p.is_file() and p.suffix in YAML_SUFFIXES)


__all__ = ["LoadResult", "LoadSource", "load_registry", "source_files"]
