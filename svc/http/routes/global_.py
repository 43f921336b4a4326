"""Health, configuration and engine-wide routes."""

from __future__ import annotations

from typing import Any

from quart import Blueprint

from ..._version import __version__
from ...errors import PersistenceFailed
from ..request import engine

bp = Blueprint("global", __name__)


@bp.route("/global/health", methods=["GET", "HEAD"])
async def health() -> Any:
    eng = engine()
    ready = eng.ready
    body: dict[str, Any] = {
        "healthy": ready,
        "ready": ready,
        "version": __version__,
        "store": eng.store.kind,
    }
    cluster = eng.cluster
    if cluster is not None and cluster.shared:  # replicas sharing a PostgreSQL store
        body["replicaID"] = cluster.replica_id
        body["scheduler"] = "leader" if cluster.leading else "standby"
        try:
            body["liveReplicas"] = await cluster.live_replicas()
        except PersistenceFailed:
            body["liveReplicas"] = None  # the database is unreachable: unknown
    return body


@bp.get("/config/providers")
async def config_providers() -> Any:
    eng = engine()
    # `effective`: the default in effect and why, so a client can tell the offline
    # echo model answered (and how to configure a real provider).
    return {
        **eng.settings.redacted_providers(),
        "effective": eng.providers.default_route().to_wire(),
    }


@bp.post("/admin/reload-config")
async def reload_config() -> Any:
    await engine().reload_settings()
    return {"ok": True}
