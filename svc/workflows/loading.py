"""Load workflow and hook definitions from YAML files.

A *source* is a directory. Workflow files live under ``<root>/workflows`` and
hook files under ``<root>/hooks`` (both searched recursively, ``.yaml`` and
``.yml``, in sorted order). The engine reads two sources, later ones
overriding earlier ones by workflow id:

* ``<state_dir>/builtin_workflows`` (kind ``built_in``; YAML files placed
  directly in this directory are read as well),
* ``<workspace>/.svc`` (kind ``workspace``), i.e. ``<workspace>/.svc/workflows``.

A workflow file::

    workflow:
      id: build_feature            # or workflow_id; default: the file name
      name: Build Feature
      description: ...
      enabled: true
      automation_id: nightly       # optional: running the workflow runs this automation v2
      steps:
        - planner                  # a bare action (step id step_1)
        - id: verify
          action: tool:read
          with: {path: README.md}
      hooks:                       # event -> actions, or a list of bindings
        task_created:
          - kanban.update
          - action: event:team.notified
            with: {channel: eng}

A hook file holds ``hooks:`` as a list of ``{id?, workflow, event, enabled?, actions}``.

Loading never stops at a broken file: a YAML syntax error or a malformed
definition becomes an ``error`` :class:`ValidationMessage` naming the file and
line, the file is skipped, and everything else loads.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from .definitions import (
    SourceKind,
    ValidationMessage,
    WorkflowAction,
    WorkflowHook,
    WorkflowRegistry,
    WorkflowSourceRef,
    WorkflowSpec,
    WorkflowStep,
)

if TYPE_CHECKING:
    import yaml

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


class DefinitionError(Exception):
    """A malformed definition; ``line`` is 1-based when known."""

    def __init__(self, message: str, *, line: int | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.field = field


# ---------------------------------------------------------------- YAML with lines
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
        error = DefinitionError(f"invalid YAML: {problem}", line=line)
        error.column = column  # type: ignore[attr-defined]
        raise error from None
    except yaml.YAMLError as exc:
        raise DefinitionError(f"invalid YAML: {exc}") from None


def _line(value: Any) -> int | None:
    return getattr(value, "line", None)


def _key_line(mapping: Any, key: Any) -> int | None:
    """The line of ``key`` in ``mapping`` (else where the mapping starts)."""
    lines = getattr(mapping, "key_lines", None)
    return lines[key] if lines and key in lines else _line(mapping)


def _item_line(sequence: Any, index: int) -> int | None:
    """The line of item ``index`` of ``sequence`` (else where the sequence starts)."""
    lines = getattr(sequence, "item_lines", None)
    return lines[index] if lines and index < len(lines) else _line(sequence)


# ---------------------------------------------------------------- loading
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
                text = path.read_text(encoding="utf-8")
                spec, standalone = _workflow_file(parse_yaml(text), path, ref, role=role)
            except DefinitionError as exc:
                messages.append(
                    ValidationMessage(
                        "error",
                        f"{path}: {exc.message}",
                        source_path=str(path),
                        field=exc.field,
                        line=exc.line,
                        column=getattr(exc, "column", None),
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


def _workflow_file(
    document: Any, path: Path, ref: WorkflowSourceRef, *, role: str
) -> tuple[WorkflowSpec | None, list[WorkflowHook]]:
    """A file's workflow (if any) and its standalone hook bindings.

    ``role`` is ``workflow`` (under ``workflows/``), ``hooks`` (under ``hooks/``)
    or ``any`` (a top-level file: a workflow when it has a ``workflow`` key).
    """
    if document is None:
        raise DefinitionError("the file is empty")
    if not isinstance(document, Mapping):
        raise DefinitionError(
            "the document must be a mapping with a `workflow` or `hooks` key", line=_line(document)
        )
    unknown = sorted(set(document) - {"workflow", "hooks"})
    if unknown:
        raise DefinitionError(
            f"unknown top-level key `{unknown[0]}` (expected `workflow` or `hooks`)",
            line=_key_line(document, unknown[0]),
            field=unknown[0],
        )
    if role == "hooks" or (role == "any" and "workflow" not in document):
        if "workflow" in document:
            raise DefinitionError(
                "a hook file holds only `hooks`; put workflows under `workflows/`",
                line=_key_line(document, "workflow"),
                field="workflow",
            )
        if "hooks" not in document:
            raise DefinitionError("a hook file needs a `hooks` key", line=_line(document))
        return None, _hooks(
            document["hooks"],
            default_workflow="",
            ref=ref,
            field="hooks",
            line=_key_line(document, "hooks"),
        )
    if "workflow" not in document:
        raise DefinitionError("missing `workflow` key", line=_line(document))
    spec = _workflow(
        document["workflow"],
        path,
        ref,
        top_hooks=document.get("hooks"),
        line=_key_line(document, "workflow"),
        hooks_line=_key_line(document, "hooks"),
    )
    return spec, []


_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


def _workflow(
    raw: Any,
    path: Path,
    ref: WorkflowSourceRef,
    *,
    top_hooks: Any,
    line: int | None,
    hooks_line: int | None,
) -> WorkflowSpec:
    if not isinstance(raw, Mapping):
        raise DefinitionError(
            "`workflow` must be a mapping", line=_line(raw) or line, field="workflow"
        )
    allowed = {
        "id",
        "workflow_id",
        "name",
        "description",
        "enabled",
        "steps",
        "hooks",
        "automation_id",
    }
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise DefinitionError(
            f"unknown key `workflow.{unknown[0]}`",
            line=_key_line(raw, unknown[0]),
            field=f"workflow.{unknown[0]}",
        )
    workflow_id = (
        _opt_str(raw, "workflow_id", "workflow") or _opt_str(raw, "id", "workflow") or path.stem
    )
    workflow_id = workflow_id.strip()
    if not _ID.match(workflow_id):
        raise DefinitionError(
            f"workflow id `{workflow_id}` must start with a letter or digit and use only letters, "
            "digits, `_`, `.`, `-`",
            line=_key_line(raw, "workflow_id" if "workflow_id" in raw else "id"),
            field="workflow.id",
        )
    name = (_opt_str(raw, "name", "workflow") or workflow_id).strip() or workflow_id
    description = _opt_str(raw, "description", "workflow")
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        raise DefinitionError(
            "`workflow.enabled` must be true or false",
            line=_key_line(raw, "enabled"),
            field="workflow.enabled",
        )
    automation_id = _opt_str(raw, "automation_id", "workflow")
    steps = _steps(raw.get("steps"), line=_key_line(raw, "steps"))
    if raw.get("hooks") is not None:
        hooks_raw, hooks_line = raw.get("hooks"), _key_line(raw, "hooks")
    else:
        hooks_raw = top_hooks
    hooks = _hooks(
        hooks_raw, default_workflow=workflow_id, ref=ref, field="workflow.hooks", line=hooks_line
    )
    for hook in hooks:
        if hook.workflow_id != workflow_id:
            raise DefinitionError(
                f"hook `{hook.binding_id}` inside workflow `{workflow_id}` names another workflow "
                f"`{hook.workflow_id}`; put it in a hook file instead",
                line=hook.line,
                field="workflow.hooks",
            )
    return WorkflowSpec(
        workflow_id=workflow_id,
        name=name,
        description=description,
        enabled=enabled,
        steps=tuple(steps),
        hooks=tuple(hooks),
        source=ref,
        automation_id=automation_id.strip() if automation_id else None,
        line=_line(raw),
    )


def _opt_str(raw: Mapping[str, Any], key: str, where: str) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise DefinitionError(
            f"`{where}.{key}` must be a string", line=_key_line(raw, key), field=f"{where}.{key}"
        )
    return str(value)


def _steps(raw: Any, *, line: int | None) -> list[WorkflowStep]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise DefinitionError(
            "`workflow.steps` must be a list", line=_line(raw) or line, field="workflow.steps"
        )
    steps = []
    for index, item in enumerate(raw):
        field = f"workflow.steps[{index}]"
        default_id = f"step_{index + 1}"
        if isinstance(item, str):
            steps.append(
                WorkflowStep(step_id=default_id, action=item.strip(), line=_item_line(raw, index))
            )
            continue
        if not isinstance(item, Mapping):
            raise DefinitionError(
                f"`{field}` must be an action name or a mapping",
                line=_item_line(raw, index),
                field=field,
            )
        unknown = sorted(set(item) - {"id", "step_id", "action", "with"})
        if unknown:
            raise DefinitionError(
                f"unknown key `{field}.{unknown[0]}`",
                line=_key_line(item, unknown[0]),
                field=f"{field}.{unknown[0]}",
            )
        action = item.get("action")
        if not isinstance(action, str):
            raise DefinitionError(
                f"`{field}.action` is required and must be a string",
                line=_key_line(item, "action"),
                field=f"{field}.action",
            )
        step_id = _opt_str(item, "step_id", field) or _opt_str(item, "id", field) or default_id
        steps.append(
            WorkflowStep(
                step_id=step_id.strip(),
                action=action.strip(),
                with_=_plain(item.get("with")),
                line=_line(item),
            )
        )
    return steps


def _action(item: Any, field: str, line: int | None) -> WorkflowAction:
    if isinstance(item, str):
        return WorkflowAction(item.strip())
    if not isinstance(item, Mapping):
        raise DefinitionError(
            f"`{field}` must be an action name or a mapping", line=line, field=field
        )
    unknown = sorted(set(item) - {"action", "with"})
    if unknown:
        raise DefinitionError(
            f"unknown key `{field}.{unknown[0]}`",
            line=_key_line(item, unknown[0]),
            field=f"{field}.{unknown[0]}",
        )
    action = item.get("action")
    if not isinstance(action, str):
        raise DefinitionError(
            f"`{field}.action` is required and must be a string",
            line=_key_line(item, "action"),
            field=f"{field}.action",
        )
    return WorkflowAction(action.strip(), _plain(item.get("with")))


def _actions(raw: Any, field: str, line: int | None) -> tuple[WorkflowAction, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise DefinitionError(
            f"`{field}` must be a list of actions", line=_line(raw) or line, field=field
        )
    return tuple(_action(item, f"{field}[{i}]", _item_line(raw, i)) for i, item in enumerate(raw))


def normalize_ident(text: str) -> str:
    return re.sub(r"[\s/.]+", "_", text.strip().lower())


def _hooks(
    raw: Any,
    *,
    default_workflow: str,
    ref: WorkflowSourceRef,
    field: str,
    line: int | None = None,
) -> list[WorkflowHook]:
    if raw is None:
        return []
    prefix = default_workflow or "workflow"
    hooks: list[WorkflowHook] = []
    if isinstance(raw, Mapping):
        for key, actions in raw.items():
            event = str(key).strip()
            event_line = _key_line(raw, key)
            if not event:
                raise DefinitionError(
                    f"`{field}` has an empty event name", line=event_line, field=field
                )
            hooks.append(
                WorkflowHook(
                    binding_id=f"{prefix}.{normalize_ident(event)}",
                    workflow_id=default_workflow,
                    event=event,
                    enabled=True,
                    actions=_actions(actions, f"{field}.{event}", event_line),
                    source=ref,
                    line=event_line,
                )
            )
        return hooks
    if not isinstance(raw, list):
        raise DefinitionError(
            f"`{field}` must be a mapping of event to actions or a list of bindings",
            line=_line(raw) or line,
            field=field,
        )
    for index, item in enumerate(raw):
        where = f"{field}[{index}]"
        if not isinstance(item, Mapping):
            raise DefinitionError(
                f"`{where}` must be a mapping", line=_item_line(raw, index), field=where
            )
        allowed = {"id", "binding_id", "workflow", "workflow_id", "event", "enabled", "actions"}
        unknown = sorted(set(item) - allowed)
        if unknown:
            raise DefinitionError(
                f"unknown key `{where}.{unknown[0]}`",
                line=_key_line(item, unknown[0]),
                field=f"{where}.{unknown[0]}",
            )
        raw_event = item.get("event")
        if not isinstance(raw_event, str) or not raw_event.strip():
            raise DefinitionError(
                f"`{where}.event` is required",
                line=_key_line(item, "event"),
                field=f"{where}.event",
            )
        event = raw_event
        workflow_id = (
            _opt_str(item, "workflow_id", where)
            or _opt_str(item, "workflow", where)
            or default_workflow
        ).strip()
        if not workflow_id:
            raise DefinitionError(
                f"`{where}.workflow` is required in a hook file",
                line=_line(item),
                field=f"{where}.workflow",
            )
        enabled = item.get("enabled", True)
        if not isinstance(enabled, bool):
            raise DefinitionError(
                f"`{where}.enabled` must be true or false",
                line=_key_line(item, "enabled"),
                field=f"{where}.enabled",
            )
        binding_id = (
            _opt_str(item, "binding_id", where)
            or _opt_str(item, "id", where)
            or f"{workflow_id}.{normalize_ident(event)}"
        ).strip()
        hooks.append(
            WorkflowHook(
                binding_id=binding_id,
                workflow_id=workflow_id,
                event=event.strip(),
                enabled=enabled,
                actions=_actions(item.get("actions"), f"{where}.actions", _line(item)),
                source=ref,
                line=_line(item),
            )
        )
    return hooks


def _plain(value: Any) -> Any:
    """Line-tracking containers back to plain JSON-shaped values."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


__all__ = [
    "DefinitionError",
    "LoadResult",
    "LoadSource",
    "load_registry",
    "normalize_ident",
    "parse_yaml",
    "source_files",
]
