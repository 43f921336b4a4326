"""``svc-engine serve --store``: the engine keeps its state where the URL says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx


async def test_serve_with_a_postgresql_store_reports_it_in_health(
    served: Callable[..., Any], pg_url: str, tmp_path: Path
) -> None:
    server = await served("--store", pg_url, "--replica-url", "http://127.0.0.1:1")
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        health = (await client.get("/global/health")).json()
    assert health["store"] == "postgresql"
    assert health["liveReplicas"] == 1 and health["replicaID"]
    assert not (tmp_path / "state" / "svc.db").exists()  # nothing went to SQLite
    # The password never reaches the log lines the engine prints.
    password = pg_url.split(":")[2].split("@")[0]
    assert all(password not in line for line in server.stderr_lines)
