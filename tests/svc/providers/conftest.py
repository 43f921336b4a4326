"""Fixtures for provider tests: a real HTTP client and real loopback fake servers."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator

import httpx
import pytest

from tests.fakes import (
    FakeAnthropic,
    FakeCohere,
    FakeOpenAI,
    open_fake_anthropic,
    open_fake_cohere,
    open_fake_openai,
)

# Building an SSL context (reading the CA bundle) costs ~50 ms; every test
# needs a fresh client, none needs a fresh context.
_SSL = ssl.create_default_context()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    # trust_env=False: a proxy configured in the environment must not see loopback traffic.
    async with httpx.AsyncClient(verify=_SSL, trust_env=False) as client:
        yield client


@pytest.fixture
async def openai_server() -> AsyncIterator[FakeOpenAI]:
    async with open_fake_openai() as server:
        yield server


@pytest.fixture
async def anthropic_server() -> AsyncIterator[FakeAnthropic]:
    async with open_fake_anthropic() as server:
        yield server


@pytest.fixture
async def cohere_server() -> AsyncIterator[FakeCohere]:
    async with open_fake_cohere() as server:
        yield server
