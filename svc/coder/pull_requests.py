"""The pull request of an ``issue_fix`` coder run.

``pr-draft`` writes the title and body from the run (its fix summaries and the
issue it fixes); ``pr-submit`` opens the latest draft through a connected MCP
server's ``create_pull_request`` tool (the body's ``mcp_server``, else the
project's board server, else any connected server that has the tool) and
records the pull request on the run (``pr_url``) and as an artifact.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import SvcError
from .artifacts import _add_artifact, _artifacts, _summary_text
from .errors import BoardFailed, PrSubmitUnavailable, RunConflict, WorkflowMismatch
from .records import CoderRun
from .runs import require_run, run_wire
from .workflows import ARTIFACT_MODES

if TYPE_CHECKING:
    from .service import CoderService

PR_TOOL = "create_pull_request"


def _require_mode(run: CoderRun, artifact_type: str) -> None:
    mode = ARTIFACT_MODES[artifact_type]
    if run.workflow != mode:
        raise WorkflowMismatch(
            f"`{artifact_type}` belongs to {mode} runs; this run is {run.workflow}",
            workflow_mode=run.workflow,
        )


async def pr_draft(svc: CoderService, coder_run_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
    run = await require_run(svc, coder_run_id)
    _require_mode(run, "pr_draft")
    repo = run.repo_binding
    ref = run.repohost_ref or {}
    summaries = [
        a
        for a in await _artifacts(svc).of_run(coder_run_id)
        if a.artifact_type in ("issue_fix_summary", "issue_fix_validation_report")
    ]
    number = ref.get("number")
    title = body.get("title") if isinstance(body.get("title"), str) else None
    lines = [_summary_text(a.payload) for a in summaries]
    if number is not None:
        lines.append(f"Fixes #{number}")
    text = body.get("body") if isinstance(body.get("body"), str) else "\n\n".join(lines)
    draft: dict[str, Any] = {
        "title": title or f"Fix #{number}: {run.objective.splitlines()[0][:80]}",
        "body": text,
        "base_branch": body.get("base_branch") or (repo.default_branch if repo else None) or "main",
        "head_branch": body.get("head_branch") or f"coder/{run.coder_run_id}",
        "repo_slug": repo.repo_slug if repo else None,
        "changed_files": body.get("changed_files")
        if isinstance(body.get("changed_files"), list)
        else [],
    }
    artifact = await _add_artifact(svc, run, "pr_draft", draft)
    return {"ok": True, "coder_run": run_wire(run), "artifact": artifact.to_wire(), "draft": draft}


def _pr_server(svc: CoderService, preferred: str | None, bound: str | None) -> tuple[str, str]:
    mcp = svc.engine.mcp
    if mcp is None:
        raise PrSubmitUnavailable()
    names = [n for n in (preferred, bound) if n] or [s.name for s in mcp.snapshots()]
    for name in names:
        snapshot = mcp.snapshot(name)
        if snapshot is None or not snapshot.usable:
            continue
        for tool in snapshot.registered_tools():
            canonical = tool.tool_name.lower().replace(".", "_").replace("-", "_")
            if canonical == PR_TOOL or canonical.endswith("_" + PR_TOOL):
                return name, tool.tool_name
    raise PrSubmitUnavailable()


async def pr_submit(
    svc: CoderService, coder_run_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    run = await require_run(svc, coder_run_id)
    _require_mode(run, "pr_submission")
    drafts = [
        a for a in await _artifacts(svc).of_run(coder_run_id) if a.artifact_type == "pr_draft"
    ]
    if not drafts:
        raise RunConflict("create a pull request draft (pr-draft) before submitting")
    draft = drafts[-1].payload
    slug = str(draft.get("repo_slug") or "")
    owner, _, repo = slug.partition("/")
    args = {
        "owner": owner,
        "repo": repo,
        "title": draft.get("title"),
        "body": draft.get("body"),
        "head": draft.get("head_branch"),
        "base": draft.get("base_branch"),
        "draft": body.get("draft", True) is not False,
    }
    if body.get("dry_run") is True:
        artifact = await _add_artifact(
            svc, run, "pr_submission", {"dry_run": True, "submitted": False, "request": args}
        )
        return {
            "ok": True,
            "submitted": False,
            "dry_run": True,
            "artifact": artifact.to_wire(),
            "coder_run": run_wire(run),
        }
    binding = await svc.bindings.get(run.project_id)
    bound = (
        binding.repohost_project_binding.mcp_server
        if binding is not None and binding.repohost_project_binding is not None
        else None
    )
    preferred = body.get("mcp_server") if isinstance(body.get("mcp_server"), str) else None
    server, tool = _pr_server(svc, preferred, bound)
    try:
        result = await svc.engine.mcp.call(server, tool, args)
    except SvcError as exc:
        raise BoardFailed(f"`{tool}` failed: {exc.message}") from None
    try:
        answer = json.loads(result.output)
    except ValueError:
        answer = {"text": result.output}
    answer = answer if isinstance(answer, dict) else {"result": answer}
    url = answer.get("html_url") or answer.get("url")
    pull = {"number": answer.get("number"), "url": url}
    artifact = await _add_artifact(
        svc,
        run,
        "pr_submission",
        {
            "submitted": True,
            "mcp_server": server,
            "tool": tool,
            "request": args,
            "pull_request": pull,
        },
    )
    async with svc.serial.turn(("run", coder_run_id)):
        fresh = await require_run(svc, coder_run_id)
        fresh = await svc.save(
            attrs.evolve(fresh, pr_url=url, updated_at_ms=svc.engine.clock.now_ms())
        )
    return {
        "ok": True,
        "submitted": True,
        "pull_request": pull,
        "mcp_server": server,
        "artifact": artifact.to_wire(),
        "coder_run": run_wire(fresh),
    }


__all__ = ["PR_TOOL", "pr_draft", "pr_submit"]
