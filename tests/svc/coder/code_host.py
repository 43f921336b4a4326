"""A pull request tool added to the fake project board's MCP server (official SDK)."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.project_board import ProjectBoard


def add_pull_requests(board: ProjectBoard) -> list[dict[str, Any]]:
    """Give the board's server a ``create_pull_request`` tool; returns the PRs it opens."""
    opened: list[dict[str, Any]] = []

    @board.server.tool()
    def create_pull_request(
        owner: str,
        repo: str,
        title: str,
        body: str = "",
        head: str = "",
        base: str = "main",
        draft: bool = True,
    ) -> str:
        """Open a pull request."""
        number = 100 + len(opened)
        url = f"https://repohost.example/{owner}/{repo}/pull/{number}"
        opened.append(
            {
                "owner": owner,
                "repo": repo,
                "title": title,
                "body": body,
                "head": head,
                "base": base,
                "draft": draft,
                "number": number,
            }
        )
        return json.dumps({"number": number, "html_url": url, "state": "open"})

    return opened
