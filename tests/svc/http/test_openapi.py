"""The OpenAPI document covers every route, is valid 3.1, and is served (and rendered) offline.

The drift check: every rule of the URL map is a path of the document with its
methods, and every documented operation is a rule the engine serves. A new
route fails here until its view has an entry in ``svc/http/openapi/areas``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate
from quart import Quart

import svc
from svc import Settings
from svc.http.app import create_app
from svc.http.auth import INTAKE_KEY_HEADER
from svc.http.openapi import build_document, openapi_path, operation_key
from svc.http.openapi.build import IGNORED_METHODS
from svc.http.openapi.registry import load_operations

HTTP_METHODS = {"get", "put", "post", "delete", "patch"}


class _NoEngine:
    # The URL map needs no engine, only settings (the body cap, the web UI flag).
    settings = Settings.load({}, environ={})


@pytest.fixture(scope="module")
def app() -> Quart:
    return create_app(_NoEngine())  # type: ignore[arg-type]  # the URL map needs no engine


@pytest.fixture(scope="module")
def document(app: Quart) -> dict[str, Any]:
    return build_document(app)


def served(app: Quart) -> set[tuple[str, str]]:
    return {
        (openapi_path(rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        for method in (rule.methods or set()) - IGNORED_METHODS
    }


def documented(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (path, method)
        for path, item in document["paths"].items()
        for method in item
        if method in HTTP_METHODS
    }


class _WebUiEngine:
    settings = Settings.load({"web_ui": True, "web_ui_prefix": "/console"}, environ={})


def test_the_web_ui_pages_are_no_part_of_the_document() -> None:
    # With the web UI on, its pages join the URL map; the document still builds (it did
    # not: /openapi.json answered 500) and describes the API routes only.
    with_web_ui = create_app(_WebUiEngine())  # type: ignore[arg-type]  # no engine needed
    prefix = _WebUiEngine.settings.web_ui_prefix
    document = build_document(with_web_ui)
    assert not [path for path in document["paths"] if path.startswith(prefix + "/")]
    assert prefix not in document["paths"]
    assert "/session" in document["paths"]
    assert any(rule.rule.startswith(prefix) for rule in with_web_ui.url_map.iter_rules())


def test_every_route_in_the_url_map_is_documented(app: Quart, document: dict[str, Any]) -> None:
    missing = served(app) - documented(document)
    assert not missing, f"routes missing from the document: {sorted(missing)}"


def test_every_documented_route_exists(app: Quart, document: dict[str, Any]) -> None:
    stale = documented(document) - served(app)
    assert not stale, f"documented routes the engine does not serve: {sorted(stale)}"


def test_every_view_has_a_description_and_every_description_a_view(app: Quart) -> None:
    views = {operation_key(app, rule.endpoint) for rule in app.url_map.iter_rules()}
    described = set(load_operations())
    assert not views - described, (
        "add an entry for each of these to svc/http/openapi/areas/<blueprint>.py: "
        f"{sorted(views - described)}"
    )
    assert not described - views, f"entries for views that no longer exist: {described - views}"


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.1")
    validate(document)


def test_request_bodies_come_from_the_attrs_classes_routes_structure(
    document: dict[str, Any],
) -> None:
    schemas = document["components"]["schemas"]
    create = document["paths"]["/session"]["post"]["requestBody"]["content"]["application/json"]
    assert create["schema"] == {"$ref": "#/components/schemas/CreateBody"}
    props = schemas["CreateBody"]["properties"]
    assert props["max_tokens"]["anyOf"][0]["maximum"] == 2**63 - 1
    assert props["directory"]["anyOf"][0]["maxLength"] == 4096
    start = schemas["StartGoal"]
    assert set(start["required"]) == {"orchestration_id", "objective", "idempotency_key"}


def test_streams_are_event_streams_with_their_event_types(document: dict[str, Any]) -> None:
    content = document["paths"]["/event"]["get"]["responses"]["200"]["content"]
    assert "session.run.finished" in content["text/event-stream"]["x-event-types"]
    run_events = document["paths"]["/run/{run_id}/events"]["get"]["responses"]["200"]["content"]
    assert set(run_events) == {"text/event-stream", "application/json"}


def test_text_answers_say_their_media_type(document: dict[str, Any]) -> None:
    def success(path: str) -> dict[str, Any]:
        return dict(document["paths"][path]["get"]["responses"]["200"]["content"])

    assert success("/metrics") == {"text/plain": {"schema": {"type": "string"}}}
    assert set(success("/doc")) == {"text/html"}
    assert set(success("/mcp/{name}/auth/callback")) == {"text/html"}
    assert set(success("/mcp/catalog/{slug}/toml")) == {"application/toml"}


def test_errors_share_one_body(document: dict[str, Any]) -> None:
    error = document["components"]["schemas"]["ErrorBody"]
    assert error["required"] == ["error", "code", "retryable"]
    for item in document["paths"].values():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                assert operation["responses"]["4XX"] == {"$ref": "#/components/responses/Error"}


def test_public_operations_say_so(document: dict[str, Any]) -> None:
    health = document["paths"]["/global/health"]["get"]
    assert health["security"] == [] and health["x-auth"] == "public"
    assert "security" not in document["paths"]["/config/providers"]["get"]


def test_the_intake_route_asks_an_intake_key_not_the_token(document: dict[str, Any]) -> None:
    intake = document["paths"]["/incident-monitor/intake/report"]["post"]
    assert intake["x-auth"] == "intake_key"
    assert intake["security"] == [{"intakeKey": []}, {"bearer": []}]
    scheme = document["components"]["securitySchemes"]["intakeKey"]
    assert scheme == {"type": "apiKey", "in": "header", "name": INTAKE_KEY_HEADER}


async def test_openapi_json_is_served_behind_the_token_and_built_once(
    make_settings: Any,
) -> None:
    async with (
        svc.open_engine(make_settings(api_token="s3cret-token"), serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        assert (await client.get("/openapi.json")).status_code == 401
        first = await client.get("/openapi.json", headers={"X-Agent-Token": "s3cret-token"})
        assert first.status_code == 200
        assert first.json()["paths"]["/openapi.json"]["get"]["x-auth"] == "token"
        again = await client.get("/openapi.json", headers={"X-Svc-Token": "s3cret-token"})
        assert again.json() == first.json()


async def test_doc_page_renders_offline_from_vendored_files(make_settings: Any) -> None:
    async with (
        svc.open_engine(make_settings(api_token="s3cret-token"), serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        page = await client.get("/doc")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        policy = page.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy
        assert "http" not in page.text.replace('rel="stylesheet"', "")
        for src in ("doc/redoc.standalone.js", "doc/doc.js"):
            assert f'src="{src}"' in page.text
            asset = await client.get("/" + src)
            assert asset.status_code == 200
            assert asset.headers["content-type"].startswith("text/javascript")
        renderer = await client.get("/doc/redoc.standalone.js")
        assert b"Redoc" in renderer.content and len(renderer.content) > 500_000
        assert (await client.get("/doc/other.js")).status_code == 401


def test_the_document_is_json_serialisable(document: dict[str, Any]) -> None:
    assert json.loads(json.dumps(document)) == document


# Operations answering JSON whose body is not (yet) a named record, and why. Any other
# operation answering JSON must reference a record (svc/http/openapi/records/).
UNNAMED_BODIES = {
    "channels.slack_events": "Slack's own challenge and acknowledgement bodies",
    "goals.dispatch_action": "the projected action's own result, not yet recorded",
    "workflows.apply_plan": "the applied plan package, not yet recorded",
    "workflows.import_plan": "the imported plan bundle, not yet recorded",
    "workflows.preview_plan_import": "the plan bundle preview, not yet recorded",
}


def test_every_json_success_body_names_a_record(document: dict[str, Any]) -> None:
    loose = set()
    for item in document["paths"].values():
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            key = operation["operationId"].rsplit(".", 1)[0]
            for status, response in operation["responses"].items():
                content = response.get("content", {}).get("application/json")
                if not status.startswith("2") or content is None:
                    continue
                schema = content["schema"]
                if "$ref" not in schema and schema.get("type") != "string":
                    loose.add(key)
    assert loose == set(UNNAMED_BODIES), (
        "name the success body of each of these with a Record (or say why not in "
        f"UNNAMED_BODIES): {sorted(loose ^ set(UNNAMED_BODIES))}"
    )


def test_every_record_is_a_component_and_refers_to_known_records(
    document: dict[str, Any],
) -> None:
    schemas = document["components"]["schemas"]
    text = json.dumps(document)
    for name in {r.split("/")[-1] for r in _refs(text)}:
        assert name in schemas, f"$ref to a missing component {name}"


def _refs(text: str) -> set[str]:
    return set(re.findall(r'"\$ref": "(#/components/schemas/[^"]+)"', text))


def test_answers_that_queue_work_document_202(document: dict[str, Any]) -> None:
    # A signed webhook delivery is queued (202; a duplicate 200), and an enterprise import
    # or reindex with `wait=false` answers before it finishes (202): the document listed
    # 200 only, so a client (or the fuzz run) met an undocumented status.
    webhook = document["paths"]["/webhooks/automations/{trigger_id}"]["post"]["responses"]
    assert {"200", "202"} <= set(webhook)
    for action in ("import", "reindex"):
        path = f"/enterprise/source-bindings/{{binding_id}}/{action}"
        assert {"200", "202"} <= set(document["paths"][path]["post"]["responses"])
