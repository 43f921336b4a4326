"""MCP servers (official SDK) faking a code host's and a task tracker's issue tools.

:func:`code_host_server` offers ``list_issues``, ``get_issue``, ``create_issue`` and
``add_issue_comment`` as the GitHub MCP server names them; :func:`tracker_server`
offers ``list_issues``, ``create_issue`` and ``create_comment`` as a tracker's does.
Both keep their issues in memory (``server.issues``) and answer JSON text.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer


def code_host_server() -> MCPServer:
    server = MCPServer("codehost", version="1.0.0")
    issues: list[dict[str, Any]] = []
    comments: list[dict[str, Any]] = []

    @server.tool()
    def list_issues(owner: str, repo: str, state: str = "open") -> str:
        """List issues of a repository."""
        return json.dumps([i for i in issues if i["repo"] == f"{owner}/{repo}"])

    @server.tool()
    def get_issue(owner: str, repo: str, issue_number: int) -> str:
        """Get one issue."""
        return json.dumps(next(i for i in issues if i["number"] == issue_number))

    @server.tool()
    def create_issue(owner: str, repo: str, title: str, body: str = "") -> str:
        """Create an issue."""
        issue = {
            "number": len(issues) + 1,
            "repo": f"{owner}/{repo}",
            "title": title,
            "body": body,
            "state": "open",
            "html_url": f"https://codehost.example/{owner}/{repo}/issues/{len(issues) + 1}",
        }
        issues.append(issue)
        return json.dumps(issue)

    @server.tool()
    def add_issue_comment(owner: str, repo: str, issue_number: int, body: str) -> str:
        """Comment on an issue."""
        comment = {"id": len(comments) + 1, "issue_number": issue_number, "body": body}
        comments.append(comment)
        return json.dumps(comment)

    server.issues = issues  # type: ignore[attr-defined]
    server.comments = comments  # type: ignore[attr-defined]
    return server


def tracker_server() -> MCPServer:
    server = MCPServer("tracker", version="1.0.0")
    issues: list[dict[str, Any]] = []
    comments: list[dict[str, Any]] = []

    @server.tool()
    def list_issues(team: str, project: str, query: str = "") -> str:
        """List issues of a team's project."""
        return json.dumps({"issues": [i for i in issues if i["team"] == team]})

    @server.tool()
    def create_issue(team: str, project: str, title: str, description: str = "") -> str:
        """Create an issue."""
        issue = {
            "id": f"ISS-{len(issues) + 1}",
            "team": team,
            "project": project,
            "title": title,
            "description": description,
            "state": {"type": "started"},
            "url": f"https://tracker.example/issue/ISS-{len(issues) + 1}",
        }
        issues.append(issue)
        return json.dumps(issue)

    @server.tool()
    def create_comment(issueId: str, body: str) -> str:
        """Comment on an issue."""
        comments.append({"issueId": issueId, "body": body})
        return json.dumps({"ok": True})

    server.issues = issues  # type: ignore[attr-defined]
    server.comments = comments  # type: ignore[attr-defined]
    return server
