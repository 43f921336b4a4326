"""Builders shared by the incident monitor tests."""

from __future__ import annotations

from typing import Any

import httpx

SECRET = "sk-planted-secret-0123456789abcdef"


async def configure(client: httpx.AsyncClient, **config: Any) -> dict[str, Any]:
    body = {"enabled": True, "repo": "acme/platform", **config}
    response = await client.patch("/config/incident-monitor", json={"incident_monitor": body})
    assert response.status_code == 200, response.text
    return response.json()["incident_monitor"]  # type: ignore[no-any-return]


def project(project_id: str = "billing", **extra: Any) -> dict[str, Any]:
    return {"project_id": project_id, "name": project_id.title(), "repo": "acme/billing", **extra}


async def intake_key(client: httpx.AsyncClient, project_id: str = "billing") -> str:
    response = await client.post(
        "/incident-monitor/intake/keys", json={"project_id": project_id, "name": "ci"}
    )
    assert response.status_code == 200, response.text
    return response.json()["raw_key"]  # type: ignore[no-any-return]


def report(title: str = "Nightly export failed", **extra: Any) -> dict[str, Any]:
    return {
        "title": title,
        "detail": "Export job exited 1",
        "source": "cron",
        "event": "export.failed",
        "level": "error",
        **extra,
    }
