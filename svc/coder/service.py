"""Coder projects: bindings, the repohost project inbox, and intake of project items.

A project binds a repo (its workspace) and, optionally, a repohost project
board reached through a connected MCP server (:mod:`.board`); binding the board
discovers its schema live and maps its Status options by aliases
(:mod:`.schema`). Intake of a TODO item creates a **coder run**: a session in the
bound workspace whose run has the issue as its objective. The item's status
follows the run: In Progress when it starts, In Review when it completes,
Blocked when it fails or is cancelled. Intake is serialized per project (one
turn of ``serial``), so an item never gets two live runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from actors import SerialByKey

from ..convert import converter
from ..errors import ValidationFailed
from . import board
from .errors import (
    BindingNotFound,
    ItemNotFound,
    ItemNotIssue,
    ItemNotTodo,
    ProjectBindingRequired,
    RepoBindingRequired,
)
from .records import CoderBinding, CoderRun, ProjectBinding, RepoBinding
from .repository import CoderBindingRepository, CoderRunRepository
from .schema import expected_state, fingerprint, status_mapping

if TYPE_CHECKING:
    from ..engine import Engine

TOPIC = "coder"
PARENT_MARKERS = ("[aca slice parent]", "slice parent")


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RepoBindingRequired(f"`{field}` is required", field=field)
    return value.strip()


def parse_repo_binding(value: Any) -> RepoBinding:
    if not isinstance(value, dict):
        raise RepoBindingRequired(field="repo_binding")
    root = _text(value.get("workspace_root"), "repo_binding.workspace_root")
    if not Path(root).is_absolute() or not Path(root).is_dir():
        raise RepoBindingRequired(
            f"`repo_binding.workspace_root` {root} is not a directory",
            field="repo_binding.workspace_root",
        )
    branch = value.get("default_branch")
    return RepoBinding(
        workspace_id=_text(value.get("workspace_id"), "repo_binding.workspace_id"),
        workspace_root=root,
        repo_slug=_text(value.get("repo_slug"), "repo_binding.repo_slug"),
        default_branch=branch if isinstance(branch, str) and branch.strip() else None,
    )


class CoderService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.bindings = CoderBindingRepository(engine.store)
        self.runs = CoderRunRepository(engine.store)
        self.serial = SerialByKey()

    # ------------------------------------------------------------------ bindings
    async def get_binding(self, project_id: str) -> dict[str, Any]:
        found = await self.bindings.get(project_id)
        return {"binding": converter.unstructure(found) if found else None}

    async def put_binding(self, project_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        body = _project_binding_key(body)
        if "repo_binding" not in body and "repohost_project_binding" not in body:
            body = {"repo_binding": dict(body)}
        async with self.serial.turn(("binding", project_id)):
            existing = await self.bindings.get(project_id)
            if body.get("repo_binding") is not None:
                repo = parse_repo_binding(body["repo_binding"])
            elif existing is not None:
                repo = existing.repo_binding
            else:
                raise RepoBindingRequired(field="repo_binding")
            project = existing.repohost_project_binding if existing else None
            if body.get("repohost_project_binding") is not None:
                project = await self._discover(body["repohost_project_binding"], repo)
            binding = CoderBinding(
                project_id=project_id,
                repo_binding=repo,
                repohost_project_binding=project,
                updated_at_ms=self.engine.clock.now_ms(),
            )
            await self.bindings.put(binding)
        return {"ok": True, "binding": converter.unstructure(binding)}

    async def _discover(self, value: Any, repo: RepoBinding) -> ProjectBinding:
        if not isinstance(value, dict):
            raise ValidationFailed(
                "`repohost_project_binding` must be an object", field="repohost_project_binding"
            )
        owner = value.get("owner")
        number = value.get("project_number")
        if not isinstance(owner, str) or not owner.strip():
            raise ValidationFailed("`owner` is required", field="repohost_project_binding.owner")
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise ValidationFailed(
                "`project_number` must be a positive integer",
                field="repohost_project_binding.project_number",
            )
        preferred = value.get("mcp_server") if isinstance(value.get("mcp_server"), str) else None
        server = board.find_server(self.engine.mcp, preferred)
        schema = await board.get_project(self.engine.mcp, server, owner.strip(), number)
        slug = value.get("repo_slug")
        return ProjectBinding(
            owner=owner.strip(),
            project_number=number,
            repo_slug=slug if isinstance(slug, str) and slug.strip() else repo.repo_slug,
            mcp_server=server,
            schema_snapshot=schema,
            schema_fingerprint=fingerprint(schema),
            status_mapping=status_mapping(schema),
        )

    async def _project(self, project_id: str) -> tuple[CoderBinding, ProjectBinding]:
        binding = await self.bindings.get(project_id)
        if binding is None:
            raise BindingNotFound(project_id=project_id)
        if binding.repohost_project_binding is None:
            raise ProjectBindingRequired()
        return binding, binding.repohost_project_binding

    # ------------------------------------------------------------------ inbox
    async def inbox(self, project_id: str) -> dict[str, Any]:
        _, project = await self._project(project_id)
        mcp = self.engine.mcp
        live = await board.get_project(
            mcp, project.mcp_server, project.owner, project.project_number
        )
        live_fingerprint = fingerprint(live)
        drift = live_fingerprint != project.schema_fingerprint
        items = await board.list_items(
            mcp, project.mcp_server, project.owner, project.project_number
        )
        linked = _latest_runs(await self.runs.of_project(project_id))
        return {
            "project_id": project_id,
            "binding": converter.unstructure(project),
            "schema_drift": drift,
            "live_schema_fingerprint": live_fingerprint,
            "todo_mapping": converter.unstructure(project.status_mapping.todo),
            "items": [_item_wire(project, item, linked.get(item.id), drift) for item in items],
        }

    # ------------------------------------------------------------------ intake
    async def intake(self, project_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        item_id = body.get("project_item_id")
        if not isinstance(item_id, str) or not item_id.strip():
            raise ValidationFailed("`project_item_id` is required", field="project_item_id")
        item_id = item_id.strip()
        source = body.get("source_client") if isinstance(body.get("source_client"), str) else None
        async with self.serial.turn(("intake", project_id)):
            binding, project = await self._project(project_id)
            live = _latest_runs(await self.runs.of_project(project_id)).get(item_id)
            if live is not None and live.active:
                return {"ok": True, "deduped": True, **await self._payload(live)}
            mcp = self.engine.mcp
            items = await board.list_items(
                mcp, project.mcp_server, project.owner, project.project_number
            )
            item = next((i for i in items if i.id == item_id), None)
            if item is None:
                raise ItemNotFound(project_item_id=item_id)
            if item.issue is None:
                raise ItemNotIssue(project_item_id=item_id)
            todo = project.status_mapping.todo
            if item.status_option_id != todo.id and item.status_name != todo.name:
                raise ItemNotTodo(status_name=item.status_name)
            run = await self._start(binding, project, item, source)
        return {"ok": True, "deduped": False, **await self._payload(run)}

    async def _start(
        self, binding: CoderBinding, project: ProjectBinding, item: board.BoardItem, source: Any
    ) -> CoderRun:
        from .records import CoderStep
        from .runs import new_run_id, start_step

        issue = item.issue or {}
        number = issue.get("number")
        url = issue.get("url") or issue.get("html_url")
        objective = (
            f"Resolve issue #{number} of {binding.repo_binding.repo_slug}: "
            f"{issue.get('title') or item.title}\n{url or ''}"
        ).strip()
        now = self.engine.clock.now_ms()
        run = CoderRun(
            coder_run_id=new_run_id(),
            project_id=binding.project_id,
            source_client=source,
            objective=objective,
            project_item_id=item.id,
            repohost_project_ref={
                "owner": project.owner,
                "project_number": project.project_number,
                "project_item_id": item.id,
                "issue_number": number,
                "issue_url": url,
                "schema_fingerprint": project.schema_fingerprint,
                "status_mapping": converter.unstructure(project.status_mapping),
            },
            repo_binding=binding.repo_binding,
            repohost_ref={"kind": "issue", "number": number, "url": url},
            steps=(CoderStep(step_id="resolve", title="Resolve the issue", prompt=objective),),
            created_at_ms=now,
            updated_at_ms=now,
        )
        await self.runs.put(run)
        async with self.serial.turn(("run", run.coder_run_id)):
            return await start_step(self, run)

    async def save(self, run: CoderRun) -> CoderRun:
        """Store the run and announce it; a run linked to a project item also moves the
        item's status on the board to the one the run's status expects."""
        if run.project_item_id is not None:
            binding = await self.bindings.get(run.project_id)
            if binding is not None and binding.repohost_project_binding is not None:
                return await self._sync(run, binding.repohost_project_binding)
        await self.runs.put(run)
        self._announce(run)
        return run

    def _announce(self, run: CoderRun) -> None:
        self.engine.events.publish(
            "coder.run.updated",
            {
                "coder_run_id": run.coder_run_id,
                "status": run.status,
                "phase": run.phase,
                "remote_sync_state": run.remote_sync_state,
            },
            topic=TOPIC,
        )

    async def _sync(self, run: CoderRun, project: ProjectBinding) -> CoderRun:
        """Set the item's status to the one the run's status expects; record the outcome."""
        from ..errors import SvcError

        option = getattr(project.status_mapping, expected_state(run.status))
        state = "in_sync"
        try:
            await board.set_status(
                self.engine.mcp,
                project.mcp_server,
                project.owner,
                project.project_number,
                item_id=run.project_item_id or "",
                field_id=project.status_mapping.field_id,
                option_id=option.id,
            )
        except SvcError:
            # The board refused or is unreachable: the run goes on, and the
            # inbox shows the item as diverged until a later sync succeeds.
            state = "remote_state_diverged"
        run = attrs.evolve(run, remote_sync_state=state)
        await self.runs.put(run)
        self._announce(run)
        return run

    async def _payload(self, run: CoderRun) -> dict[str, Any]:
        from .runs import run_wire

        session_run = await self.engine.sessions.repo.get_run(run.run_id) if run.run_id else None
        return {
            "coder_run": run_wire(run),
            "run": session_run.to_wire() if session_run is not None else None,
        }

    async def payload(self, run: CoderRun) -> dict[str, Any]:
        return await self._payload(run)


def _project_binding_key(body: Mapping[str, Any]) -> Mapping[str, Any]:
    """Accept the project board binding under any ``<host>_project_binding`` key (clients
    spell the code host's name there); it is stored as ``repohost_project_binding``."""
    if "repohost_project_binding" in body:
        return body
    for key in body:
        if key.endswith("_project_binding") and key != "repo_binding":
            rest = {k: v for k, v in body.items() if k != key}
            return {**rest, "repohost_project_binding": body[key]}
    return body


def _latest_runs(runs: list[CoderRun]) -> dict[str, CoderRun]:
    latest: dict[str, CoderRun] = {}
    for run in runs:  # oldest first: the last one wins
        if run.project_item_id is not None:
            latest[run.project_item_id] = run
    return latest


def _item_wire(
    project: ProjectBinding, item: board.BoardItem, run: CoderRun | None, drift: bool
) -> dict[str, Any]:
    mapping = project.status_mapping
    title = item.title.lower()
    parent = any(marker in title for marker in PARENT_MARKERS)
    is_todo = item.status_option_id == mapping.todo.id or item.status_name == mapping.todo.name
    actionable = item.issue is not None and not parent and is_todo and not (run and run.active)
    if drift:
        sync = "schema_drift"
    elif run is not None:
        expected = getattr(mapping, expected_state(run.status))
        sync = "in_sync" if item.status_option_id == expected.id else "remote_state_diverged"
    else:
        sync = "in_sync"
    issue = item.issue
    wire: dict[str, Any] = {
        "project_item_id": item.id,
        "title": item.title,
        "status_name": item.status_name or "",
        "status_option_id": item.status_option_id,
        "issue": issue,
        "issue_number": issue.get("number") if issue else None,
        "issue_url": (issue.get("url") or issue.get("html_url")) if issue else None,
        "is_parent": parent,
        "blocked_by": [],
        "scheduler_rank": 0 if actionable else None,
        "runnable_now": actionable,
        "launch_state": "parent" if parent else "next" if actionable else "waiting",
        "actionable": actionable,
        "unsupported_reason": None if issue else "unsupported_item_type",
        "remote_sync_state": sync,
    }
    if run is not None:
        wire["run_state"] = run.status
        wire["active_run_id"] = run.coder_run_id if run.active else None
        from .runs import run_wire

        wire["linked_run"] = {"coder_run": run_wire(run), "active": run.active}
    return wire


__all__ = ["TOPIC", "CoderService", "parse_repo_binding"]
