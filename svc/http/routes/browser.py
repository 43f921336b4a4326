"""Browser readiness, installation and smoke test (actions themselves are tools, not routes).

Install and smoke test have effects on the host, so they answer only a direct
loopback caller of the local tenant (no tenant headers naming another org or
workspace, a loopback Host, a loopback peer); anyone else gets 403.
"""

from __future__ import annotations

from typing import Any

from quart import Blueprint, request

from ...errors import Forbidden, ValidationFailed
from ..access import is_loopback_host, split_host
from ..request import engine, header, json_body

bp = Blueprint("browser", __name__)

_TENANT_HEADERS = ("x-svc-org-id", "x-svc-workspace-id")


def _require_local_host_operator(operation: str) -> None:
    peer = (request.remote_addr or "").strip()
    host, _ = split_host(request.headers.get("Host", ""))
    tenant = [h for h in _TENANT_HEADERS if header(h) not in (None, "local")]
    if not (is_loopback_host(peer) and is_loopback_host(host)) or tenant:
        raise Forbidden(
            f"browser {operation} changes this host: only a direct loopback request of the "
            "local tenant may ask for it",
            code="browser_host_effect_forbidden",
        )


@bp.get("/browser/status")
async def browser_status() -> Any:
    return (await engine().browser.status()).to_wire()


@bp.post("/browser/install")
async def browser_install() -> Any:
    _require_local_host_operator("install")
    return await engine().browser.install()


@bp.post("/browser/smoke-test")
async def browser_smoke_test() -> Any:
    _require_local_host_operator("smoke test")
    body = await json_body(default={})
    if not isinstance(body, dict):
        raise ValidationFailed("request body must be a JSON object", field="$")
    url = body.get("url")
    if url is not None and (not isinstance(url, str) or not url.strip()):
        raise ValidationFailed("`url` must be a non-empty string", field="url")
    return await engine().browser.smoke_test(url.strip() if url else None)
