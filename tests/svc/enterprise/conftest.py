"""Enterprise tests: a real engine over loopback, with one folder the operator allows."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from svc import Settings


@pytest.fixture
def allowed_root(tmp_path: Path) -> Path:
    root = tmp_path / "sources"
    root.mkdir()
    return root


@pytest.fixture
def settings(make_settings: Callable[..., Settings], allowed_root: Path) -> Settings:
    return make_settings(
        enterprise={
            "local_directory": {"allowed_roots": [str(allowed_root)]},
            "trust_tenant_headers": True,
        }
    )


ADMIN_OTHER_TENANT = {
    "x-svc-org-id": "acme",
    "x-svc-workspace-id": "research",
    "x-svc-actor-id": "alice",
    "x-svc-actor-roles": "org:admin",
}
AGENT = {"x-svc-request-source": "agent"}


def skeleton_bodies() -> list[tuple[str, dict[str, Any]]]:
    """A minimal governance skeleton and one connector, as (path, body)."""
    return [
        (
            "/enterprise/org-units",
            {"unit_id": "pilot-finance", "taxonomy_id": "department", "display_name": "Finance"},
        ),
        (
            "/enterprise/org-unit-memberships",
            {"unit_id": "pilot-finance", "taxonomy_id": "department", "member_id": "bob"},
        ),
        (
            "/enterprise/org-unit-access-grants",
            {
                "grant_id": "finance-read",
                "unit_id": "pilot-finance",
                "taxonomy_id": "department",
                "resource_kind": "document_collection",
                "resource_id": "finance-drive",
                "permissions": ["read"],
                "data_classes": ["confidential"],
            },
        ),
        ("/enterprise/connectors", {"connector_id": "notes", "provider": "local_directory"}),
    ]


def binding_body(root: Path, **extra: Any) -> dict[str, Any]:
    return {
        "binding_id": "finance-notes",
        "connector_id": "notes",
        "source_type": "local_directory",
        "native_source_id": str(root),
        "resource_ref": {
            "organization_id": "local",
            "workspace_id": "local",
            "resource_kind": "directory",
            "resource_id": "finance-notes",
            "project_id": "finance",
        },
        "data_class": "confidential",
        **extra,
    }
