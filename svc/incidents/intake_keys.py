"""Scoped intake keys (reference §1.8): list, create (the raw key shown once), disable."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .config import REPORT_SCOPE
from .errors import bad_request, not_found
from .records import IntakeKey
from .service import DOMAIN, INTAKE_KEY_PREFIX, key_hash

if TYPE_CHECKING:
    from .service import IncidentService


async def list_keys(service: IncidentService) -> dict[str, Any]:
    return {"keys": [k.to_wire() for k in await service.keys.all_keys()]}


async def create_key(service: IncidentService, body: Any) -> dict[str, Any]:
    body = body if isinstance(body, Mapping) else {}
    project_id = str(body.get("project_id") or "").strip()
    if service.config.project(project_id) is None:
        raise bad_request("INTAKE_PROJECT_UNKNOWN", f"project `{project_id}` is not configured")
    name = str(body.get("name") or "").strip()
    if not name:
        raise bad_request("INTAKE_KEY_NAME_REQUIRED", "name is required")
    scopes = body.get("scopes") or [REPORT_SCOPE]
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise bad_request("INTAKE_KEY_INVALID_SCOPES", "scopes must be a list of strings")
    raw = INTAKE_KEY_PREFIX + secrets.token_hex(32)
    key = IntakeKey(
        key_id=f"intake-key-{uuid.uuid4().hex}",
        project_id=project_id,
        name=name,
        key_hash=key_hash(raw),
        enabled=True,
        scopes=tuple(dict.fromkeys(s.strip() for s in scopes if s.strip())),
        created_at_ms=service.now_ms(),
    )
    audit = service.ledger.entry(
        "incident_monitor.intake_key.created",
        {
            "key_id": key.key_id,
            "project_id": project_id,
            "name": name,
            "scopes": list(key.scopes),
        },
        domain=DOMAIN,
        subject=key.key_id,
    )
    service.ledger.announce(await service.keys.insert(key, audit=audit))
    return {"key": key.to_wire(), "raw_key": raw}


async def disable_key(service: IncidentService, key_id: str) -> dict[str, Any]:
    audit = service.ledger.entry(
        "incident_monitor.intake_key.disabled",
        {"key_id": key_id},
        domain=DOMAIN,
        subject=key_id,
    )
    key, stored = await service.keys.disable(key_id, audit=audit)
    if key is None or stored is None:
        raise not_found("INTAKE_KEY_NOT_FOUND", f"intake key `{key_id}` not found", key_id=key_id)
    service.ledger.announce(stored)
    return {"key": key.to_wire()}
