"""Automations, agent teams and goals pages in real Chromium, with real data made by real runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import yaml

import svc
from svc import Settings
from tests.helpers import wait_for_event
from tests.svc.automations.support import node, settled, v2_spec
from tests.svc.goals.specs import linear_spec
from tests.svc.goals.support import create_workflows, publish, run_settled, start_goal, step_reply
from tests.svc.teams.conftest import WORKER

from .browser import open_page, run_in_browser, screenshot

ROUTINE = {
    "routine_id": "digest",
    "name": "Daily digest",
    "schedule": {"interval_seconds": {"seconds": 3600}},
    "entrypoint": "mission.default",
    "args": {"prompt": "Summarise the notes"},
    "allowed_tools": ["read"],
    "output_targets": [],
}
POLICY = {
    "enabled": True,
    "mission_total_budget": {"max_tokens": 50_000, "max_steps": 40},
    "spawn_edges": {"worker": {"behavior": "allow", "can_spawn": ["worker"]}},
}


def _team_files(workspace: Path) -> None:
    root = workspace / ".svc" / "agent-team"
    (root / "templates").mkdir(parents=True)
    (root / "spawn-policy.yaml").write_text(yaml.safe_dump(POLICY))
    (root / "templates" / "worker.yaml").write_text(yaml.safe_dump(WORKER))


async def test_automations_teams_and_goals_pages_show_real_runs(
    make_settings: Callable[..., Settings], fake_model: Any, workspace: Path
) -> None:
    fake_model.default = step_reply
    _team_files(workspace)
    settings = make_settings(
        web_ui=True,
        default_provider="openai",
        providers={
            "openai": {"url": fake_model.url, "api_key": "sk-test", "default_model": "fake-model"}
        },
    )
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=30) as client,
    ):
        # Automations: a routine, and a v2 DAG run to its end.
        assert (await client.post("/routines", json=ROUTINE)).status_code == 200
        spec = v2_spec(
            [node("fetch", "worker"), node("summarise", "worker", deps=["fetch"])],
            automation_id="pipeline",
            name="Pipeline",
        )
        assert (await client.post("/automations/v2", json=spec)).status_code == 200
        run = (await client.post("/automations/v2/pipeline/run_now", json={})).json()["run"]
        assert (await settled(engine, run["run_id"])).status == "completed"
        # Agent teams: an instance of a mission with its budget, run to its end.
        spawned = (
            await client.post(
                "/agent-team/spawn",
                json={
                    "role": "worker",
                    "missionID": "m-release",
                    "prompt": "check the release notes",
                    "budget_override": {"max_tokens": 5000, "max_steps": 8},
                },
            )
        ).json()
        assert spawned["ok"] is True, spawned
        await wait_for_event(engine, "session.run.finished", run_id=spawned["runID"])
        # Goals: a published orchestration and a goal whose first node ran.
        await create_workflows(engine, "wf-plan", "wf-build")
        await publish(client, linear_spec())
        goal = (await start_goal(client))["goal"]
        await run_settled(engine, goal["active_run_id"])
        url = f"{engine.url}/admin/#/"

        def scenario() -> dict[str, Any]:
            out: dict[str, Any] = {}
            with open_page() as page:
                page.goto(url + "automations")
                routine = page.get_by_role("table", name="Routines").get_by_role("row").nth(1)
                routine.wait_for()
                out["routine"] = routine.inner_text()
                card = page.locator('[data-automation="pipeline"]')
                card.locator('[data-node="summarise"].state-completed').wait_for()
                out["node_states"] = {
                    n: card.locator(f'[data-node="{n}"] .node-state').text_content()
                    for n in ("fetch", "summarise")
                }
                out["edges"] = card.locator("path.edge").count()
                out["last_run"] = card.inner_text()
                screenshot(page, "data-automations")

                page.goto(url + "teams")
                mission = page.locator("section:has(#m-m-release)")
                mission.locator(f'[data-instance="{spawned["instanceID"]}"]').wait_for()
                out["mission"] = mission.inner_text()
                out["mission_bars"] = mission.get_by_role(
                    "img", name="Budget of mission m-release"
                ).text_content()
                out["instance_bars"] = mission.get_by_role(
                    "img", name=f"Budget of {spawned['instanceID']}"
                ).text_content()
                screenshot(page, "data-teams")

                page.goto(url + "goals")
                page.get_by_role("button", name="ship 1.4").click()
                detail = page.locator(f'[data-goal="{goal["goal_id"]}"]')
                detail.get_by_role("img", name="Orchestration graph").wait_for()
                out["current"] = detail.locator(".current-node").text_content()
                out["graph_nodes"] = detail.locator("[data-node]").count()
                out["current_drawn"] = detail.locator("[data-node].current").get_attribute(
                    "data-node"
                )
                out["timeline"] = detail.locator(".timeline-list").inner_text()
                screenshot(page, "data-goals")
                pause = detail.locator('[data-action="pause"]')
                out["pause_enabled_without_reason"] = pause.get_by_role(
                    "button", name="Pause goal"
                ).is_enabled()
                pause.get_by_label("Reason").fill("waiting for the release window")
                pause.get_by_role("button", name="Pause goal").click()
                detail.get_by_text("paused", exact=True).first.wait_for()
                out["resume_enabled"] = (
                    detail.locator('[data-action="resume"]')
                    .get_by_role("button", name="Resume goal")
                    .is_enabled()
                )
            return out

        result = await run_in_browser(scenario)
        paused = (await client.get(f"/goals/{goal['goal_id']}")).json()["goal"]
    assert "Daily digest" in result["routine"] and "every 3600s" in result["routine"]
    assert result["node_states"] == {"fetch": "completed", "summarise": "completed"}
    assert result["edges"] == 1
    assert "completed" in result["last_run"]
    assert "m-release" in result["mission"] and "completed" in result["mission"]
    assert "/ 50000" in result["mission_bars"] and "/ 40" in result["mission_bars"]
    assert "/ 5000" in result["instance_bars"] and "/ 8" in result["instance_bars"]
    assert result["current"] == "plan" and result["current_drawn"] == "plan"
    assert result["graph_nodes"] == 3
    assert "goal.started" in result["timeline"]
    assert result["pause_enabled_without_reason"] is False
    assert result["resume_enabled"] is True
    assert paused["status"] == "paused"
