"""What a restart does to runs in flight: v2 runs resume from their completed nodes, routine runs
end failed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import trio

import svc
from svc.events import EventFilter, EventStream
from svc.tools import Tool, ToolContext, ToolResult
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import wait_for_event

from .support import node, replies_by_step, step_of, v2_spec


async def terminal(engine: svc.Engine, run_id: str, topic: str) -> None:
    with (
        trio.fail_after(30),
        EventStream(engine.events, EventFilter(run_id=run_id, topic=topic), after_seq=0) as stream,
    ):
        while True:
            if any(
                e.type in ("run.completed", "run.failed", "run.cancelled")
                for e in await stream.receive()
            ):
                return


async def test_a_v2_run_resumes_after_a_restart_without_redoing_completed_nodes(
    settings: svc.Settings,
    fake_model: Any,
) -> None:
    hold = trio.Event()
    gates = {"second": hold}
    fake_model.default = replies_by_step(gates)
    async with svc.open_engine(settings) as engine:
        automation = await engine.automations.create_v2(
            v2_spec([node("first", "worker"), node("second", "worker", deps=["first"])])
        )
        run = await engine.automations.create_v2_run(automation.automation_id)
        await fake_model.wait_for_requests(2)
        await wait_for_event(
            engine,
            "run.step",
            run_id=run.run_id,
            where=lambda e: (
                e.properties.get("phase") == "node_started" and e.properties["nodeID"] == "second"
            ),
        )
    # The engine stopped while `second` ran; its session run was settled as interrupted.
    gates.clear()
    async with svc.open_engine(settings) as engine:
        await terminal(engine, run.run_id, "automations/v2")
        done = await engine.automations.get_v2_run(run.run_id)
        assert done.status == "completed"
        assert done.node_outputs == {"first": "output of first", "second": "output of second"}
        assert done.nodes["first"].attempts == 1 and done.nodes["second"].attempts == 2
    assert [step_of(r) for r in fake_model.requests] == ["first", "second", "second"]
    hold.set()


async def test_a_routine_run_interrupted_by_a_restart_ends_failed(
    settings: svc.Settings, fake_model: Any
) -> None:
    hold = trio.Event()
    fake_model.enqueue(Turn.reply("never", gate=hold))
    async with svc.open_engine(settings) as engine:
        await engine.automations.routines.create(
            {
                "routine_id": "r",
                "name": "r",
                "entrypoint": "mission.default",
                "schedule": {"interval_seconds": {"seconds": 3600}},
                "args": {"prompt": "x"},
            }
        )
        run = (await engine.automations.routines.run_now("r"))[0]
        await fake_model.wait_for_requests(1)
    async with svc.open_engine(settings) as engine:
        stored = await engine.automations.routines.get_run(run.run_id)
        assert stored.status == "failed" and "engine stopped" in stored.detail
        assert not engine.automations.routines.busy("r")
    hold.set()


class FakeMcpTool(Tool):
    """A tool registered under an MCP name (as a connector would), recording its calls."""

    name = "mcp.fake.echo"
    description = "echo"
    input_schema = {"type": "object", "properties": {"text": {"type": "string"}}}

    def __init__(self) -> None:
        self.calls: list[Mapping[str, Any]] = []

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        self.calls.append(args)
        return ToolResult("echoed")


async def test_external_integrations_are_refused_at_call_time_through_wildcards(
    engine: svc.Engine,
    fake_model: Any,
) -> None:
    tool = FakeMcpTool()
    engine.tools.register(tool)
    fake_model.enqueue(
        Turn.calls(FakeToolCall("mcp.fake.echo", {"text": "hi"}, id="c1")), Turn.reply("ok")
    )
    await engine.automations.routines.create(
        {
            "routine_id": "wild",
            "name": "wild",
            "allowed_tools": ["*"],
            "schedule": {"interval_seconds": {"seconds": 3600}},
            "args": {"prompt": "x"},
        }
    )
    run = (await engine.automations.routines.run_now("wild"))[0]
    await terminal(engine, run.run_id, "automations")
    assert tool.calls == []
    tool_message = next(m for m in fake_model.requests[1].body["messages"] if m["role"] == "tool")
    assert "external integration" in tool_message["content"]
