"""Builders and fake-model scripts shared by the automation tests."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import trio

import svc
from svc.events import EventFilter, EventStream
from tests.fakes.turns import Turn

STEP = re.compile(r"^Step: (\S+)$", re.MULTILINE)


def agent(
    agent_id: str,
    *,
    allow: list[str] | None = None,
    deny: list[str] | None = None,
    servers: list[str] | None = None,
    model: tuple[str, str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "agent_id": agent_id,
        "display_name": agent_id.title(),
        "tool_policy": {
            "allowlist": allow if allow is not None else ["read"],
            "denylist": deny or [],
        },
        "mcp_policy": {"allowed_servers": servers or []},
        **extra,
    }
    if model is not None:
        body["model_policy"] = {"default_model": {"provider_id": model[0], "model_id": model[1]}}
    return body


def node(
    node_id: str,
    agent_id: str,
    objective: str | None = None,
    *,
    deps: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "node_id": node_id,
        "agent_id": agent_id,
        "objective": objective or f"do {node_id}",
        "depends_on": deps or [],
        **extra,
    }


def v2_spec(
    nodes: list[dict[str, Any]],
    agents: list[dict[str, Any]] | None = None,
    *,
    name: str = "pipeline",
    parallel: int = 1,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "name": name,
        "status": "active",
        "schedule": {"type": "manual", "timezone": "UTC", "misfire_policy": {"type": "run_once"}},
        "agents": agents or [agent("worker")],
        "flow": {"nodes": nodes},
        "execution": {"max_parallel_agents": parallel},
        **extra,
    }


def step_of(request: Any) -> str | None:
    """The v2 node a model request belongs to (from the ``Step:`` line of its prompt)."""
    for message in reversed(request.body.get("messages") or []):
        if message.get("role") == "user":
            found = STEP.search(message.get("content") or "")
            return found.group(1) if found else None
    return None


def user_prompt(request: Any) -> str:
    for message in reversed(request.body.get("messages") or []):
        if message.get("role") == "user":
            return message.get("content") or ""
    return ""


def offered_tools(request: Any) -> set[str]:
    return {t["function"]["name"] for t in request.body.get("tools") or []}


def replies_by_step(gates: dict[str, trio.Event] | None = None) -> Callable[[Any], Turn]:
    """A fake-model default: each node answers ``output of <node>`` (held by its gate, if any)."""

    def answer(request: Any) -> Turn:
        step = step_of(request) or "unknown"
        gate = (gates or {}).get(step)
        return (
            Turn.reply(f"output of {step}", gate=gate)
            if gate is not None
            else Turn.reply(f"output of {step}")
        )

    return answer


async def settled(engine: svc.Engine, run_id: str) -> Any:
    """The automation v2 run once its terminal event (run.completed / run.failed / run.cancelled) is
    out."""
    with (
        trio.fail_after(30),
        EventStream(
            engine.events, EventFilter(run_id=run_id, topic="automations/v2"), after_seq=0
        ) as stream,
    ):
        while True:
            for event in await stream.receive():
                if event.type in ("run.completed", "run.failed", "run.cancelled"):
                    return await engine.automations.get_v2_run(run_id)
