"""Keep saved studio workflows at structure version 2: at start-up, and whenever one is saved.

Studio workflows are automations v2 (owned by the automations domain) whose
spec carries ``metadata.studio``. A client may still save a version 1 workflow
(an older studio build); the migrator sees the ``automation.v2.created`` and
``automation.v2.updated`` events and rewrites it with
:func:`~svc.workflows.studio.migrate_studio_workflow`. Migrating is idempotent,
so the update event its own patch causes is a no-op.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import trio

from ..errors import SvcError
from ..events import EventFilter
from .run_events import TOPIC

if TYPE_CHECKING:
    from ..engine import Engine

# The studio migration itself is imported by the first saved automation it looks at: a
# fresh store has none (docs/architecture.md, "Start-up budget").

log = logging.getLogger("svc.workflows")

SAVED_EVENTS = frozenset({"automation.v2.created", "automation.v2.updated"})


def _v2(engine: Engine) -> Any | None:
    v2 = getattr(engine.automations, "v2", None)
    if v2 is None or not all(hasattr(v2, name) for name in ("all_automations", "get", "patch")):
        return None
    return v2


def migration_available(engine: Engine) -> bool:
    """Whether this engine stores automations v2 (and so can hold studio workflows)."""
    return _v2(engine) is not None


async def migrate_stored_studio_workflow(engine: Engine, automation_id: str) -> bool:
    """Migrate one saved automation if it is a studio workflow below version 2.

    True if it was rewritten.
    """
    from .studio import STRUCTURE_VERSION, migrate_studio_workflow, structure_version

    v2 = _v2(engine)
    if v2 is None:
        return False
    automation = await v2.get(automation_id)
    if automation is None:
        return False
    try:
        spec, changed = migrate_studio_workflow(automation.spec)
        if not changed:
            return False
        before = structure_version(automation.spec)
        await v2.patch(automation_id, {k: spec[k] for k in ("agents", "flow", "metadata")})
    except (SvcError, TypeError, ValueError, AttributeError, KeyError):
        # A spec the automations domain no longer accepts (or one too odd to
        # migrate) stays as saved and keeps running; the next save retries.
        # One bad workflow must not stop the migration of the others.
        log.exception("studio workflow %s could not be migrated", automation_id)
        return False
    nodes_before = automation.spec.get("flow", {}).get("nodes") or ()
    engine.events.publish(
        "workflow.studio.migrated",
        {
            "automationID": automation_id,
            "fromVersion": before,
            "toVersion": STRUCTURE_VERSION,
            "addedNodeCount": len(spec["flow"]["nodes"]) - len(nodes_before),
        },
        topic=TOPIC,
    )
    log.info("studio workflow migrated to structure version 2", extra={"automation": automation_id})
    return True


async def migrate_stored_studio_workflows(engine: Engine) -> int:
    """Bring every saved studio workflow to structure version 2; the number rewritten."""
    v2 = _v2(engine)
    if v2 is None:
        return 0
    migrated = 0
    for automation in list(v2.all_automations()):
        if await migrate_stored_studio_workflow(engine, automation.automation_id):
            migrated += 1
    return migrated


async def run_studio_migration(
    engine: Engine, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    """A long-running child: migrate what is stored, then every studio workflow saved later."""
    flt = EventFilter(topic="automations/v2", types=SAVED_EVENTS)
    while True:
        # Subscribe before scanning, so a workflow saved during the scan is
        # seen by one or the other (both is harmless: migration is idempotent).
        with engine.events.subscribe(flt) as subscription:
            task_status.started()
            task_status = trio.TASK_STATUS_IGNORED
            await migrate_stored_studio_workflows(engine)
            async for batch in subscription:
                for event in batch:
                    automation_id = event.properties.get("automationID")
                    if isinstance(automation_id, str):
                        await migrate_stored_studio_workflow(engine, automation_id)
            if not subscription.dropped:
                # The log is shutting down; the engine cancels this child next.
                await trio.sleep_forever()
        # Fell behind the log: subscribe again and rescan everything.


__all__ = [
    "migrate_stored_studio_workflow",
    "migrate_stored_studio_workflows",
    "migration_available",
    "run_studio_migration",
]
