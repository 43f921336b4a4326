"""Records of orchestrations (drafts, versions) and goals (runs, transitions, waits)."""

from __future__ import annotations

from ..registry import Record, ref
from .common import (
    ARR,
    BOOL,
    INT,
    NULL_INT,
    NULL_OBJ,
    NULL_STR,
    NUM,
    OBJ,
    STR,
    array_of,
    nullable,
    obj,
    of,
)

ORCHESTRATION_NODE = Record(
    "OrchestrationNode", obj({"node_id": STR, "name": STR, "kind": STR, "position": OBJ})
)
ORCHESTRATION_EDGE = Record(
    "OrchestrationEdge",
    obj({"edge_id": STR, "from_node_id": STR, "to_node_id": STR, "transition_key": STR}),
)
ORCHESTRATION = Record(
    "Orchestration",
    obj(
        {
            "schema_version": INT,
            "orchestration_id": STR,
            "name": STR,
            "status": {"enum": ["draft", "published", "archived"]},
            "version": INT,
            "root_node_id": STR,
            "nodes": array_of(ORCHESTRATION_NODE),
            "edges": array_of(ORCHESTRATION_EDGE),
            "goal_policy": OBJ,
            "tenant_context": OBJ,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        },
        {"description": STR, "published_at_ms": NULL_INT, "metadata": {}},
    ),
)
ORCHESTRATION_VERSION = Record(
    "OrchestrationVersion",
    obj(
        {
            "orchestration": of(ORCHESTRATION),
            "orchestration_id": STR,
            "version": INT,
            "status": STR,
            "updated_at_ms": INT,
        }
    ),
)
ORCHESTRATIONS = Record(
    "Orchestrations",
    obj(
        {
            "orchestrations": array_of(
                obj(
                    {
                        "orchestration_id": STR,
                        "name": STR,
                        "draft": nullable(obj({"status": STR, "updated_at_ms": INT})),
                        "latest_published_version": NULL_INT,
                        "published_versions": array_of(
                            obj({"version": INT, "published_at_ms": NULL_INT})
                        ),
                    }
                )
            ),
            "count": INT,
        }
    ),
)
ORCHESTRATION_AGGREGATE = Record(
    "OrchestrationAggregate",
    obj(
        {
            "orchestration_id": STR,
            "draft": nullable(ORCHESTRATION),
            "latest_published": nullable(ORCHESTRATION),
        }
    ),
)
ORCHESTRATION_VERSIONS = Record(
    "OrchestrationVersions",
    obj(
        {
            "orchestration_id": STR,
            "versions": array_of(obj({"version": INT, "name": STR, "published_at_ms": NULL_INT})),
            "count": INT,
        }
    ),
)
_REFERENCE = obj({"node_id": STR, "automation_id": STR, "state": STR})
ORCHESTRATION_VALIDATION = Record(
    "OrchestrationValidation",
    obj(
        {
            "orchestration_id": STR,
            "version": INT,
            "report": obj({"valid": BOOL, "issues": ARR}),
            "stale_references": array_of(_REFERENCE),
        }
    ),
)
STALE_REFERENCES = Record(
    "OrchestrationStaleReferences",
    obj({"orchestration_id": STR, "references": array_of(_REFERENCE), "stale_count": INT}),
)
REFRESHED_REFERENCES = Record(
    "OrchestrationRefreshedReferences",
    obj({"orchestration": of(ORCHESTRATION), "refreshed_node_ids": ARR}),
)
DRY_RUN = Record("TransitionDryRun", obj({"allowed": BOOL, "issues": ARR}))

