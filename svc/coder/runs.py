"""Coder runs: a workflow's steps run one by one in a session of the bound workspace.

``start_step`` prompts the run's session with the next step; a **follower**
waits for that session run to end (by its id, through the event log, so it works
for a run started before an engine restart as well as for one started now) and
settles the step: the next step starts when the run executes all of them, the
run waits for the next ``execute-next`` otherwise, and after the last step it
completes or waits for approval. Every change of a run linked to a project item
moves the item's status on the board (:meth:`CoderService.sync`).

State changes of one run take its serial turn, so a follower settling a step and
a request cancelling the run never interleave.
"""

from __future__ import annotations

import logging
import uuid
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import SvcError
from .errors import RunConflict, RunNotFound
from .records import CoderRun, CoderStep
from .workflows import NEEDS_APPROVAL

if TYPE_CHECKING:
    from ..sessions import Run
    from .service import CoderService

log = logging.getLogger(__name__)

STEP_STATUS = {"completed": "completed", "cancelled": "cancelled"}
INTERRUPTED = frozenset({"ENGINE_STOPPING", "ENGINE_RESTARTED"})
"""Error codes of session runs the engine ended itself (not the step's failure)."""


def new_run_id() -> str:
    return f"coder-{uuid.uuid4().hex[:20]}"


async def require_run(svc: CoderService, coder_run_id: str) -> CoderRun:
    run = await svc.runs.get(coder_run_id)
    if run is None:
        raise RunNotFound(coder_run_id=coder_run_id)
    return run


def _next_step(run: CoderRun) -> CoderStep | None:
    return next((s for s in run.steps if s.status in ("pending", "failed")), None)


def _replace_step(run: CoderRun, step: CoderStep) -> CoderRun:
    steps = tuple(step if s.step_id == step.step_id else s for s in run.steps)
    return attrs.evolve(run, steps=steps)


async def _ensure_session(svc: CoderService, run: CoderRun) -> CoderRun:
    if run.session_id is not None:
        return run
    from ..sessions import CreateSession

    root = run.repo_binding.workspace_root if run.repo_binding else None
    session = await svc.engine.sessions.create(
        CreateSession(
            title=run.objective.splitlines()[0][:120],
            directory=root,
            project_id=run.project_id,
            source_kind="coder",
            source_metadata={"coder_run_id": run.coder_run_id},
            provider_id=(run.model or {}).get("provider_id"),
            model_id=(run.model or {}).get("model_id"),
        )
    )
    return attrs.evolve(run, session_id=session.id)


async def start_step(svc: CoderService, run: CoderRun) -> CoderRun:
    """Prompt the session with the run's next step (call within the run's turn)."""
    from ..sessions import RunRequest

    step = _next_step(run)
    if step is None:
        raise RunConflict("the coder run has no step left to execute", run_status=run.status)
    run = await _ensure_session(svc, run)
    assert run.session_id is not None
    started = await svc.engine.sessions.prompt(
        run.session_id,
        RunRequest(
            parts=({"type": "text", "text": step.prompt},),
            source="coder",
            metadata={"coder_run_id": run.coder_run_id, "coder_step_id": step.step_id},
        ),
    )
    now = svc.engine.clock.now_ms()
    step = attrs.evolve(step, status="running", run_id=started.run.id, started_at_ms=now)
    run = attrs.evolve(
        _replace_step(run, step),
        status="running",
        run_id=started.run.id,
        status_reason=None,
        updated_at_ms=now,
    )
    run = await svc.save(run)
    svc.engine.spawn_background(follow, svc, run.coder_run_id, started.run.id)
    return run


async def session_run_end(svc: CoderService, run_id: str) -> Run | None:
    """The session run once it has ended (None: it vanished, or the engine is stopping)."""
    from ..events import EventFilter, EventStream, StreamEnded

    events = svc.engine.events
    # The cursor is taken before the store is read, so an end committed in
    # between is replayed by the stream rather than missed.
    after = events.committed_seq
    repo = svc.engine.sessions.repo
    found = await repo.get_run(run_id)
    if found is None or not found.active:
        return found
    watch = EventFilter(run_id=run_id, types=("session.run.finished",))
    with EventStream(events, watch, after_seq=after) as stream:
        while True:
            try:
                await stream.receive()
            except StreamEnded:
                return None  # shutting down: the next start resumes the follower
            found = await repo.get_run(run_id)
            if found is None or not found.active:
                return found


