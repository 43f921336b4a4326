"""The ``policy_decisions`` table (migration 018): append in batches, prune, read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from ..store import Row, Store, Tx

_COLUMNS = (
    "decision_id, domain, effect, subject, actor_id, scope_id, code, reason, approval_id, "
    "tenant_id, workspace_id, created_at_ms"
)


@attrs.frozen
class PolicyDecision:
    decision_id: str
    domain: str
    """Where it was decided: ``tool_policy``, ``permission``, ``spawn_gate``, ..."""
    effect: str
    """``allow``, ``deny`` or ``approval_required``."""
    subject: str
    """What was decided on: a tool, a role, a capability key, a draft."""
    created_at_ms: int
    actor_id: str | None = None
    scope_id: str | None = None
    """The run, session, mission or automation the decision belongs to."""
    code: str | None = None
    reason: str | None = None
    approval_id: str | None = None
    tenant_id: str | None = None
    workspace_id: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return attrs.asdict(self)

    def row(self) -> tuple[Any, ...]:
        return (
            self.decision_id,
            self.domain,
            self.effect,
            self.subject,
            self.actor_id,
            self.scope_id,
            self.code,
            self.reason,
            self.approval_id,
            self.tenant_id,
            self.workspace_id,
            self.created_at_ms,
        )


def _decision(r: Row) -> PolicyDecision:
    return PolicyDecision(
        decision_id=r[0],
        domain=r[1],
        effect=r[2],
        subject=r[3],
        actor_id=r[4],
        scope_id=r[5],
        code=r[6],
        reason=r[7],
        approval_id=r[8],
        tenant_id=r[9],
        workspace_id=r[10],
        created_at_ms=r[11],
    )


def _append(tx: Tx, decisions: Sequence[PolicyDecision], keep: int) -> int:
    tx.executemany(
        f"INSERT INTO policy_decisions({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT (decision_id) DO NOTHING",
        [d.row() for d in decisions],
    )
    # Bounded: the oldest rows past ``keep`` go (by sequence, the append order).
    newest = tx.execute("SELECT MAX(seq) FROM policy_decisions").scalar(0) or 0
    if newest > keep:
        tx.execute("DELETE FROM policy_decisions WHERE seq <= ?", (newest - keep,))
        return tx.changes()
    return 0


def _window(tx: Tx, from_ms: int | None, to_ms: int | None, limit: int) -> list[PolicyDecision]:
    where: list[str] = []
    params: list[object] = []
    if from_ms is not None:
        where.append("created_at_ms > ?")
        params.append(from_ms)
    if to_ms is not None:
        where.append("created_at_ms <= ?")
        params.append(to_ms)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    rows = tx.execute(
        f"SELECT {_COLUMNS} FROM policy_decisions {clause} ORDER BY seq DESC LIMIT ?",
        (*params, limit),
    )
    return [_decision(r) for r in rows]


def _count(tx: Tx) -> int:
    return int(tx.execute("SELECT COUNT(*) FROM policy_decisions").scalar(0))


class PolicyDecisionRepository:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def append(self, decisions: Sequence[PolicyDecision], *, keep: int) -> int:
        """Append ``decisions``; returns how many old rows the cap pruned."""
        pruned: int = await self.store.write(_append, list(decisions), keep)
        return pruned

    async def window(
        self, *, from_ms: int | None = None, to_ms: int | None = None, limit: int = 100
    ) -> list[PolicyDecision]:
        """Newest first, ``from_ms`` exclusive and ``to_ms`` inclusive."""
        found: list[PolicyDecision] = await self.store.read(_window, from_ms, to_ms, limit)
        return found

    async def count(self) -> int:
        total: int = await self.store.read(_count)
        return total
