"""Every blueprint, one per area of the spec. A new area adds its module here."""

from quart import Blueprint

from . import (
    approvals,
    automations,
    automations_v2,
    browser,
    coder,
    enterprise,
    events,
    global_,
    goals,
    identity,
    incidents,
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
    automations_v2.bp,
    missions.bp,
    identity.bp,
    memory.bp,
    storage.bp,
    incidents.bp,
    browser.bp,
    enterprise.bp,
    coder.bp,
]
