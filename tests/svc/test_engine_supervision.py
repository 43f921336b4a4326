"""The engine's supervision tree: a domain that escalates never breaks the rest.

An entity actor that crash-loops makes its dynamic supervisor escalate; the
entities group restarts that supervisor (and, past the group's own budget, the
root restarts the whole group). New entities of every kind must still start
afterwards, on the new supervisors, and the HTTP server must not be restarted.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

import svc
from actors import Actor
from svc.entities import EntityKind
from svc.errors import NotFound
from tests.fakes.mcp_servers import FakeMcpServer, open_mcp_server, workbench_server
from tests.svc.goals.specs import linear_spec
from tests.svc.goals.support import create_workflows, publish, start_goal, step_reply
from tests.svc.teams.conftest import OPEN_POLICY, WORKER

CRASHES_PER_ESCALATION = 11  # the entity supervisors allow 10 restarts in 30 s


class Crasher(Actor):
    """Crashes as soon as it is live, as long as the shared budget of crashes lasts."""

    def __init__(self, budget: list[int]) -> None:
        self.budget = budget

    async def started(self) -> None:
        if self.budget[0] > 0:
            self.budget[0] -= 1
            self.nursery.start_soon(self._crash)

    async def _crash(self) -> None:
        raise RuntimeError("crash-looping on purpose")

    async def receive(self, message: object) -> object:
        return message


def install_crasher(engine: svc.Engine, budget: list[int]) -> None:
    async def factory(name: str) -> Actor:
        return Crasher(budget)

    engine.entities.register(
        EntityKind("crasher/", "sessions", lambda entity_id: NotFound(f"no {entity_id}")),
        factory,
    )


async def escalate_sessions(engine: svc.Engine, *, times: int) -> None:
    """Crash-loop an entity under `sessions` until its supervisor escalates, ``times`` times."""
    budget = [0]
    install_crasher(engine, budget)
    for _ in range(times):
        before = engine.entities.starts["sessions"]
        budget[0] = CRASHES_PER_ESCALATION
        await engine.entities.ref("crasher/", "x")
        with trio.fail_after(30):
            await engine.entities.wait_started("sessions", times=before + 1)


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


@pytest.fixture
async def workbench() -> Any:
    async with open_mcp_server(workbench_server()) as server:
        yield server


def write(path: Path, content: dict[str, Any]) -> None:
    import yaml

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(content), encoding="utf-8")


async def every_kind_of_entity_starts(
    engine: svc.Engine,
    client: httpx.AsyncClient,
    fake_model: Any,
    workbench: FakeMcpServer,
    workspace: Path,
    tag: str,
) -> None:
    # A session: created and prompted to the end over HTTP.
    session = (await client.post("/session", json={"title": f"after {tag}"})).json()
    reply = await client.post(
        f"/session/{session['id']}/prompt_sync",
        json={"parts": [{"type": "text", "text": f"hello {tag}"}]},
    )
    assert reply.status_code == 200, reply.text

    # An MCP connector: added, connected, and a tool called.
    added = await client.post("/mcp", json={"name": f"bench-{tag}", "transport": workbench.url})
    assert added.status_code in (200, 201), added.text
    connected = await client.post(f"/mcp/bench-{tag}/connect")
    assert connected.status_code == 200 and connected.json()["ok"] is True, connected.text
    result = await engine.mcp.call(f"bench-{tag}", "echo", {"text": tag})
    assert result.output == tag

    # An agent: spawned into a mission.
    write(workspace / ".svc" / "agent-team" / "spawn-policy.yaml", OPEN_POLICY)
    write(workspace / ".svc" / "agent-team" / "templates" / "worker-basic.yaml", WORKER)
    spawned = await client.post(
        "/agent-team/spawn",
        json={"missionID": f"m-{tag}", "role": "worker", "templateID": "worker-basic"},
    )
    assert spawned.status_code == 200 and spawned.json()["ok"] is True, spawned.text

    # A goal: started on a published orchestration.
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build")
    await publish(client, linear_spec())
    started = await start_goal(client, key=f"goal-{tag}")
    assert started["goal"]["status"] in ("active", "running"), started


async def test_entities_of_every_kind_start_after_the_entity_group_restarts(
    engine: svc.Engine,
    client: httpx.AsyncClient,
    fake_model: Any,
    workbench: FakeMcpServer,
    workspace: Path,
) -> None:
    url = engine.url
    first = {key: engine.entities.supervisor(key) for key in engine.entities.starts}
    # Six escalations of `sessions`: the group restarts it five times, then escalates
    # itself, and the root restarts the whole group (every entity supervisor is new).
    await escalate_sessions(engine, times=6)
    with trio.fail_after(30):
        for key in ("connectors", "teams", "goals"):
            await engine.entities.wait_started(key, times=2)
    for key, old in first.items():
        assert engine.entities.supervisor(key) is not old, key
    assert engine.url == url  # the HTTP server was not restarted
    await every_kind_of_entity_starts(engine, client, fake_model, workbench, workspace, "group")


async def test_one_supervisor_escalating_restarts_only_itself(
    engine: svc.Engine,
    client: httpx.AsyncClient,
    fake_model: Any,
    workbench: FakeMcpServer,
    workspace: Path,
) -> None:
    others = {key: engine.entities.supervisor(key) for key in ("connectors", "teams", "goals")}
    await escalate_sessions(engine, times=1)
    assert engine.entities.starts["sessions"] == 2
    for key, old in others.items():
        assert engine.entities.supervisor(key) is old, key
    await every_kind_of_entity_starts(engine, client, fake_model, workbench, workspace, "one")


async def test_an_escalating_service_restarts_without_touching_the_entities(
    make_settings: Callable[..., svc.Settings],
) -> None:
    """A component's child that crash-loops escalates `services`; the root restarts it alone."""
    from supervisors import ChildSpec, Restart
    from svc.component import Component

    crashes = [0]
    settled = trio.Event()

    async def flaky(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        if crashes[0] < 6:  # the services supervisor allows 5 restarts in 60 s
            crashes[0] += 1
            raise RuntimeError("crash-looping on purpose")
        settled.set()
        await trio.sleep_forever()

    class Flaky(Component):
        name = "flaky"

        def children(self, engine: svc.Engine) -> list[ChildSpec]:
            return [ChildSpec(id="flaky", start=flaky, restart=Restart.PERMANENT)]

    async with svc.open_engine(make_settings(), components=[Flaky()]) as engine:
        sessions = engine.entities.supervisor("sessions")
        with trio.fail_after(30):
            await settled.wait()
        assert crashes[0] == 6
        assert engine.entities.supervisor("sessions") is sessions
        assert engine.entities.starts["sessions"] == 1