async def follow(
    svc: CoderService, coder_run_id: str, run_id: str, *, resumed: bool = False
) -> None:
    """Settle the coder run's step once its session run ends.

    A session run the engine itself ended (stopping, or a crash settled at start-up)
    did not fail: the step is left running while the engine stops, and the follower
    resumed at the next start runs it again.
    """
    final = await session_run_end(svc, run_id)
    if final is None:
        return
    interrupted = final.error_code in INTERRUPTED
    if interrupted and not resumed:
        return  # the engine is stopping: the next start resumes this step
    async with svc.serial.turn(("run", coder_run_id)):
        run = await svc.runs.get(coder_run_id)
        step = next((s for s in run.steps if s.run_id == run_id), None) if run else None
        if run is None or step is None or step.status != "running":
            return  # settled already (the run was cancelled)
        if interrupted:
            retry = attrs.evolve(step, status="pending", run_id=None, started_at_ms=None)
            try:
                await start_step(svc, _replace_step(run, retry))
                return
            except SvcError as exc:
                log.warning("could not resume coder run %s: %s", coder_run_id, exc.message)
        status = STEP_STATUS.get(final.status, "failed")
        now = svc.engine.clock.now_ms()
        run = _replace_step(run, attrs.evolve(step, status=status, finished_at_ms=now))
        reason = final.error_message or final.error_code
        if status == "failed":
            run = attrs.evolve(run, status="failed", status_reason=reason, updated_at_ms=now)
        elif status == "cancelled":
            run = attrs.evolve(run, status="cancelled", updated_at_ms=now)
        elif _next_step(run) is None:
            done = "awaiting_approval" if run.workflow in NEEDS_APPROVAL else "completed"
            run = attrs.evolve(run, status=done, updated_at_ms=now)
        elif run.auto_continue:
            try:
                await start_step(svc, run)
                return
            except SvcError as exc:
                run = attrs.evolve(
                    run, status="failed", status_reason=exc.message, updated_at_ms=now
                )
        else:
            run = attrs.evolve(run, status="queued", updated_at_ms=now)
        await svc.save(run)


async def resume_followers(svc: CoderService) -> int:
    """After a restart: follow again every step that was running when the engine stopped.

    The session run was settled by start-up recovery (or is still running on another
    replica); either way the follower sees its end and moves the run, and its project
    item, on.
    """
    resumed = 0
    for run in await svc.runs.active():
        for step in run.steps:
            if step.status == "running" and step.run_id is not None:
                svc.engine.spawn_background(_resume, svc, run.coder_run_id, step.run_id)
                resumed += 1
    if resumed:
        log.info("resumed %d coder run follower(s)", resumed)
    return resumed


async def _resume(svc: CoderService, coder_run_id: str, run_id: str) -> None:
    await follow(svc, coder_run_id, run_id, resumed=True)


async def execute(svc: CoderService, coder_run_id: str, *, all_steps: bool) -> CoderRun:
    async with svc.serial.turn(("run", coder_run_id)):
        run = await require_run(svc, coder_run_id)
        if run.status in ("completed", "cancelled", "awaiting_approval"):
            raise RunConflict(f"the coder run is {run.status}", run_status=run.status)
        running = any(s.status == "running" for s in run.steps)
        if running:
            if not all_steps:
                raise RunConflict("a step of the coder run is running", run_status=run.status)
            return await svc.save(attrs.evolve(run, auto_continue=True))
        return await start_step(svc, attrs.evolve(run, auto_continue=all_steps))


async def cancel(svc: CoderService, coder_run_id: str, reason: str | None) -> CoderRun:
    async with svc.serial.turn(("run", coder_run_id)):
        run = await require_run(svc, coder_run_id)
        if not run.active:
            raise RunConflict(f"the coder run is already {run.status}", run_status=run.status)
        now = svc.engine.clock.now_ms()
        steps = []
        for step in run.steps:
            if step.status == "running":
                if run.session_id is not None:
                    await svc.engine.sessions.cancel(run.session_id, step.run_id, "coder_cancelled")
                step = attrs.evolve(step, status="cancelled", finished_at_ms=now)
            steps.append(step)
        run = attrs.evolve(
            run,
            steps=tuple(steps),
            status="cancelled",
            auto_continue=False,
            status_reason=reason or "cancelled",
            updated_at_ms=now,
        )
        return await svc.save(run)


async def approve(svc: CoderService, coder_run_id: str, reason: str | None) -> CoderRun:
    async with svc.serial.turn(("run", coder_run_id)):
        run = await require_run(svc, coder_run_id)
        if run.status != "awaiting_approval":
            raise RunConflict(
                f"the coder run is {run.status}, not awaiting approval", run_status=run.status
            )
        run = attrs.evolve(
            run,
            status="completed",
            status_reason=reason or "approved",
            updated_at_ms=svc.engine.clock.now_ms(),
        )
        return await svc.save(run)


def run_wire(run: CoderRun) -> dict[str, Any]:
    from ..convert import converter

    wire = converter.unstructure(run)
    wire["workflow_mode"] = run.workflow
    wire["linked_context_run_id"] = run.session_id
    wire["phase"] = run.phase
    wire["active"] = run.active
    if run.repo_binding is not None:
        wire["repo_binding"] = {**wire["repo_binding"], "project_id": run.project_id}
    return wire


__all__ = [
    "approve",
    "cancel",
    "execute",
    "follow",
    "new_run_id",
    "require_run",
    "resume_followers",
    "run_wire",
    "session_run_end",
    "start_step",
]
