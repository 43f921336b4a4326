"""Records of skills, the resource store, packs, capabilities and optimization campaigns."""

from __future__ import annotations

from ..registry import Record
from .common import ARR, BOOL, INT, NULL_INT, NULL_STR, OBJ, STR, array_of, obj, of

SKILL = Record(
    "Skill",
    obj(
        {
            "id": STR,
            "name": STR,
            "description": STR,
            "version": NULL_STR,
            "location": STR,
            "path": STR,
            "hash": STR,
            "pack": NULL_STR,
        },
        {"content": STR, "body": STR, "metadata": OBJ, "template_id": STR},
    ),
)
SKILLS = Record("Skills", obj({"skills": array_of(SKILL), "count": INT}))
SKILL_TEMPLATES = Record("SkillTemplates", obj({"templates": array_of(SKILL), "count": INT}))
SKILL_IMPORT = Record(
    "SkillImport",
    obj(
        {
            "ok": BOOL,
            "dry_run": BOOL,
            "location": STR,
            "root": STR,
            "conflict_policy": STR,
            "imported": INT,
            "skipped": INT,
            "items": array_of(obj({"id": STR, "name": STR, "path": STR, "action": STR})),
        }
    ),
)

RESOURCE = Record(
    "Resource",
    obj(
        {
            "key": STR,
            "value": {},
            "rev": INT,
            "created_at_ms": INT,
            "updated_at_ms": INT,
            "updated_by": NULL_STR,
            "expires_at_ms": NULL_INT,
        }
    ),
)
RESOURCES = Record("Resources", obj({"items": array_of(RESOURCE), "count": INT}))
RESOURCE_WRITTEN = Record("ResourceWritten", {"allOf": [of(RESOURCE), obj({"ok": BOOL})]})
RESOURCE_DELETED = Record(
    "ResourceDeleted", obj({"ok": BOOL, "deleted": BOOL, "key": STR, "rev": INT})
)

PACK = Record(
    "Pack",
    obj(
        {
            "pack_id": STR,
            "id": STR,
            "name": STR,
            "version": {},
            "manifest": OBJ,
            "source": {},
            "install_path": STR,
            "installed_at_ms": INT,
            "updated_at_ms": INT,
        },
        {"description": {}},
    ),
)
PACKS = Record("Packs", obj({"packs": array_of(PACK), "count": INT}))
PACK_INSTALLED = Record(
    "PackInstalled",
    obj(
        {
            "ok": BOOL,
            "installed": BOOL,
            "pack": of(PACK),
            "previous_version": {},
            "contents": obj({"skills": {}, "workflows": {}}),
        }
    ),
)
PACK_UNINSTALLED = Record("PackUninstalled", obj({"ok": BOOL, "uninstalled": {}, "pack": {}}))
PACK_EXPORTED = Record(
    "PackExported",
    obj({"ok": BOOL, "pack": {}, "path": {}, "output_path": STR, "bytes": INT, "sha256": STR}),
)
PACK_DETECTED = Record(
    "PackDetected", obj({"ok": BOOL, "is_pack": BOOL, "path": STR}, {"reason": STR})
)
PACK_INSPECTED = Record("PackInspected", obj({"pack": of(PACK), "contents": {}, "state": {}}))
PACK_UPDATES = Record(
    "PackUpdates",
    obj(
        {
            "ok": BOOL,
            "pack_id": STR,
            "name": STR,
            "current_version": {},
            "available_version": {},
            "update_available": BOOL,
            "source": {},
            "reason": {},
        }
    ),
)
PACK_UPDATED = Record(
    "PackUpdated",
    obj(
        {"ok": BOOL, "updated": BOOL, "from_version": {}, "to_version": {}, "pack": {}},
        {"reason": {}},
    ),
)

CAPABILITY_BINDINGS = Record(
    "CapabilityBindings",
    obj({"bindings": OBJ, "count": INT, "updated_at_ms": NULL_INT}, {"ok": BOOL}),
)
CAPABILITY_DISCOVERY = Record(
    "CapabilityDiscovery",
    obj({"capabilities": ARR, "count": INT, "tools": {}, "mcp_servers": {}}),
)
CAPABILITY_RESOLUTION = Record(
    "CapabilityResolution",
    obj(
        {
            "ok": BOOL,
            "workflow_id": {},
            "resolved": ARR,
            "resolved_capabilities": {},
            "required_capabilities": {},
            "missing": ARR,
            "missing_required_capabilities": {},
        }
    ),
)

OPTIMIZATION = Record(
    "Optimization",
    obj(
        {
            "optimization_id": STR,
            "id": STR,
            "name": STR,
            "status": STR,
            "experiment_count": INT,
            "winner_experiment_id": NULL_STR,
            "history": ARR,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        }
    ),
)
EXPERIMENT = Record(
    "OptimizationExperiment",
    obj(
        {
            "experiment_id": STR,
            "id": STR,
            "optimization_id": STR,
            "name": STR,
            "status": STR,
            "winner": BOOL,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        }
    ),
)
OPTIMIZATIONS = Record(
    "Optimizations",
    obj({"optimizations": array_of(OPTIMIZATION), "items": array_of(OPTIMIZATION), "count": INT}),
)
OPTIMIZATION_ENVELOPE = Record(
    "OptimizationEnvelope",
    {"allOf": [of(OPTIMIZATION), obj({"optimization": of(OPTIMIZATION)}, {"ok": BOOL})]},
)
OPTIMIZATION_ACTION = Record(
    "OptimizationAction",
    obj(
        {"ok": BOOL, "optimization": of(OPTIMIZATION)},
        {
            "action": STR,
            "status": STR,
            "reason": {},
            "experiment": of(EXPERIMENT),
            "applied": {},
            "note": {},
        },
    ),
)
EXPERIMENTS = Record(
    "OptimizationExperiments",
    obj({"optimization_id": STR, "experiments": array_of(EXPERIMENT), "count": INT}),
)
EXPERIMENT_ENVELOPE = Record(
    "OptimizationExperimentEnvelope",
    {"allOf": [of(EXPERIMENT), obj({"experiment": of(EXPERIMENT)})]},
)

RECORDS = (
    SKILL,
    SKILLS,
    SKILL_TEMPLATES,
    SKILL_IMPORT,
    RESOURCE,
    RESOURCES,
    RESOURCE_WRITTEN,
    RESOURCE_DELETED,
    PACK,
    PACKS,
    PACK_INSTALLED,
    PACK_UNINSTALLED,
    PACK_EXPORTED,
    PACK_DETECTED,
    PACK_INSPECTED,
    PACK_UPDATES,
    PACK_UPDATED,
    CAPABILITY_BINDINGS,
    CAPABILITY_DISCOVERY,
    CAPABILITY_RESOLUTION,
    OPTIMIZATION,
    EXPERIMENT,
    OPTIMIZATIONS,
    OPTIMIZATION_ENVELOPE,
    OPTIMIZATION_ACTION,
    EXPERIMENTS,
    EXPERIMENT_ENVELOPE,
)
