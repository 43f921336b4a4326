"""Agent teams: templates, spawns, instances, missions and spawn approvals."""

from ..records import teams as t
from ..registry import op

R = "svc.http.routes.teams"
REASON = f"{R}:ReasonBody"

OPERATIONS = {
    "list_templates": op("Agent templates", returns=t.TEAM_TEMPLATES),
    "create_template": op(
        "Create or replace an agent template (the body, or the body's `template`)",
        body="svc.teams.templates:AgentTemplate",
        returns=t.TEAM_TEMPLATE_WRITTEN,
    ),
    "patch_template": op(
        "Change an agent template", body={"type": "object"}, returns=t.TEAM_TEMPLATE_WRITTEN
    ),
    "delete_template": op("Delete an agent template", returns=t.TEAM_TEMPLATE_DELETED),
    "spawn": op(
        "Spawn an agent instance (a policy may require approval)",
        body=f"{R}:SpawnBody",
        body_required=True,
        returns=t.SPAWN_RESULT,
    ),
    "list_instances": op(
        "Agent instances", returns=t.TEAM_INSTANCES, query=("missionID", "status")
    ),
    "get_instance": op("An agent instance", returns=t.TEAM_INSTANCE_ENVELOPE),
    "prompt_instance": op(
        "Prompt an agent instance",
        body=f"{R}:PromptBody",
        status=202,
        returns=t.TEAM_INSTANCE_PROMPTED,
    ),
    "cancel_instance": op(
        "Cancel an agent instance", body=REASON, returns=t.TEAM_INSTANCE_CANCELLED
    ),
    "list_missions": op("Agent-team missions with rollups", returns=t.TEAM_MISSIONS),
    "cancel_mission": op(
        "Cancel every instance of a mission", body=REASON, returns=t.TEAM_MISSION_CANCELLED
    ),
    "list_approvals": op("Pending spawn approvals", returns=t.TEAM_APPROVALS),
    "approve_spawn": op("Approve a spawn request", body=REASON, returns=t.SPAWN_RESULT),
    "deny_spawn": op("Deny a spawn request", body=REASON, returns=t.SPAWN_DENIED),
}
