"""Every blueprint, one per area of the spec. A new area adds its module here."""

from quart import Blueprint

from . import (
    approvals,
    automations,
    channels,
    events,
    global_,
    goals,
    identity,
    mcp,
    memory,
    missions,
    sessions,
    storage,
    teams,
    tools,
    workflows,
)

BLUEPRINTS: list[Blueprint] = [
    global_.bp,
    events.bp,
    sessions.bp,
    tools.bp,
    approvals.bp,
    workflows.bp,
    teams.bp,
    mcp.bp,
    goals.bp,
    automations.bp,
    missions.bp,
    identity.bp,
    memory.bp,
    storage.bp,
    channels.bp,
]
