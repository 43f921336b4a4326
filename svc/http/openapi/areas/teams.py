"""Agent teams: templates, spawns, instances, missions and spawn approvals."""

from ..registry import OBJECT, op

R = "svc.http.routes.teams"
REASON = f"{R}:ReasonBody"

OPERATIONS = {
    "list_templates": op("Agent templates", returns=OBJECT),
    "create_template": op(
        "Create or replace an agent template (the body, or the body's `template`)",
        body="svc.teams.templates:AgentTemplate",
        returns=OBJECT,
    ),
    "patch_template": op("Change an agent template", body={"type": "object"}, returns=OBJECT),
    "delete_template": op("Delete an agent template", returns=OBJECT),
    "spawn": op(
        "Spawn an agent instance (a policy may require approval)",
        body=f"{R}:SpawnBody",
        body_required=True,
        returns=OBJECT,
    ),
    "list_instances": op("Agent instances", returns=OBJECT, query=("missionID", "status")),
    "get_instance": op("An agent instance", returns=OBJECT),
    "prompt_instance": op(
        "Prompt an agent instance", body=f"{R}:PromptBody", status=202, returns=OBJECT
    ),
    "cancel_instance": op("Cancel an agent instance", body=REASON, returns=OBJECT),
    "list_missions": op("Agent-team missions with rollups", returns=OBJECT),
    "cancel_mission": op("Cancel every instance of a mission", body=REASON, returns=OBJECT),
    "list_approvals": op("Pending spawn approvals", returns=OBJECT),
    "approve_spawn": op("Approve a spawn request", body=REASON, returns=OBJECT),
    "deny_spawn": op("Deny a spawn request", body=REASON, returns=OBJECT),
}
