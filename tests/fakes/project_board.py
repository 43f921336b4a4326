"""A repohost project board served as an MCP server built with the official SDK.

Three tools speak the shape ``svc.coder.board`` reads (JSON text results):
``get_project``, ``list_project_items`` and ``update_project_item_field``. The
test changes the board directly (:meth:`ProjectBoard.rename_option`,
:meth:`ProjectBoard.status_of`) and serves it with
``tests.fakes.mcp_servers.open_mcp_server(board.server)``.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

STATUS_FIELD = "PVTSSF_status"


class ProjectBoard:
    def __init__(self, owner: str = "acme", number: int = 7) -> None:
        self.owner = owner
        self.number = number
        self.options = [
            {"id": "opt_todo", "name": "Todo"},
            {"id": "opt_doing", "name": "In Progress"},
            {"id": "opt_review", "name": "In Review"},
            {"id": "opt_blocked", "name": "Blocked"},
            {"id": "opt_done", "name": "Done"},
        ]
        self.items: list[dict[str, Any]] = []
        self.updates: list[dict[str, Any]] = []
        self.server = self._build()

    # ------------------------------------------------------------------ the test's side
    def add_issue(self, item_id: str, number: int, title: str, status: str = "Todo") -> None:
        self.items.append(
            {
                "id": item_id,
                "title": title,
                "option_id": self._option(status)["id"],
                "issue": {
                    "number": number,
                    "title": title,
                    "url": f"https://repohost.example/{self.owner}/app/issues/{number}",
                },
            }
        )

    def add_draft(self, item_id: str, title: str) -> None:
        self.items.append({"id": item_id, "title": title, "option_id": "opt_todo", "issue": None})

    def rename_option(self, old: str, new: str) -> None:
        self._option(old)["name"] = new

    def status_of(self, item_id: str) -> str:
        option_id = next(i["option_id"] for i in self.items if i["id"] == item_id)
        return next(o["name"] for o in self.options if o["id"] == option_id)

    def _option(self, name: str) -> dict[str, Any]:
        return next(o for o in self.options if o["name"] == name)

    # ------------------------------------------------------------------ the MCP side
    def _check(self, owner: str, project_number: int) -> None:
        if (owner, project_number) != (self.owner, self.number):
            raise ToolError(f"no project {owner}/{project_number}")

    def _schema(self) -> dict[str, Any]:
        return {
            "id": "PVT_board",
            "title": "Roadmap",
            "fields": [
                {"id": "PVTF_title", "name": "Title"},
                {"id": STATUS_FIELD, "name": "Status", "options": [dict(o) for o in self.options]},
            ],
        }

    def _item(self, item: dict[str, Any]) -> dict[str, Any]:
        name = next(o["name"] for o in self.options if o["id"] == item["option_id"])
        wire: dict[str, Any] = {
            "id": item["id"],
            "title": item["title"],
            "status": {"option_id": item["option_id"], "name": name},
        }
        if item["issue"] is not None:
            wire["issue"] = dict(item["issue"])
        return wire

    def _build(self) -> MCPServer:
        server = MCPServer("project-board", version="1.0.0")

        @server.tool()
        def get_project(owner: str, project_number: int) -> str:
            """The project's fields and the options of its Status field."""
            self._check(owner, project_number)
            return json.dumps(self._schema())

        @server.tool()
        def list_project_items(owner: str, project_number: int) -> str:
            """The project's items with their status and linked issue."""
            self._check(owner, project_number)
            return json.dumps({"items": [self._item(i) for i in self.items]})

        @server.tool()
        def update_project_item_field(
            owner: str, project_number: int, item_id: str, field_id: str, option_id: str
        ) -> str:
            """Set a single-select field of an item."""
            self._check(owner, project_number)
            if field_id != STATUS_FIELD or option_id not in {o["id"] for o in self.options}:
                raise ToolError("unknown field or option")
            item = next((i for i in self.items if i["id"] == item_id), None)
            if item is None:
                raise ToolError(f"no item {item_id}")
            item["option_id"] = option_id
            self.updates.append({"item_id": item_id, "option_id": option_id})
            return json.dumps({"ok": True})

        return server


__all__ = ["STATUS_FIELD", "ProjectBoard"]
