"""Code-hosting issues and task-tracker issues through a configured MCP server's tools
(the reference's GitHub and Linear flows): find an open issue carrying the draft's
fingerprint marker, then comment on it, or create one."""

from __future__ import annotations

import json
from typing import Any

from ..config import Destination, MonitorConfig
from ..readiness import GITHUB_TOOLS, TRACKER_TOOLS, pick_tool
from ..redaction import redact_text
from .base import Adapter, Delivery, DeliveryContext


def marker(fingerprint: str) -> str:
    return f"<!-- svc-incident-fingerprint: {fingerprint} -->"


def issue_body(ctx: DeliveryContext) -> str:
    draft = ctx.draft
    parts = [
        draft.get("issue_draft", {}).get("body")
        if isinstance(draft.get("issue_draft"), dict)
        else None,
        draft.text("detail") or "",
    ]
    summary = draft.get("triage_summary")
    if isinstance(summary, dict) and summary.get("what_happened"):
        parts.append(f"Triage: {summary['what_happened']}")
    text = "\n\n".join(p for p in parts if p)
    return redact_text(text, "default")[:60_000] + "\n\n" + marker(draft.fingerprint)


def _json(output: str) -> Any:
    try:
        return json.loads(output)
    except (TypeError, ValueError):
        return None


def _issues(output: str) -> list[dict[str, Any]]:
    data = _json(output)
    if isinstance(data, dict):
        data = data.get("issues") or data.get("items") or data.get("nodes") or []
    return [i for i in data if isinstance(i, dict)] if isinstance(data, list) else []


def _open(issue: dict[str, Any]) -> bool:
    state = issue.get("state")
    if isinstance(state, dict):
        state = state.get("type") or state.get("name")
    return str(state or "open").lower() not in ("closed", "completed", "canceled", "done")


class _IssueAdapter(Adapter):
    provider = ""
    tools: dict[str, tuple[str, ...]] = {}

    def server(self, config: MonitorConfig, destination: Destination) -> str:
        return destination.mcp_server or config.mcp_server or ""

    async def _call(self, ctx: DeliveryContext, role: str, args: dict[str, Any]) -> str:
        service = ctx.service
        server = self.server(ctx.config, ctx.destination)
        tool = pick_tool(service.server_view(server), self.tools[role])
        if tool is None or service.engine.mcp is None:
            raise LookupError(f"the MCP server `{server}` has no {role} tool")
        result = await service.engine.mcp.call(server, tool, args)
        return result.output

    def _failed(self, receipt: dict[str, Any], error: str, status: str) -> Delivery:
        receipt["status"] = "failed"
        return Delivery(
            ok=False,
            action=self.operation,
            draft_status=status,
            receipt=receipt,
            error=redact_text(error, "default")[:500],
        )


