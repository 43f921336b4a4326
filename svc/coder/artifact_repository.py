"""The coder run artifact and memory candidate tables (SQL in the shared subset)."""

from __future__ import annotations

from ..convert import converter
from ..store import Store, Tx, dumps, loads
from .artifact_records import CoderArtifact, MemoryCandidate


class CoderArtifactRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def add(self, artifact: CoderArtifact) -> CoderArtifact:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO coder_artifacts(id, coder_run_id, artifact_type, body, created_at_ms) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    artifact.id,
                    artifact.coder_run_id,
                    artifact.artifact_type,
                    dumps(converter.unstructure(artifact)),
                    artifact.ts_ms,
                ),
            )

        await self._db.write(q)
        return artifact

    async def of_run(self, coder_run_id: str) -> list[CoderArtifact]:
        """The run's artifacts, oldest first."""

        def q(tx: Tx) -> list[CoderArtifact]:
            rows = tx.execute(
                "SELECT body FROM coder_artifacts WHERE coder_run_id = ? "
                "ORDER BY created_at_ms, id",
                (coder_run_id,),
            )
            return [converter.structure(loads(body), CoderArtifact) for (body,) in rows]

        return await self._db.read(q)


class MemoryCandidateRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def put(self, candidate: MemoryCandidate) -> MemoryCandidate:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO coder_memory_candidates(id, coder_run_id, status, body, "
                "created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET status = excluded.status, body = excluded.body, "
                "updated_at_ms = excluded.updated_at_ms",
                (
                    candidate.candidate_id,
                    candidate.coder_run_id,
                    candidate.status,
                    dumps(converter.unstructure(candidate)),
                    candidate.created_at_ms,
                    candidate.updated_at_ms,
                ),
            )

        await self._db.write(q)
        return candidate

    async def of_run(self, coder_run_id: str) -> list[MemoryCandidate]:
        def q(tx: Tx) -> list[MemoryCandidate]:
            rows = tx.execute(
                "SELECT body FROM coder_memory_candidates WHERE coder_run_id = ? "
                "ORDER BY created_at_ms, id",
                (coder_run_id,),
            )
            return [converter.structure(loads(body), MemoryCandidate) for (body,) in rows]

        return await self._db.read(q)

    async def get(self, candidate_id: str) -> MemoryCandidate | None:
        def q(tx: Tx) -> MemoryCandidate | None:
            row = tx.execute(
                "SELECT body FROM coder_memory_candidates WHERE id = ?", (candidate_id,)
            ).fetchone()
            return converter.structure(loads(row[0]), MemoryCandidate) if row else None

        return await self._db.read(q)


__all__ = ["CoderArtifactRepository", "MemoryCandidateRepository"]
