"""Coder projects and coder runs: ``/coder/projects/{project_id}/...``, ``/coder/runs``.

The project board routes take the board's kind as a path segment ending in
``-project`` (``repohost-project`` is the documented one; clients that spell the
code host's name there reach the same handlers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quart import Blueprint

from ...errors import NotFound
from ..request import engine, json_body, object_body, query_int, query_str

if TYPE_CHECKING:
    from ...coder import CoderService

bp = Blueprint("coder", __name__)


def service() -> CoderService:
    from ...coder import coder_of

    return coder_of(engine())


def _board_kind(kind: str) -> None:
    if not kind.endswith("-project") or kind == "-project":
        raise NotFound(f"no route /coder/projects/<project_id>/{kind}")


@bp.get("/coder/projects/<project_id>/bindings")
async def get_bindings(project_id: str) -> Any:
    return await service().get_binding(project_id)


@bp.put("/coder/projects/<project_id>/bindings")
async def put_bindings(project_id: str) -> Any:
    return await service().put_binding(project_id, await object_body())


@bp.get("/coder/projects/<project_id>/<kind>/inbox")
async def inbox(project_id: str, kind: str) -> Any:
    _board_kind(kind)
    return await service().inbox(project_id)


@bp.post("/coder/projects/<project_id>/<kind>/intake")
async def intake(project_id: str, kind: str) -> Any:
    _board_kind(kind)
    return await service().intake(project_id, await object_body())


# ---------------------------------------------------------------------- runs
@bp.post("/coder/runs")
async def create_run() -> Any:
    from ...coder.run_requests import create_run

    return await create_run(service(), await object_body())


@bp.get("/coder/runs")
async def list_runs() -> Any:
    from ...coder.run_requests import list_runs

    return await list_runs(
        service(),
        limit=query_int("limit"),
        mode=query_str("workflow_mode"),
        repo_slug=query_str("repo_slug"),
    )


@bp.get("/coder/runs/<coder_run_id>")
async def get_run(coder_run_id: str) -> Any:
    from ...coder.run_requests import get_run

    return await get_run(service(), coder_run_id)


async def _execute(coder_run_id: str, *, all_steps: bool) -> Any:
    from ...coder.runs import execute

    await json_body()  # an optional JSON body (options this runtime does not need)
    svc = service()
    run = await execute(svc, coder_run_id, all_steps=all_steps)
    return {"ok": True, **await svc.payload(run)}


@bp.post("/coder/runs/<coder_run_id>/execute-next")
async def execute_next(coder_run_id: str) -> Any:
    return await _execute(coder_run_id, all_steps=False)


@bp.post("/coder/runs/<coder_run_id>/execute-all")
async def execute_all(coder_run_id: str) -> Any:
    return await _execute(coder_run_id, all_steps=True)


@bp.post("/coder/runs/<coder_run_id>/follow-on-run")
async def follow_on_run(coder_run_id: str) -> Any:
    from ...coder.run_requests import follow_on

    return await follow_on(service(), coder_run_id, await object_body())


def _reason(body: dict[str, Any]) -> str | None:
    reason = body.get("reason")
    return reason if isinstance(reason, str) and reason.strip() else None


@bp.post("/coder/runs/<coder_run_id>/approve")
async def approve_run(coder_run_id: str) -> Any:
    from ...coder.runs import approve

    svc = service()
    run = await approve(svc, coder_run_id, _reason(await object_body()))
    return {"ok": True, **await svc.payload(run)}


@bp.post("/coder/runs/<coder_run_id>/cancel")
async def cancel_run(coder_run_id: str) -> Any:
    from ...coder.runs import cancel

    svc = service()
    run = await cancel(svc, coder_run_id, _reason(await object_body()))
    return {"ok": True, **await svc.payload(run)}


@bp.get("/coder/runs/<coder_run_id>/artifacts")
async def list_artifacts(coder_run_id: str) -> Any:
    from ...coder.artifacts import list_artifacts

    return await list_artifacts(service(), coder_run_id)


@bp.get("/coder/runs/<coder_run_id>/memory-hits")
async def memory_hits(coder_run_id: str) -> Any:
    from ...coder.artifacts import memory_hits

    return await memory_hits(
        service(), coder_run_id, query=query_str("q", "query"), limit=query_int("limit")
    )


async def _report(coder_run_id: str, artifact_type: str) -> Any:
    from ...coder.artifacts import add_report

    return await add_report(service(), coder_run_id, artifact_type, await object_body())


@bp.post("/coder/runs/<coder_run_id>/triage-inspection-report")
async def triage_inspection_report(coder_run_id: str) -> Any:
    return await _report(coder_run_id, "triage_inspection_report")


@bp.post("/coder/runs/<coder_run_id>/triage-reproduction-report")
async def triage_reproduction_report(coder_run_id: str) -> Any:
    return await _report(coder_run_id, "triage_reproduction_report")


@bp.post("/coder/runs/<coder_run_id>/triage-summary")
async def triage_summary(coder_run_id: str) -> Any:
    return await _report(coder_run_id, "triage_summary")


@bp.post("/coder/runs/<coder_run_id>/pr-review-evidence")
async def pr_review_evidence(coder_run_id: str) -> Any:
    return await _report(coder_run_id, "pr_review_evidence")


@bp.post("/coder/runs/<coder_run_id>/pr-review-summary")
async def pr_review_summary(coder_run_id: str) -> Any:
    return await _report(coder_run_id, "pr_review_summary")


@bp.post("/coder/runs/<coder_run_id>/issue-fix-validation-report")
async def issue_fix_validation_report(coder_run_id: str) -> Any:
    return await _report(coder_run_id, "issue_fix_validation_report")


@bp.post("/coder/runs/<coder_run_id>/issue-fix-summary")
async def issue_fix_summary(coder_run_id: str) -> Any:
    return await _report(coder_run_id, "issue_fix_summary")


@bp.post("/coder/runs/<coder_run_id>/merge-readiness-report")
async def merge_readiness_report(coder_run_id: str) -> Any:
    return await _report(coder_run_id, "merge_readiness_report")


@bp.post("/coder/runs/<coder_run_id>/merge-recommendation-summary")
async def merge_recommendation_summary(coder_run_id: str) -> Any:
    return await _report(coder_run_id, "merge_recommendation_summary")


@bp.post("/coder/runs/<coder_run_id>/pr-draft")
async def pr_draft(coder_run_id: str) -> Any:
    from ...coder.pull_requests import pr_draft

    return await pr_draft(service(), coder_run_id, await object_body())


@bp.post("/coder/runs/<coder_run_id>/pr-submit")
async def pr_submit(coder_run_id: str) -> Any:
    from ...coder.pull_requests import pr_submit

    return await pr_submit(service(), coder_run_id, await object_body())


@bp.get("/coder/runs/<coder_run_id>/memory-candidates")
async def list_memory_candidates(coder_run_id: str) -> Any:
    from ...coder.artifacts import list_candidates

    return await list_candidates(service(), coder_run_id)


@bp.post("/coder/runs/<coder_run_id>/memory-candidates")
async def create_memory_candidate(coder_run_id: str) -> Any:
    from ...coder.artifacts import create_candidate

    return await create_candidate(service(), coder_run_id, await object_body())


@bp.post("/coder/runs/<coder_run_id>/memory-candidates/<candidate_id>/promote")
async def promote_memory_candidate(coder_run_id: str, candidate_id: str) -> Any:
    from ...coder.artifacts import promote_candidate

    return await promote_candidate(service(), coder_run_id, candidate_id, await object_body())
