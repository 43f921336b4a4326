"""Records of agent teams: templates, instances, missions and spawn approvals."""

from __future__ import annotations

from ..registry import Record
from .common import BOOL, INT, NULL_INT, NULL_STR, NUM, OBJ, STR, array_of, obj, of

TEAM_TEMPLATE = Record(
    "AgentTemplate",
    obj(
        {"templateID": STR, "id": STR, "name": STR, "role": STR, "skills": array_of(OBJ)},
        {
            "display_name": STR,
            "avatar_url": STR,
            "system_prompt": STR,
            "default_model": obj({"provider_id": STR, "model_id": STR}),
            "default_budget": OBJ,
            "capabilities": OBJ,
        },
    ),
)
TEAM_TEMPLATES = Record("AgentTemplates", obj({"templates": array_of(TEAM_TEMPLATE), "count": INT}))
TEAM_TEMPLATE_WRITTEN = Record(
    "AgentTemplateWritten", obj({"ok": BOOL, "template": of(TEAM_TEMPLATE)})
)
TEAM_TEMPLATE_DELETED = Record(
    "AgentTemplateDeleted", obj({"ok": BOOL, "deleted": BOOL, "templateID": STR})
)

_WORKSPACE = {"workspaceRoot": STR, "workspaceRepoRoot": STR, "managedWorktree": {"type": "null"}}
TEAM_INSTANCE = Record(
    "AgentInstance",
    obj(
        {
            "instanceID": STR,
            "missionID": STR,
            "role": STR,
            "templateID": STR,
            "sessionID": STR,
            "status": STR,
            "budget": OBJ,
            "skillHash": STR,
            "capabilities": OBJ,
            "metadata": obj({"source": STR, "justification": STR, **_WORKSPACE}),
            "createdAtMs": INT,
            "updatedAtMs": INT,
        },
        {"parentInstanceID": STR, "runID": STR, "endedAtMs": INT},
    ),
)
TEAM_INSTANCES = Record("AgentInstances", obj({"instances": array_of(TEAM_INSTANCE), "count": INT}))
TEAM_INSTANCE_ENVELOPE = Record("AgentInstanceEnvelope", obj({"instance": of(TEAM_INSTANCE)}))
TEAM_INSTANCE_PROMPTED = Record(
    "AgentInstancePrompted",
    obj({"ok": BOOL, "instanceID": STR, "sessionID": STR, "runID": STR, "status": STR}),
)
TEAM_INSTANCE_CANCELLED = Record(
    "AgentInstanceCancelled",
    obj({"ok": BOOL, "instanceID": STR, "sessionID": STR, "status": STR}),
)
TEAM_MISSION = Record(
    "AgentTeamMission",
    obj(
        {
            "missionID": STR,
            "instanceCount": INT,
            "runningCount": INT,
            "completedCount": INT,
            "failedCount": INT,
            "cancelledCount": INT,
            "queuedCount": INT,
            "tokenUsedTotal": INT,
            "toolCallsUsedTotal": INT,
            "stepsUsedTotal": INT,
            "costUsedUsdTotal": NUM,
        },
        {"budget": OBJ, "exhaustedBy": NULL_STR, "cancelledAtMs": NULL_INT},
    ),
)
TEAM_MISSIONS = Record("AgentTeamMissions", obj({"missions": array_of(TEAM_MISSION), "count": INT}))
TEAM_MISSION_CANCELLED = Record(
    "AgentTeamMissionCancelled",
    obj({"ok": BOOL, "missionID": STR, "cancelledInstances": INT}),
)
SPAWN_RESULT = Record(
    "SpawnResult",
    obj(
        {"ok": BOOL},
        {
            "missionID": STR,
            "instanceID": STR,
            "sessionID": STR,
            "runID": NULL_STR,
            "status": STR,
            "skillHash": STR,
            **_WORKSPACE,
            "approvalID": STR,
            "decision": STR,
            "reason": STR,
            "code": STR,
            "error": STR,
            "requiresUserApproval": BOOL,
        },
    ),
)
SPAWN_DENIED = Record(
    "SpawnDenied",
    obj({"ok": BOOL, "approvalID": STR, "decision": STR, "reason": STR}),
)
SPAWN_APPROVAL = Record(
    "SpawnApproval",
    obj(
        {
            "approvalID": STR,
            "createdAtMs": INT,
            "request": obj({"role": STR, "source": STR}),
            "decisionCode": STR,
            "reason": STR,
        }
    ),
)
TEAM_TOOL_APPROVAL = Record(
    "AgentToolApproval",
    obj(
        {
            "approvalID": STR,
            "toolCallID": STR,
            "tool": STR,
            "args": OBJ,
            "status": STR,
            "requestedAtMs": INT,
            "instanceID": STR,
            "missionID": STR,
        },
        {"sessionID": STR, "runID": STR},
    ),
)
TEAM_APPROVALS = Record(
    "AgentTeamApprovals",
    obj(
        {
            "spawnApprovals": array_of(SPAWN_APPROVAL),
            "toolApprovals": array_of(TEAM_TOOL_APPROVAL),
            "count": INT,
        }
    ),
)

RECORDS = (
    TEAM_TEMPLATE,
    TEAM_TEMPLATES,
    TEAM_TEMPLATE_WRITTEN,
    TEAM_TEMPLATE_DELETED,
    TEAM_INSTANCE,
    TEAM_INSTANCES,
    TEAM_INSTANCE_ENVELOPE,
    TEAM_INSTANCE_PROMPTED,
    TEAM_INSTANCE_CANCELLED,
    TEAM_MISSION,
    TEAM_MISSIONS,
    TEAM_MISSION_CANCELLED,
    SPAWN_RESULT,
    SPAWN_DENIED,
    SPAWN_APPROVAL,
    TEAM_TOOL_APPROVAL,
    TEAM_APPROVALS,
)
