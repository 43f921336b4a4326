"""Malformed bodies a new user's fuzzer sent: each is a clear 400, never a 500.

One test per cause in the issue (8,314 requests gave 682 answers of 500).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from svc.convert import structure
from svc.errors import ValidationFailed
from svc.http.body import MAX_DEPTH, parse_json

from .test_errors import assert_error_shape

BIG = 2**63


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


async def post_raw(client: httpx.AsyncClient, path: str, raw: bytes) -> httpx.Response:
    return await client.post(path, content=raw, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize("path", ["/session", "/memory/put", "/mission", "/tool/execute"])
async def test_json_nested_10000_deep_is_400_json_too_deep(
    client: httpx.AsyncClient, path: str
) -> None:
    raw = b'{"title": ' + nested(10_000) + b"}"
    body = assert_error_shape(await post_raw(client, path, raw), 400, "JSON_TOO_DEEP")
    assert body["maxDepth"] == MAX_DEPTH


async def test_nesting_just_past_the_limit_names_where(client: httpx.AsyncClient) -> None:
    raw = b'{"source_metadata": {"a": ' + nested(MAX_DEPTH) + b"}}"
    body = assert_error_shape(await post_raw(client, "/session", raw), 400, "JSON_TOO_DEEP")
    assert body["field"].startswith("source_metadata.a")


@pytest.mark.parametrize("path", ["/session", "/routines", "/goals", "/mission"])
async def test_integer_literal_over_4300_digits_is_400(
    client: httpx.AsyncClient, path: str
) -> None:
    raw = b'{"title": ' + b"9" * 5000 + b"}"
    assert_error_shape(await post_raw(client, path, raw), 400, "JSON_NUMBER_OUT_OF_RANGE")


@pytest.mark.parametrize(
    "raw",
    [
        b'{"title": "\\ud800"}',  # an escaped lone high surrogate
        b'{"title": "a\\udc00b"}',  # an escaped lone low surrogate
        b'{"title": "\xed\xa0\x80"}',  # a surrogate as raw bytes (json.loads passes them)
        b'{"\\ud800": "x"}',  # in a key
    ],
)
async def test_unpaired_surrogate_is_400_json_invalid_string(
    client: httpx.AsyncClient, raw: bytes
) -> None:
    assert_error_shape(await post_raw(client, "/session", raw), 400, "JSON_INVALID_STRING")
    # The session was not created: nothing reached SQLite.
    assert (await client.get("/session")).json() == []


async def test_a_paired_surrogate_escape_is_a_normal_character(client: httpx.AsyncClient) -> None:
    response = await post_raw(client, "/session", b'{"title": "\\ud83d\\ude00"}')
    assert response.status_code == 200 and response.json()["title"] == "\N{GRINNING FACE}"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        (
            "/goals",
            {
                "orchestration_id": "o",
                "objective": "x",
                "idempotency_key": "k",
                "orchestration_version": BIG,
            },
            "orchestration_version",
        ),
        (
            "/orchestrations/o/dry-run",
            {"from_node_id": "a", "transition_key": "b", "version": BIG},
            "version",
        ),
        (
            "/routines",
            {"routine_id": "r", "name": "r", "schedule": {"interval_seconds": {"seconds": BIG}}},
            "schedule.interval_seconds.seconds",
        ),
        (
            "/mcp/request-capability",
            {"agent_id": "a", "mcp_name": "x", "rationale": "y", "expires_at_ms": BIG},
            "expires_at_ms",
        ),
        ("/session", {"max_tokens": -BIG - 1}, "max_tokens"),
    ],
)
async def test_integer_outside_signed_64_bits_is_400_naming_the_field(
    client: httpx.AsyncClient, path: str, body: dict[str, Any], field: str
) -> None:
    response = await client.post(path, json=body)
    error = assert_error_shape(response, 400, "JSON_NUMBER_OUT_OF_RANGE")
    assert error["field"] == field


def test_the_converter_refuses_int_fields_outside_signed_64_bits() -> None:
    from svc.goals.requests import StartGoal

    data = {"orchestration_id": "o", "objective": "x", "idempotency_key": "k"}
    with pytest.raises(ValidationFailed) as caught:
        structure(StartGoal, {**data, "orchestration_version": BIG})
    assert caught.value.extra["field"] == "orchestration_version"
    assert structure(StartGoal, {**data, "orchestration_version": BIG - 1}).orchestration_version
    with pytest.raises(ValidationFailed):
        structure(StartGoal, {**data, "orchestration_version": 1e300})


def test_parse_json_accepts_the_limits_exactly() -> None:
    assert parse_json(json.dumps({"n": BIG - 1, "m": -BIG})) == {"n": BIG - 1, "m": -BIG}
    depth_ok = nested(MAX_DEPTH)
    assert parse_json(depth_ok) is not None


async def session_id(client: httpx.AsyncClient) -> str:
    return (await client.post("/session", json={})).json()["id"]


@pytest.mark.parametrize("parts", ["text", {"type": "text"}, 3])
async def test_message_parts_not_a_list_is_400(client: httpx.AsyncClient, parts: Any) -> None:
    sid = await session_id(client)
    response = await client.post(f"/session/{sid}/message", json={"parts": parts})
    assert assert_error_shape(response, 400, "VALIDATION_FAILED")["field"] == "parts"


async def test_mission_event_type_not_a_string_is_400(client: httpx.AsyncClient) -> None:
    mission = (await client.post("/mission", json={"title": "t", "goal": "g"})).json()["mission"]
    response = await client.post(
        f"/mission/{mission['mission_id']}/event", json={"event": {"type": ["a", "b"]}}
    )
    assert assert_error_shape(response, 400, "VALIDATION_FAILED")["field"] == "event.type"


PATHS = [pytest.param("x" * 1_000_000, id="1MB"), pytest.param("a\x00b", id="NUL")]


@pytest.mark.parametrize("value", PATHS)
async def test_session_directory_too_long_or_with_nul_is_400(
    client: httpx.AsyncClient, value: str
) -> None:
    response = await client.post("/session", json={"directory": value})
    assert assert_error_shape(response, 400, "VALIDATION_FAILED")["field"] == "directory"


@pytest.mark.parametrize("value", PATHS)
async def test_template_id_too_long_or_with_nul_is_400(
    client: httpx.AsyncClient, value: str
) -> None:
    response = await client.post(
        "/agent-team/templates", json={"templateID": value, "role": "worker"}
    )
    assert response.status_code == 400, response.text
    assert response.json()["field"] in ("template.templateID", "templateID", "template_id")


@pytest.mark.parametrize("value", PATHS)
async def test_memory_import_path_too_long_or_with_nul_is_400(
    client: httpx.AsyncClient, value: str
) -> None:
    response = await client.post("/memory/import", json={"path": value})
    assert response.status_code == 400, response.text
    assert response.json()["field"] == "path"


# Found by the fuzz run from the OpenAPI document (tests/svc/http/test_fuzz_api.py).


@pytest.mark.parametrize("version", [BIG, 2**64 - 1])
async def test_an_integer_path_segment_past_signed_64_bits_is_404_not_500(
    client: httpx.AsyncClient, version: int
) -> None:
    response = await client.get(f"/orchestrations/o/versions/{version}")
    assert_error_shape(response, 404, "NOT_FOUND")
    assert (await client.get(f"/orchestrations/o/versions/{BIG - 1}")).status_code == 404


async def test_a_refused_spawn_has_the_shared_error_shape(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/agent-team/spawn",
        json={"role": "reviewer", "source": "orchestrator_runtime", "justification": "x"},
    )
    assert response.status_code == 403, response.text
    body = assert_error_shape(response, 403, response.json()["code"])
    assert body["ok"] is False and body["requiresUserApproval"] is False


def test_bodies_in_utf_16_are_checked_too() -> None:
    from svc.http.body import JsonNumberOutOfRange

    assert parse_json('{"n": 1}'.encode("utf-16")) == {"n": 1}
    with pytest.raises(JsonNumberOutOfRange):
        parse_json(json.dumps({"n": BIG}).encode("utf-16"))


@pytest.mark.parametrize(
    "path",
    [
        "/run/r1/events?since_seq=14742239293237422080",
        "/run/r1/events?tail=1&after_seq=99999999999999999999",
        "/runs/r1/events?after_seq=9223372036854775808",
    ],
)
async def test_an_integer_query_value_past_signed_64_bits_is_400(
    client: httpx.AsyncClient, path: str
) -> None:
    response = await client.get(path)
    assert assert_error_shape(response, 400, "VALIDATION_FAILED")["field"] in (
        "since_seq",
        "after_seq",
    )
