"""Fixtures for provider tests: a real HTTP client and real loopback fake servers."""

from __future__ import annotations

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


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
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
