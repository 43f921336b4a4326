"""Agent teams: ``/agent-team/...`` (SPEC §4.6). Parse, delegate to ``engine.teams``, format.

Every failure body carries ``ok: false`` with ``code`` and ``error``. A spawn
that needs a human's approval is not an HTTP error: it is 200 with
``ok: false, code: spawn_requires_approval, requiresUserApproval: true``.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import attrs
from quart import Blueprint

from ...convert import aliases, structure
from ...errors import Forbidden, SvcError, ValidationFailed
from ...teams import INSTANCE_STATUSES, BudgetSpec, Role
from ...teams.schema import SpawnSource
from ..request import engine, header, json_body, object_body, query_str

if TYPE_CHECKING:
    from ...teams import Instance, SpawnResult

# Templates, spawn requests and run requests are imported by the handlers that build them:
# start-up parses none (docs/architecture.md, "Start-up budget").

bp = Blueprint("teams", __name__)


def _teams_route(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Render errors in the agent-team shape (``ok: false`` next to ``code`` and ``error``)."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return await fn(*args, **kwargs)
        except SvcError as exc:
            body = exc.to_body()
            body.setdefault("ok", False)
            return body, exc.status

    return wrapper


def _human() -> None:
    # Agents must not decide their own spawn approvals.
    if header("x-svc-agent-id"):
        raise Forbidden("agents cannot decide agent-team approvals", code="TENANT_CONTEXT_DENIED")


@attrs.frozen
class SpawnBody:
    role: Role
    mission_id: str | None = aliases("missionID", "missionId", default=None)
    parent_instance_id: str | None = aliases("parentInstanceID", "parentInstanceId", default=None)
    template_id: str | None = aliases("templateID", "templateId", default=None)
    source: SpawnSource = "ui_action"
    justification: str = ""
    budget_override: BudgetSpec | None = aliases("budgetOverride", default=None)
    prompt: str | None = None


@attrs.frozen
class ReasonBody:
    reason: str | None = None


@attrs.frozen
class PromptBody:
    parts: list[Any] | None = None
    text: str | None = None
    system: str | None = None


async def _reason() -> str | None:
    body = structure(ReasonBody, await json_body())
    return body.reason.strip() if body.reason and body.reason.strip() else None


def _optional_id(value: str | None, field: str) -> str | None:
    if value is not None and not value.strip():
        raise ValidationFailed(f"`{field}` must not be empty", field=field)
    return value.strip() if value else None


# ------------------------------------------------------------------ templates
@bp.get("/agent-team/templates")
@_teams_route
async def list_templates() -> Any:
    templates = await engine().teams.templates()
    return {"templates": [t.to_wire() for t in templates], "count": len(templates)}


@bp.post("/agent-team/templates")
@_teams_route
async def create_template() -> Any:
    from ...teams import AgentTemplate

    body = await object_body()
    raw = body.get("template", body)
    template = structure(AgentTemplate, raw, what="template")
    if not template.template_id.strip():
        raise ValidationFailed(
            "`templateID` must not be empty",
            field="template.templateID",
            code="INVALID_TEMPLATE_ID",
        )
    saved = await engine().teams.save_template(template)
    return {"ok": True, "template": saved.to_wire()}


@bp.patch("/agent-team/templates/<template_id>")
@_teams_route
async def patch_template(template_id: str) -> Any:
    from ...teams import AgentTemplate

    teams = engine().teams
    current = await teams.template(template_id)
    changes = await object_body()
    changes.pop("templateID", None)
    merged = {**current.to_file(), **changes, "templateID": template_id}
    template = structure(AgentTemplate, merged, what="template")
    saved = await teams.save_template(template)
    return {"ok": True, "template": saved.to_wire()}


@bp.delete("/agent-team/templates/<template_id>")
@_teams_route
async def delete_template(template_id: str) -> Any:
    await engine().teams.delete_template(template_id)
    return {"ok": True, "deleted": True, "templateID": template_id}


# ------------------------------------------------------------------ instances and missions
@bp.get("/agent-team/instances")
@_teams_route
async def list_instances() -> Any:
    status = query_str("status")
    if status is not None and status not in INSTANCE_STATUSES:
        raise ValidationFailed(
            f"`status` must be one of {', '.join(INSTANCE_STATUSES)}", field="status"
        )
    instances = await engine().teams.instances(
        mission_id=query_str("missionID", "missionId", "mission_id"),
        parent_instance_id=query_str("parentInstanceID", "parentInstanceId", "parent_instance_id"),
        status=status,
    )
    return {"instances": [i.to_wire() for i in instances], "count": len(instances)}


@bp.get("/agent-team/instance/<instance_id>")
@_teams_route
async def get_instance(instance_id: str) -> Any:
    return {"instance": (await engine().teams.instance(instance_id)).to_wire()}


@bp.post("/agent-team/instance/<instance_id>/prompt")
@_teams_route
async def prompt_instance(instance_id: str) -> Any:
    from ...sessions import RunRequest

    eng = engine()
    instance = await eng.teams.instance(instance_id)
    body = structure(PromptBody, await json_body())
    raw_parts = (
        body.parts
        if body.parts is not None
        else ([{"type": "text", "text": body.text}] if body.text else None)
    )
    if not raw_parts:
        raise ValidationFailed("`parts` (or `text`) is required", field="parts")
    session = await eng.sessions.get(instance.session_id)
    parts = eng.sessions.validate_parts(session, raw_parts)
    started = await eng.teams.prompt(
        instance_id, RunRequest(parts=parts, system=body.system, source="agent_team")
    )
    return {
        "ok": True,
        "instanceID": instance_id,
        "sessionID": instance.session_id,
        "runID": started.run.id,
        "status": started.run.status,
    }, 202


@bp.post("/agent-team/instance/<instance_id>/cancel")
@_teams_route
async def cancel_instance(instance_id: str) -> Any:
    reason = await _reason()
    instance: Instance = await engine().teams.cancel_instance(instance_id, reason)
    return {
        "ok": True,
        "instanceID": instance.id,
        "sessionID": instance.session_id,
        "status": instance.status,
    }


@bp.get("/agent-team/missions")
@_teams_route
async def list_missions() -> Any:
    missions = await engine().teams.missions()
    return {"missions": missions, "count": len(missions)}


@bp.post("/agent-team/mission/<mission_id>/cancel")
@_teams_route
async def cancel_mission(mission_id: str) -> Any:
    reason = await _reason() or "mission cancelled by user"
    count = await engine().teams.cancel_mission(mission_id, reason)
    return {"ok": True, "missionID": mission_id, "cancelledInstances": count}


# ------------------------------------------------------------------ spawning and approvals
@bp.post("/agent-team/spawn")
@_teams_route
async def spawn() -> Any:
    from ...teams import SpawnRequest

    body = structure(SpawnBody, await json_body(allow_empty=False))
    request = SpawnRequest(
        role=body.role,
        source=body.source,
        mission_id=_optional_id(body.mission_id, "missionID"),
        parent_instance_id=_optional_id(body.parent_instance_id, "parentInstanceID"),
        template_id=_optional_id(body.template_id, "templateID"),
        justification=body.justification,
        budget_override=body.budget_override.limits() if body.budget_override else None,
        prompt=body.prompt if body.prompt and body.prompt.strip() else None,
    )
    return _spawn_answer(await engine().teams.spawn(request))


def _spawn_answer(result: SpawnResult) -> tuple[dict[str, Any], int]:
    """A refusal in the shared error shape (the tool's result body has no ``retryable``)."""
    if result.status < 400:
        return result.body, result.status
    return {**result.body, "retryable": result.body.get("retryable", False)}, result.status


@bp.get("/agent-team/approvals")
@_teams_route
async def list_approvals() -> Any:
    return await engine().teams.approvals()


@bp.post("/agent-team/approvals/spawn/<approval_id>/approve")
@_teams_route
async def approve_spawn(approval_id: str) -> Any:
    _human()
    return _spawn_answer(await engine().teams.approve(approval_id, await _reason()))


@bp.post("/agent-team/approvals/spawn/<approval_id>/deny")
@_teams_route
async def deny_spawn(approval_id: str) -> Any:
    _human()
    return await engine().teams.deny(approval_id, await _reason())
