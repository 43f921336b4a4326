"""File parts given as http(s) URLs pass the outbound-URL guard's name and address checks."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from svc.net import UrlRefused
from svc.sessions import validate_parts


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:39731/global/health", "private_address"),
        ("http://127.1/x.png", "private_address"),
        ("http://2130706433/x.png", "private_address"),
        ("http://0x7f000001/x.png", "private_address"),
        ("http://[::ffff:127.0.0.1]/x.png", "private_address"),
        ("http://[::1]/x.png", "private_address"),
        ("http://169.254.169.254/latest/meta-data/", "private_address"),
        ("http://localhost:8080/cat.jpg", "private_address"),
        ("https://user:pass@example.com/cat.jpg", "credentials"),
    ],
)
def test_file_part_urls_are_checked(workspace: Path, url: str, reason: str) -> None:
    parts = [{"type": "text", "text": "look"}, {"type": "file", "mime": "image/png", "url": url}]
    with pytest.raises(UrlRefused) as info:
        validate_parts(parts, workspace=workspace)
    assert info.value.reason == reason
    assert info.value.extra["field"] == "parts[1].url"


def test_public_file_urls_and_data_urls_pass(workspace: Path) -> None:
    parts = [
        {"type": "file", "mime": "image/jpeg", "url": "https://example.com/cat.jpg"},
        {"type": "file", "mime": "image/png", "url": "http://93.184.216.34/dog.png"},
        {"type": "file", "mime": "image/png", "url": "data:image/png;base64,iVBORw0KGgo="},
    ]
    assert len(validate_parts(parts, workspace=workspace)) == 3


async def test_prompt_with_a_loopback_file_url_is_400_naming_the_part(
    client: httpx.AsyncClient,
) -> None:
    session = (await client.post("/session", json={})).json()
    body = {"parts": [{"type": "file", "mime": "image/png", "url": "http://[::1]/a.png"}]}
    response = await client.post(f"/session/{session['id']}/prompt_async", json=body)
    assert response.status_code == 400
    assert response.json()["code"] == "URL_NOT_ALLOWED"
    assert response.json()["reason"] == "private_address"
    assert response.json()["field"] == "parts[0].url"
