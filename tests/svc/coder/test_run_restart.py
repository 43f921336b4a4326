"""A coder run in progress when the engine stops keeps moving its project item after restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import trio

import svc
from svc import Settings
from tests.fakes.mcp_servers import open_mcp_server
from tests.fakes.project_board import ProjectBoard
from tests.fakes.turns import Turn
from tests.helpers import wait_for_event

from .test_project_intake import _bind


async def test_the_item_status_follows_a_run_across_an_engine_restart(
    model_settings: Settings, fake_model: Any, workspace: Path
) -> None:
    board = ProjectBoard()
    board.add_issue("PVTI_1", 12, "Fix the login redirect")
    gate = trio.Event()
    fake_model.enqueue(Turn.reply("held", gate=gate))
    async with open_mcp_server(board.server) as server:
        async with (
            svc.open_engine(model_settings, serve_http=True) as engine,
            httpx.AsyncClient(base_url=engine.url or "", timeout=30) as client,
        ):
            assert (await _bind(client, workspace, server.url)).status_code == 200
            taken = await client.post(
                "/coder/projects/app/repohost-project/intake", json={"project_item_id": "PVTI_1"}
            )
            assert taken.status_code == 200, taken.text
            coder_run_id = taken.json()["coder_run"]["coder_run_id"]
            assert board.status_of("PVTI_1") == "In Progress"
        # The engine stopped the step's session run; the follower resumed at start-up
        # runs the step again, and the item follows it to In Review.
        gate.set()
        fake_model.enqueue(Turn.reply("fixed after the restart"))
        async with svc.open_engine(model_settings, serve_http=True) as engine:
            await wait_for_event(
                engine,
                "coder.run.updated",
                where=lambda e: (
                    e.properties["coder_run_id"] == coder_run_id
                    and e.properties["status"] == "completed"
                ),
            )
            assert board.status_of("PVTI_1") == "In Review"
            assert [u["option_id"] for u in board.updates] == [
                "opt_doing",  # intake
                "opt_doing",  # the step runs again after the restart
                "opt_review",
            ]
            async with httpx.AsyncClient(base_url=engine.url or "", timeout=30) as client:
                got = (await client.get(f"/coder/runs/{coder_run_id}")).json()["coder_run"]
                assert got["status"] == "completed"
                assert got["steps"][0]["status"] == "completed"
                assert got["remote_sync_state"] == "in_sync"
