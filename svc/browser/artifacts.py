"""Browser artifacts: large extracts and screenshots written as files under the state dir.

``<state dir>/browser-artifacts/artifact-<uuid>.<ext>``; the reference a tool
returns is ``{artifact_id, uri, kind, label?, created_at_ms, metadata?}``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio

log = logging.getLogger("svc.browser")

EXTENSIONS = {"html": "html", "markdown": "md", "visible_text": "txt", "png": "png"}


async def write_artifact(
    root: Path,
    data: bytes,
    *,
    ext: str,
    kind: str,
    now_ms: int,
    label: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    artifact_id = f"artifact-{uuid.uuid4()}"
    path = root / f"{artifact_id}.{ext}"

    def write() -> None:
        root.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    await trio.to_thread.run_sync(write)
    ref: dict[str, Any] = {
        "artifact_id": artifact_id,
        "uri": str(path),
        "kind": kind,
        "created_at_ms": now_ms,
    }
    if label is not None:
        ref["label"] = label
    if metadata:
        ref["metadata"] = dict(metadata)
    return ref


RUNNING_RUNS_READ = 10_000
"""Bound on the running routine runs searched for a session (far above any concurrency)."""


async def link_to_routine_run(
    engine: Any, session_id: str | None, artifact: Mapping[str, Any]
) -> None:
    """If ``session_id`` belongs to a running routine run, append the artifact to that run
    and announce ``routine.run.artifact_added``. Best effort: the tool result already
    carries the artifact, so a failure here is logged, not raised."""
    automations = getattr(engine, "automations", None)
    if session_id is None or automations is None:
        return
    routines = automations.routines
    try:
        # The running runs only (an index holds them): the newest runs of any status were
        # read before, and a running run behind 200 newer ones was missed.
        runs = await routines.list_runs(statuses=("running",), limit=RUNNING_RUNS_READ)
        run = next((x for x in runs if session_id in x.session_ids), None)
        if run is None:
            return
        body = {k: artifact[k] for k in ("uri", "kind", "label", "metadata") if k in artifact}
        await routines.add_artifact(run.run_id, body)
    except Exception:
        log.exception("linking a browser artifact to its routine run failed")
        return
    engine.events.publish(
        "routine.run.artifact_added",
        {
            "runID": run.run_id,
            "routineID": run.routine_id,
            "automationID": run.routine_id,
            "sessionID": session_id,
            "artifact": dict(artifact),
        },
        topic="automations",
    )
