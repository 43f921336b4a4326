"""The ``audit_ledger`` table: append, read newest first, verify the hash chain."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import attrs

from ..store import Row, Tx, dumps, loads
from .ledger import AuditEntry

_COLUMNS = "seq, entry_id, type, domain, actor, subject, payload, created_at_ms, prev_hash, hash"


def _digest(entry: AuditEntry, prev_hash: str) -> str:
    material = json.dumps(
        [
            prev_hash,
            entry.entry_id,
            entry.type,
            entry.domain,
            entry.actor,
            entry.subject,
            entry.payload,
            entry.created_at_ms,
        ],
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(material.encode()).hexdigest()


CHAIN_LOCK_KEY = 0x73766361
"""The key appenders of the chain take turns on ("svca"; see ``Dialect.serialize``)."""


def _chain_head(tx: Tx) -> str:
    # Whoever reads the head must be the next to append until its transaction ends:
    # two replicas reading the same head at once would both chain onto it (a fork
    # that `verify_chain` then rejects).
    turn = tx.dialect.serialize(CHAIN_LOCK_KEY)
    if turn is not None:
        tx.execute(turn)
    return str(tx.execute("SELECT hash FROM audit_ledger ORDER BY seq DESC LIMIT 1").scalar(""))


def append_entry(tx: Tx, entry: AuditEntry, prev: str | None = None) -> AuditEntry:
    """Append ``entry`` in ``tx`` (the transaction of the change it describes).

    ``prev``: the chain head, when the caller knows it (it wrote the row before, in
    this transaction, which holds the write lock: no other row can come between)."""
    if prev is None:
        prev = _chain_head(tx)
    digest = _digest(entry, prev)
    seq = tx.execute(
        "INSERT INTO audit_ledger(entry_id, type, domain, actor, subject, payload, "
        "created_at_ms, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?) RETURNING seq",
        (
            entry.entry_id,
            entry.type,
            entry.domain,
            entry.actor,
            entry.subject,
            dumps(dict(entry.payload)),
            entry.created_at_ms,
            prev,
            digest,
        ),
    ).scalar()
    return attrs.evolve(entry, seq=seq, prev_hash=prev, hash=digest)


def append_entries(tx: Tx, entries: Sequence[AuditEntry]) -> list[AuditEntry]:
    """Append several entries, in order, in ``tx`` (the chain head read once)."""
    if not entries:
        return []
    stored: list[AuditEntry] = []
    prev = _chain_head(tx)
    for entry in entries:
        stored.append(append_entry(tx, entry, prev))
        prev = stored[-1].hash
    return stored


def _row(r: Row) -> AuditEntry:
    return AuditEntry(
        seq=r[0],
        entry_id=r[1],
        type=r[2],
        domain=r[3],
        actor=r[4],
        subject=r[5],
        payload=loads(r[6], {}),
        created_at_ms=r[7],
        prev_hash=r[8],
        hash=r[9],
    )


def read_entries(tx: Tx, domain: str | None, type: str | None, limit: int) -> list[AuditEntry]:
    where: list[str] = []
    params: list[object] = []
    if domain is not None:
        where.append("domain = ?")
        params.append(domain)
    if type is not None:
        where.append("type = ?")
        params.append(type)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    rows = tx.execute(
        f"SELECT {_COLUMNS} FROM audit_ledger {clause} ORDER BY seq DESC LIMIT ?",
        (*params, limit),
    )
    return [_row(r) for r in rows]


def verify_chain(tx: Tx) -> bool:
    prev = ""
    for r in tx.execute(f"SELECT {_COLUMNS} FROM audit_ledger ORDER BY seq"):
        entry = _row(r)
        if entry.prev_hash != prev or _digest(entry, prev) != entry.hash:
            return False
        prev = entry.hash
    return True
