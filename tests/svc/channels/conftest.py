"""Fixtures for channel tests: an engine with a fake model, and helpers to configure channels."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import svc
from svc import Settings


@pytest.fixture
def settings(model_settings: Settings) -> Settings:
    return model_settings


@pytest.fixture
async def engine(settings: Settings) -> AsyncIterator[svc.Engine]:
    async with svc.open_engine(settings, serve_http=True) as eng:
        yield eng


async def configure(client: httpx.AsyncClient, name: str, **block: Any) -> None:
    response = await client.put(f"/channels/{name}", json=block)
    assert response.status_code == 200, response.text


async def wait_connected(engine: svc.Engine, name: str) -> None:
    from svc.channels import channels_of

    await channels_of(engine).listeners[name].connected.wait()