GOAL = Record(
    "Goal",
    obj(
        {
            "schema_version": INT,
            "goal_id": STR,
            "orchestration_id": STR,
            "orchestration_version": INT,
            "objective": STR,
            "status": STR,
            "tenant_context": OBJ,
            "policy": OBJ,
            "hop_count": INT,
            "total_tokens": INT,
            "total_cost_usd": NUM,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        },
        {
            "active_run_id": STR,
            "current_node_id": STR,
            "finished_at_ms": INT,
            "final_artifact": {},
            "metadata": {},
        },
    ),
)
GOALS = Record("Goals", obj({"goals": array_of(GOAL), "count": INT}))
GOAL_STARTED = Record(
    "GoalStarted", obj({"goal": of(GOAL), "root_run_id": NULL_STR, "replayed": BOOL})
)
GOAL_VIEW = Record(
    "GoalView", obj({"goal": of(GOAL), "goal_id": STR, "status": STR, "budgets": OBJ})
)
GOAL_OUTCOME = Record(
    "GoalOutcome",
    obj(
        {"outcome": STR, "goal": of(GOAL)},
        {"handoff": ref("Handoff"), "commit": {}, "downstream_run_id": {}, "link": {}},
    ),
)
GOAL_GRAPH = Record(
    "GoalGraph",
    obj(
        {
            "goal_id": STR,
            "status": STR,
            "orchestration_id": STR,
            "orchestration_version": INT,
            "nodes": ARR,
            "edges": ARR,
            "budgets": {},
        }
    ),
)
RUN_LINK = Record(
    "GoalRunLink",
    obj(
        {
            "goal_id": STR,
            "run_id": STR,
            "orchestration_node_id": STR,
            "orchestration_version": INT,
            "hop_index": INT,
            "parent_run_id": NULL_STR,
            "triggering_handoff_id": NULL_STR,
            "created_at_ms": INT,
        }
    ),
)
GOAL_RUNS = Record(
    "GoalRuns",
    obj(
        {
            "goal_id": STR,
            "active_run_id": NULL_STR,
            "runs": array_of(obj({"link": of(RUN_LINK), "run": NULL_OBJ})),
            "count": INT,
        }
    ),
)
GOAL_ARTIFACTS = Record(
    "GoalArtifacts",
    obj(
        {
            "goal_id": STR,
            "artifacts": array_of(
                obj(
                    {
                        "artifact": {},
                        "handoff_id": STR,
                        "transition_key": STR,
                        "source_run_id": STR,
                        "created_at_ms": INT,
                    }
                )
            ),
            "final_artifact": {},
            "count": INT,
        }
    ),
)
GOAL_BUDGETS = Record("GoalBudgets", obj({"goal_id": STR, "status": STR, "budgets": OBJ}))
HANDOFF = Record(
    "Handoff",
    obj(
        {
            "schema_version": INT,
            "handoff_id": STR,
            "idempotency_key": STR,
            "goal_id": STR,
            "orchestration_id": STR,
            "orchestration_version": INT,
            "tenant_context": OBJ,
            "edge_id": STR,
            "transition_key": STR,
            "source_automation_id": STR,
            "source_run_id": STR,
            "source_node_id": STR,
            "target_automation_id": STR,
            "target_node_id": STR,
            "artifact": {},
            "status": STR,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        },
        {"consumed_by_run_id": STR, "metadata": OBJ},
    ),
)
GOAL_HANDOFFS = Record(
    "GoalHandoffs", obj({"goal_id": STR, "handoffs": array_of(HANDOFF), "count": INT})
)
GOAL_HANDOFF = Record("GoalHandoff", obj({"handoff": of(HANDOFF)}))
GOAL_WAITS = Record("GoalWaits", obj({"goal_id": STR, "waits": ARR, "count": INT}))
GOAL_WAIT = Record("GoalWait", obj({"goal_id": STR, "wait": OBJ}))
GOAL_EVENTS = Record(
    "GoalEvents",
    obj(
        {
            "goal_id": STR,
            "events": array_of(obj({"cursor": INT, "event": OBJ})),
            "count": INT,
            "last_cursor": NULL_INT,
            "event_source": {},
        }
    ),
)
GOAL_PROJECTION = Record(
    "GoalProjection",
    obj(
        {
            "schema_version": INT,
            "goal_id": STR,
            "mode": {},
            "cursor": {},
            "goal": {},
            "graph": {},
            "timeline": OBJ,
            "actions": ARR,
        }
    ),
)
LEGACY_HANDOFFS = Record(
    "LegacyHandoffs",
    obj({"handoffs": ARR, "count": INT, "quarantined": ARR, "quarantined_count": INT}),
)

RECORDS = (
    ORCHESTRATION_NODE,
    ORCHESTRATION_EDGE,
    ORCHESTRATION,
    ORCHESTRATION_VERSION,
    ORCHESTRATIONS,
    ORCHESTRATION_AGGREGATE,
    ORCHESTRATION_VERSIONS,
    ORCHESTRATION_VALIDATION,
    STALE_REFERENCES,
    REFRESHED_REFERENCES,
    DRY_RUN,
    GOAL,
    GOALS,
    GOAL_STARTED,
    GOAL_VIEW,
    GOAL_OUTCOME,
    GOAL_GRAPH,
    RUN_LINK,
    GOAL_RUNS,
    GOAL_ARTIFACTS,
    GOAL_BUDGETS,
    HANDOFF,
    GOAL_HANDOFFS,
    GOAL_HANDOFF,
    GOAL_WAITS,
    GOAL_WAIT,
    GOAL_EVENTS,
    GOAL_PROJECTION,
    LEGACY_HANDOFFS,
)
