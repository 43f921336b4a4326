"""websearch: every backend against a loopback fake speaking its wire shape."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from svc import Settings
from svc.errors import ValidationFailed
from svc.tools import ToolContext, ToolFailed, ToolResult
from svc.tools.builtin import WebSearchTool
from svc.tools.search import BraveSearch, SearchConfig, select_backend
from tests.fakes.search_servers import (
    DEFAULT_HITS,
    open_brave_server,
    open_exa_server,
    open_hosted_server,
    open_searxng_server,
)
from tests.fakes.web_server import Reply, Request, json_reply, open_web_server

websearch = WebSearchTool()

BRAVE_KEY = "brv-secret-key-123456"
EXA_KEY = "exa-secret-key-654321"

EXPECTED_OUTPUT = (
    "1. Trio documentation — https://trio.readthedocs.io/\n"
    "  Trio: a friendly Python library for async concurrency\n"
    "2. Structured concurrency — https://example.org/structured\n"
    "  Notes on nurseries & cancel scopes"
)


def ctx_for(workspace: Path, settings: Settings | None) -> ToolContext:
    return ToolContext(workspace=workspace, settings=settings)


def assert_no_secret(result: ToolResult | ToolFailed, *secrets: str) -> None:
    rendered = repr(result) + (
        json.dumps(result.to_body())
        if isinstance(result, ToolFailed)
        else result.output + json.dumps(dict(result.metadata))
    )
    for secret in secrets:
        assert secret not in rendered


async def test_brave(workspace: Path, settings_with: Callable[..., Any]) -> None:
    async with open_brave_server(BRAVE_KEY) as server:
        env = {"SVC_BRAVE_SEARCH_API_KEY": BRAVE_KEY, "SVC_BRAVE_SEARCH_URL": server.url}
        ctx = ctx_for(workspace, settings_with(env, search_backend="brave"))
        result = await websearch.execute({"query": "trio nurseries", "limit": 2}, ctx)
    assert result.output == EXPECTED_OUTPUT
    assert result.metadata["backend"] == "brave"
    assert result.metadata["count"] == 2
    assert result.metadata["results"][1] == {
        "title": "Structured concurrency",
        "url": "https://example.org/structured",
        "snippet": "Notes on nurseries & cancel scopes",
    }
    [request] = server.requests
    assert request.method == "GET"
    assert request.param("q") == "trio nurseries"
    assert request.param("count") == "2"
    assert request.headers["x-subscription-token"] == BRAVE_KEY
    assert_no_secret(result, BRAVE_KEY)


async def test_brave_conventional_key_name_and_bad_key(
    workspace: Path, settings_with: Callable[..., Any]
) -> None:
    async with open_brave_server(BRAVE_KEY) as server:
        good = {"BRAVE_SEARCH_API_KEY": BRAVE_KEY, "SVC_BRAVE_SEARCH_URL": server.url}
        result = await websearch.execute(
            {"query": "q"}, ctx_for(workspace, settings_with(good, search_backend="brave"))
        )
        assert result.metadata["count"] == 3
        wrong = "brv-wrong-key-000000"
        bad = {"SVC_BRAVE_SEARCH_API_KEY": wrong, "SVC_BRAVE_SEARCH_URL": server.url}
        with pytest.raises(ToolFailed) as info:
            await websearch.execute(
                {"query": "q"}, ctx_for(workspace, settings_with(bad, search_backend="brave"))
            )
    assert info.value.message == "brave search failed: HTTP 401"
    assert info.value.extra["http_status"] == 401
    assert_no_secret(info.value, wrong, BRAVE_KEY)


async def test_exa(workspace: Path, settings_with: Callable[..., Any]) -> None:
    async with open_exa_server(EXA_KEY) as server:
        env = {"EXA_API_KEY": EXA_KEY, "SVC_EXA_SEARCH_URL": server.url}
        result = await websearch.execute(
            {"query": "trio nurseries", "limit": 2},
            ctx_for(workspace, settings_with(env, search_backend="exa")),
        )
    assert result.output == EXPECTED_OUTPUT
    assert result.metadata["backend"] == "exa"
    [request] = server.requests
    assert request.method == "POST"
    assert json.loads(request.body) == {"query": "trio nurseries", "numResults": 2}
    assert request.headers["x-api-key"] == EXA_KEY
    assert_no_secret(result, EXA_KEY)


async def test_searxng(workspace: Path, settings_with: Callable[..., Any]) -> None:
    async with open_searxng_server() as server:
        env = {"SVC_SEARXNG_URL": server.url + "/"}
        ctx = ctx_for(workspace, settings_with(env, search_backend="searxng"))
        result = await websearch.execute({"query": "trio nurseries", "limit": 2}, ctx)
        everything = await websearch.execute({"query": "trio"}, ctx)
    assert result.output == EXPECTED_OUTPUT  # the limit is applied to what the instance returns
    assert result.metadata["backend"] == "searxng"
    assert everything.metadata["count"] == len(DEFAULT_HITS)
    assert server.requests[0].param("format") == "json"
    assert server.requests[0].param("q") == "trio nurseries"


async def test_hosted(workspace: Path, settings_with: Callable[..., Any]) -> None:
    async with open_hosted_server() as server:
        engine = settings_with(
            search_url=f"{server.url}/search"
        )  # backend "auto" with a URL → hosted
        result = await websearch.execute(
            {"query": "trio nurseries", "limit": 2}, ctx_for(workspace, engine)
        )
        explicit = await websearch.execute(
            {"query": "x"},
            ctx_for(
                workspace, settings_with(search_backend="hosted", search_url=f"{server.url}/search")
            ),
        )
    assert result.output == EXPECTED_OUTPUT
    assert result.metadata["backend"] == "hosted"
    assert explicit.metadata["count"] == 3
    assert json.loads(server.requests[0].body) == {"query": "trio nurseries", "limit": 2}


async def test_auto_falls_back_to_a_direct_backend_with_a_key(
    workspace: Path, settings_with: Callable[..., Any]
) -> None:
    async with open_exa_server(EXA_KEY) as server:
        env = {"SVC_EXA_API_KEY": EXA_KEY, "SVC_EXA_SEARCH_URL": server.url}
        result = await websearch.execute({"query": "q"}, ctx_for(workspace, settings_with(env)))
    assert result.metadata["backend"] == "exa"


def test_auto_prefers_hosted_then_brave_then_exa_then_searxng() -> None:
    everything = {
        "SVC_BRAVE_SEARCH_API_KEY": BRAVE_KEY,
        "SVC_EXA_API_KEY": EXA_KEY,
        "SVC_SEARXNG_URL": "http://s",
    }
    assert select_backend(SearchConfig(url="http://hosted", environ=everything)).name == "hosted"
    assert select_backend(SearchConfig(environ=everything)).name == "brave"
    del everything["SVC_BRAVE_SEARCH_API_KEY"]
    assert select_backend(SearchConfig(environ=everything)).name == "exa"
    del everything["SVC_EXA_API_KEY"]
    assert select_backend(SearchConfig(environ=everything)).name == "searxng"


@pytest.mark.parametrize(
    ("config", "variable"),
    [
        (SearchConfig(url="https://k:s@search.example.com"), "SVC_SEARCH_URL"),
        (SearchConfig(backend="hosted", url="ftp://search.example.com"), "SVC_SEARCH_URL"),
        (SearchConfig(environ={"SVC_SEARXNG_URL": "http://u:p@127.0.0.1:8888"}), "SVC_SEARXNG_URL"),
        (
            SearchConfig(
                environ={"SVC_BRAVE_SEARCH_API_KEY": BRAVE_KEY, "SVC_BRAVE_SEARCH_URL": "file:///x"}
            ),
            "SVC_BRAVE_SEARCH_URL",
        ),
        (
            SearchConfig(environ={"SVC_EXA_API_KEY": EXA_KEY, "SVC_EXA_SEARCH_URL": "x://y"}),
            "SVC_EXA_SEARCH_URL",
        ),
    ],
)
def test_configured_search_urls_pass_the_operator_rule(config: SearchConfig, variable: str) -> None:
    """Local search services are fine; a wrong scheme or credentials in the URL are not."""
    with pytest.raises(ToolFailed) as refused:
        select_backend(config)
    assert refused.value.extra["field"] == variable and variable in refused.value.message
    local = SearchConfig(environ={"SVC_SEARXNG_URL": "http://127.0.0.1:8888"})
    assert select_backend(local).name == "searxng"


def test_backend_records_never_show_their_key() -> None:
    backend = select_backend(
        SearchConfig(backend="brave", environ={"SVC_BRAVE_SEARCH_API_KEY": BRAVE_KEY})
    )
    assert isinstance(backend, BraveSearch)
    assert BRAVE_KEY not in repr(backend)
    assert BRAVE_KEY not in repr(SearchConfig(environ={"SVC_BRAVE_SEARCH_API_KEY": BRAVE_KEY}))


async def test_not_configured(workspace: Path, settings_with: Callable[..., Any]) -> None:
    with pytest.raises(ToolFailed) as info:
        await websearch.execute({"query": "q"}, ctx_for(workspace, settings_with()))
    assert info.value.message.startswith("web search is not configured")
    with pytest.raises(ToolFailed, match="not configured"):
        await websearch.execute(
            {"query": "q"}, ToolContext(workspace=workspace)
        )  # no engine at all
    with pytest.raises(ToolFailed, match="hosted backend needs SVC_SEARCH_URL"):
        await websearch.execute(
            {"query": "q"}, ctx_for(workspace, settings_with(search_backend="hosted"))
        )


@pytest.mark.parametrize(
    ("backend", "message"),
    [
        ("brave", "SVC_BRAVE_SEARCH_API_KEY or BRAVE_SEARCH_API_KEY"),
        ("exa", "SVC_EXA_API_KEY"),
        ("searxng", "SVC_SEARXNG_URL"),
    ],
)
async def test_direct_backend_without_its_key(
    workspace: Path, settings_with: Callable[..., Any], backend: str, message: str
) -> None:
    with pytest.raises(ToolFailed) as info:
        await websearch.execute(
            {"query": "q"}, ctx_for(workspace, settings_with(search_backend=backend))
        )
    assert f"`{backend}` is not configured" in info.value.message
    assert message in info.value.message


@pytest.mark.parametrize("backend", ["none", "disabled"])
async def test_disabled(workspace: Path, settings_with: Callable[..., Any], backend: str) -> None:
    env = {"SVC_BRAVE_SEARCH_API_KEY": BRAVE_KEY}
    with pytest.raises(ToolFailed, match="web search is disabled"):
        await websearch.execute(
            {"query": "q"}, ctx_for(workspace, settings_with(env, search_backend=backend))
        )


async def test_unknown_backend(workspace: Path, settings_with: Callable[..., Any]) -> None:
    with pytest.raises(ToolFailed, match="unknown search backend `bing`"):
        await websearch.execute(
            {"query": "q"}, ctx_for(workspace, settings_with(search_backend="bing"))
        )


async def test_timeout_comes_from_settings(
    workspace: Path, settings_with: Callable[..., Any]
) -> None:
    release = trio.Event()

    async def stall(request: Request) -> Reply:
        await release.wait()
        return json_reply({"results": []})

    async with open_web_server({"/search": stall}) as server:
        engine = settings_with(search_url=f"{server.url}/search", search_timeout_ms=300)
        with pytest.raises(ToolFailed) as info:
            await websearch.execute({"query": "q"}, ctx_for(workspace, engine))
        release.set()
    assert info.value.message == "hosted search timed out after 300 ms"
    assert info.value.retryable is True


async def test_bad_payloads_and_empty_results(
    workspace: Path, settings_with: Callable[..., Any]
) -> None:
    routes = {
        "/empty": json_reply({"results": []}),
        "/odd": json_reply(
            {"results": [{"title": "no url"}, "junk", {"url": "https://ok.example/"}]}
        ),
        "/html": Reply(200, b"<html>oops</html>", (("content-type", "text/html"),)),
        "/down": json_reply({"error": "maintenance"}, 503),
    }
    async with open_web_server(routes) as server:

        def ctx(path: str) -> ToolContext:
            return ctx_for(workspace, settings_with(search_url=server.url + path))

        empty = await websearch.execute({"query": "nothing"}, ctx("/empty"))
        odd = await websearch.execute({"query": "odd"}, ctx("/odd"))
        with pytest.raises(ToolFailed, match="not JSON"):
            await websearch.execute({"query": "q"}, ctx("/html"))
        with pytest.raises(ToolFailed) as down:
            await websearch.execute({"query": "q"}, ctx("/down"))
    assert empty.output == "no results for `nothing`"
    assert empty.metadata == {"backend": "hosted", "count": 0, "results": []}
    assert odd.output == "1. https://ok.example/ — https://ok.example/"
    assert down.value.message == "hosted search failed: HTTP 503"
    assert down.value.retryable is True


async def test_unreachable_backend_error_hides_the_key(
    workspace: Path, settings_with: Callable[..., Any]
) -> None:
    async with open_web_server() as server:
        url = server.url
    env = {"SVC_BRAVE_SEARCH_API_KEY": BRAVE_KEY, "SVC_BRAVE_SEARCH_URL": url}
    with pytest.raises(ToolFailed) as info:
        await websearch.execute(
            {"query": "q"}, ctx_for(workspace, settings_with(env, search_backend="brave"))
        )
    assert info.value.message.startswith("brave search failed:")
    assert_no_secret(info.value, BRAVE_KEY)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "args.query"),
        ({"query": ""}, "args.query"),
        ({"query": "q", "limit": 21}, "args.limit"),
        ({"query": "q", "limit": 0}, "args.limit"),
    ],
)
async def test_bad_arguments(ctx: ToolContext, args: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationFailed) as info:
        await websearch.execute(args, ctx)
    assert info.value.extra["field"] == field