class CodeHostAdapter(_IssueAdapter):
    kind = "github_issue"
    operation = "create_issue"
    kind_tag = "github_issue"
    provider = "github"
    tools = GITHUB_TOOLS

    def target_ref(self, config: MonitorConfig, destination: Destination) -> str:
        return destination.repo or config.repo or ""

    async def deliver(self, ctx: DeliveryContext) -> Delivery:
        repo = ctx.target_ref
        owner, _, name = repo.partition("/")
        receipt: dict[str, Any] = {
            "provider": self.provider,
            "destination_id": ctx.destination.destination_id,
            "repo": repo,
        }
        fingerprint = ctx.draft.fingerprint
        try:
            listed = await self._call(ctx, "list", {"owner": owner, "repo": name, "state": "open"})
            match = next(
                (
                    i
                    for i in _issues(listed)
                    if marker(fingerprint) in str(i.get("body") or "") and _open(i)
                ),
                None,
            )
            if match is not None:
                number = int(match.get("number") or 0)
                if not (ctx.config.auto_comment_on_matched_open_issues):
                    receipt.update(
                        operation="matched_open_no_comment", issue_number=number, status="posted"
                    )
                    return Delivery(
                        ok=True,
                        action="matched_open_no_comment",
                        draft_status="github_issue_matched",
                        receipt=receipt,
                        issue_number=number,
                        external_url=match.get("html_url"),
                    )
                count = ctx.draft.get("occurrence_count", 1)
                comment = await self._call(
                    ctx,
                    "comment",
                    {
                        "owner": owner,
                        "repo": name,
                        "issue_number": number,
                        "body": f"Seen again (occurrences: {count}).\n\n{marker(fingerprint)}",
                    },
                )
                data = _json(comment) or {}
                receipt.update(
                    operation="comment_issue",
                    issue_number=number,
                    comment_id=str(data.get("id") or ""),
                    status="posted",
                )
                return Delivery(
                    ok=True,
                    action="comment_issue",
                    draft_status="github_comment_posted",
                    receipt=receipt,
                    issue_number=number,
                    external_url=match.get("html_url"),
                    comment_id=str(data.get("id") or "") or None,
                    comment_url=data.get("html_url"),
                    external_id=str(number),
                    external_title=ctx.draft.text("title"),
                )
            created = (
                _json(
                    await self._call(
                        ctx,
                        "create",
                        {
                            "owner": owner,
                            "repo": name,
                            "title": ctx.draft.text("title") or "Failure",
                            "body": issue_body(ctx),
                        },
                    )
                )
                or {}
            )
        except Exception as exc:  # any MCP failure is this delivery's outcome
            return self._failed(receipt, f"{type(exc).__name__}: {exc}", "github_post_failed")
        number = int(created.get("number") or 0)
        receipt.update(operation="create_issue", issue_number=number, status="posted")
        return Delivery(
            ok=True,
            action="create_issue",
            draft_status="github_issue_created",
            receipt=receipt,
            issue_number=number,
            external_url=created.get("html_url"),
            external_id=str(number),
            external_title=ctx.draft.text("title"),
        )


class TrackerAdapter(_IssueAdapter):
    kind = "linear_issue"
    operation = "create_issue"
    kind_tag = "linear_issue"
    provider = "linear"
    tools = TRACKER_TOOLS

    def target_ref(self, config: MonitorConfig, destination: Destination) -> str:
        return f"linear:{destination.linear_team or ''}/{destination.linear_project or ''}"

    async def deliver(self, ctx: DeliveryContext) -> Delivery:
        d = ctx.destination
        receipt: dict[str, Any] = {
            "provider": self.provider,
            "destination_id": d.destination_id,
            "team": d.linear_team,
            "project": d.linear_project,
        }
        fingerprint = ctx.draft.fingerprint
        try:
            listed = await self._call(
                ctx,
                "list",
                {
                    "team": d.linear_team,
                    "project": d.linear_project,
                    "query": fingerprint,
                },
            )
            match = next(
                (
                    i
                    for i in _issues(listed)
                    if marker(fingerprint) in str(i.get("description") or "") and _open(i)
                ),
                None,
            )
            if match is not None:
                issue_id = str(match.get("id") or "")
                server_view = ctx.service.server_view(self.server(ctx.config, d))
                if pick_tool(server_view, self.tools["comment"]) is not None:
                    await self._call(
                        ctx,
                        "comment",
                        {
                            "issueId": issue_id,
                            "body": f"Seen again (occurrences: "
                            f"{ctx.draft.get('occurrence_count', 1)}).",
                        },
                    )
                receipt.update(operation="matched_linear_issue", issue_id=issue_id, status="posted")
                return Delivery(
                    ok=True,
                    action="matched_linear_issue",
                    draft_status="linear_issue_matched",
                    receipt=receipt,
                    external_id=issue_id,
                    external_url=match.get("url"),
                    external_title=match.get("title"),
                )
            created = (
                _json(
                    await self._call(
                        ctx,
                        "create",
                        {
                            "team": d.linear_team,
                            "project": d.linear_project,
                            "title": ctx.draft.text("title") or "Failure",
                            "description": issue_body(ctx),
                        },
                    )
                )
                or {}
            )
        except Exception as exc:  # any MCP failure is this delivery's outcome
            return self._failed(receipt, f"{type(exc).__name__}: {exc}", "linear_post_failed")
        issue_id = str(created.get("id") or "")
        receipt.update(operation="create_issue", issue_id=issue_id, status="posted")
        return Delivery(
            ok=True,
            action="create_issue",
            draft_status="linear_issue_created",
            receipt=receipt,
            external_id=issue_id,
            external_url=created.get("url"),
            external_title=ctx.draft.text("title"),
        )
