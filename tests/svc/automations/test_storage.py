"""Automations storage: creation order as a named column (migration 015), portable upserts."""

from __future__ import annotations

import pathlib

import apsw
import attrs
import pytest

import svc
from svc.store.sqlite.migrate import apply_migrations, available_migrations

ORDER_MIGRATION = 15


def _store_before_order_migration(path: pathlib.Path) -> apsw.Connection:
    """A store as a release before migration 015 left it."""
    conn = apsw.Connection(str(path))
    conn.execute(
        "CREATE TABLE schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)"
    )
    for version, name, sql in available_migrations():
        if version >= ORDER_MIGRATION:
            break
        with conn:
            conn.execute(sql)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 0)", (version, name))
    return conn


def _v2_run(conn: apsw.Connection, run_id: str) -> None:
    conn.execute(
        "INSERT INTO automations_v2_runs VALUES (?, 'a', 'completed', 'manual', 5, 5, '{}')",
        (run_id,),
    )


def test_the_order_migration_keeps_every_row_and_its_creation_order(
    tmp_path: pathlib.Path,
) -> None:
    conn = _store_before_order_migration(tmp_path / "svc.db")
    try:
        # Created in the same millisecond, with a gap in the rowids (one deleted).
        for run_id in ("first", "gone", "second"):
            _v2_run(conn, run_id)
        conn.execute("DELETE FROM automations_v2_runs WHERE run_id = 'gone'")
        for mission_id in ("m-b", "m-a"):
            conn.execute(
                "INSERT INTO automations_missions VALUES (?, 'draft', 1, '{}', 7, 7)", (mission_id,)
            )
        assert apply_migrations(conn)[0] == ORDER_MIGRATION
        assert list(conn.execute("SELECT seq, run_id FROM automations_v2_runs ORDER BY seq")) == [
            (1, "first"),
            (3, "second"),
        ]
        assert [
            m for (m,) in conn.execute("SELECT mission_id FROM automations_missions ORDER BY seq")
        ] == ["m-b", "m-a"]
        # New rows are numbered after the old ones; the ids stay unique.
        conn.execute(
            "INSERT INTO automations_v2_runs(run_id, automation_id, status, trigger_type, "
            "created_at_ms, updated_at_ms, record) VALUES ('third', 'a', 'queued', 'manual', 5, 5, "
            "'{}')"
        )
        assert conn.execute(
            "SELECT seq FROM automations_v2_runs WHERE run_id = 'third'"
        ).fetchall() == [(4,)]
        with pytest.raises(apsw.ConstraintError):
            conn.execute(
                "INSERT INTO automations_v2_runs(run_id, automation_id, status, trigger_type, "
                "created_at_ms, updated_at_ms, record) VALUES ('third', 'a', 'queued', "
                "'manual', 5, 5, '{}')"
            )
    finally:
        conn.close()


async def test_runs_created_in_one_millisecond_list_newest_first(engine: svc.Engine) -> None:
    routine = await engine.automations.routines.create(
        {"name": "r", "schedule": {"type": "manual"}, "entrypoint": "noop.wait"}
    )
    runs = await engine.automations.routines.run_now(routine.routine_id, run_count=3)
    assert len({r.created_at_ms for r in runs}) == 1
    listed = await engine.automations.routines.list_runs(routine_id=routine.routine_id)
    assert [r.run_id for r in listed] == [r.run_id for r in reversed(runs)]


async def test_governance_state_is_updated_in_place(engine: svc.Engine) -> None:
    governance = engine.automations.governance
    await governance.pause("agent-1", "too many")
    await governance.resume("agent-1")
    state = await governance.state("agent-1")
    assert state.creation_paused is False and state.paused_reason is None


async def test_a_browser_artifact_finds_its_running_run_behind_many_newer_ones(
    engine: svc.Engine,
) -> None:
    from svc.browser.artifacts import link_to_routine_run

    routines = engine.automations.routines
    routine = await routines.create(
        {"name": "r", "schedule": {"type": "manual"}, "entrypoint": "noop.wait"}
    )
    [run] = await routines.run_now(routine.routine_id)
    # a running run of its own (not the live one the routine just started)
    browsing = attrs.evolve(run, run_id="browsing", status="running", session_ids=("s-browse",))
    await routines.repo.save_run(browsing)
    for i in range(250):  # newer, settled runs: more than one listing page
        await routines.repo.save_run(
            attrs.evolve(run, run_id=f"done-{i}", status="completed", session_ids=())
        )
    await link_to_routine_run(engine, "s-browse", {"uri": "/tmp/page.txt", "kind": "extract"})
    stored = await routines.require_run("browsing")
    assert [a["uri"] for a in stored.artifacts] == ["/tmp/page.txt"]
