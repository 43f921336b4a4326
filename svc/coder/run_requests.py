"""Creating, listing and reading coder runs (``/coder/runs``).

A run is created for a repo binding (given in the body, or the stored binding of
``repo_binding.project_id`` / ``project_id``) and a repohost reference ``{kind,
number, url?}`` (an issue for issue workflows, a pull request for review
workflows); clients name that reference ``<host>_ref``, so any ``*_ref`` key
carrying ``kind`` and ``number`` is accepted. A created run is ``queued``: its
steps run on ``execute-next`` / ``execute-all``. A follow-on run continues a run
in another workflow mode (a fix after a triage, a merge recommendation after a
review) on the same binding and reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import ValidationFailed
from .errors import RepoBindingRequired
from .records import CoderRun, RepoBinding
from .runs import new_run_id, require_run, run_wire
from .workflows import REF_KIND, steps_for, workflow_mode

if TYPE_CHECKING:
    from .service import CoderService

MAX_LIST = 500


def _repohost_ref(body: Mapping[str, Any]) -> dict[str, Any] | None:
    for key, value in body.items():
        if (
            key.endswith("_ref")
            and key != "repohost_project_ref"
            and isinstance(value, dict)
            and "kind" in value
            and "number" in value
        ):
            number = value["number"]
            if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                raise ValidationFailed(f"`{key}.number` must be a positive integer", field=key)
            url = value.get("url") or value.get("html_url")
            return {"kind": str(value["kind"]), "number": number, "url": url}
    return None


async def _repo_binding(svc: CoderService, body: Mapping[str, Any]) -> tuple[str, RepoBinding]:
    from .service import parse_repo_binding

    given = body.get("repo_binding")
    project_id = body.get("project_id")
    if isinstance(given, dict) and isinstance(given.get("project_id"), str):
        project_id = given["project_id"]
    if isinstance(given, dict) and given.get("workspace_root"):
        repo = parse_repo_binding(given)
        if not isinstance(project_id, str) or not project_id.strip():
            project_id = repo.repo_slug.replace("/", "-")
        return project_id, repo
    if isinstance(project_id, str) and project_id.strip():
        stored = await svc.bindings.get(project_id)
        if stored is not None:
            return project_id, stored.repo_binding
    raise RepoBindingRequired(
        "a repo binding (`repo_binding` with workspace_root) or a bound `project_id` is required",
        field="repo_binding",
    )


def _subject(mode: str, repo: RepoBinding, ref: dict[str, Any] | None, objective: str) -> str:
    if objective:
        return objective
    if ref is None:
        return f"Work on {repo.repo_slug} ({mode})"
    noun = "pull request" if ref["kind"] == "pull_request" else "issue"
    return f"{mode} of {noun} #{ref['number']} of {repo.repo_slug} {ref.get('url') or ''}".strip()


async def create_run(
    svc: CoderService, body: Mapping[str, Any], *, parent: CoderRun | None = None
) -> dict[str, Any]:
    mode = workflow_mode(body.get("workflow_mode") or body.get("workflow"))
    if parent is not None:
        project_id, repo = parent.project_id, parent.repo_binding
        ref = _repohost_ref(body) or parent.repohost_ref
        if repo is None:
            raise RepoBindingRequired(field="repo_binding")
    else:
        project_id, repo = await _repo_binding(svc, body)
        ref = _repohost_ref(body)
    if ref is not None and ref["kind"] != REF_KIND[mode] and parent is None:
        raise ValidationFailed(
            f"`{mode}` runs are about a {REF_KIND[mode]}, not a {ref['kind']}",
            field="repohost_ref.kind",
        )
    objective = body.get("objective")
    objective = objective.strip() if isinstance(objective, str) else ""
    subject = _subject(mode, repo, ref, objective)
    source = body.get("source_client")
    provider, model = body.get("model_provider"), body.get("model_id")
    now = svc.engine.clock.now_ms()
    run = CoderRun(
        coder_run_id=new_run_id(),
        project_id=project_id,
        workflow=mode,
        origin="follow_on" if parent is not None else "api",
        source_client=source if isinstance(source, str) else None,
        objective=subject,
        repo_binding=repo,
        repohost_ref=ref,
        steps=steps_for(mode, subject),
        parent_coder_run_id=parent.coder_run_id if parent is not None else None,
        model={"provider_id": provider, "model_id": model}
        if isinstance(provider, str) and isinstance(model, str)
        else None,
        created_at_ms=now,
        updated_at_ms=now,
    )
    run = await svc.save(run)
    return {"ok": True, **await svc.payload(run)}


async def follow_on(
    svc: CoderService, coder_run_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    parent = await require_run(svc, coder_run_id)
    reply = await create_run(svc, body, parent=parent)
    return {**reply, "parent_coder_run_id": parent.coder_run_id}


async def list_runs(
    svc: CoderService, *, limit: int | None, mode: str | None, repo_slug: str | None
) -> dict[str, Any]:
    limit = max(1, min(limit or 100, MAX_LIST))
    runs = await svc.runs.recent(MAX_LIST)
    picked = [
        r
        for r in runs
        if (mode is None or r.workflow == mode)
        and (
            repo_slug is None
            or (r.repo_binding is not None and r.repo_binding.repo_slug == repo_slug)
        )
    ][:limit]
    wire = [run_wire(r) for r in picked]
    return {"runs": wire, "count": len(wire)}


async def get_run(svc: CoderService, coder_run_id: str) -> dict[str, Any]:
    from .artifact_repository import CoderArtifactRepository

    run = await require_run(svc, coder_run_id)
    artifacts = await CoderArtifactRepository(svc.engine.store).of_run(coder_run_id)
    return {**await svc.payload(run), "artifacts": [a.to_wire() for a in artifacts]}


__all__ = ["create_run", "follow_on", "get_run", "list_runs"]
