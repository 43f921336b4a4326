"""webfetch and webfetch_html against a real loopback HTTP server.

The fake servers listen on loopback, which webfetch refuses by default; the tests of
fetching behaviour opt in explicitly (``webfetch_allow_private``), and the tests of
the default (at the end) do not.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import trio

import svc
from svc import Settings
from svc.errors import ValidationFailed
from svc.net import UrlRefused
from svc.tools import ToolContext, ToolFailed
from svc.tools.builtin import WebFetchHtmlTool, WebFetchTool
from tests.fakes.internet import InternetTransport
from tests.fakes.web_server import Reply, Request, html, open_web_server, redirect, text

webfetch = WebFetchTool()
webfetch_html = WebFetchHtmlTool()


@pytest.fixture
def ctx(workspace: Path, make_settings: Callable[..., Settings]) -> ToolContext:
    """A context whose settings let webfetch reach the loopback fake servers."""
    return ToolContext(workspace=workspace, settings=make_settings(webfetch_allow_private=True))


@pytest.fixture
def default_ctx(workspace: Path, make_settings: Callable[..., Settings]) -> ToolContext:
    return ToolContext(workspace=workspace, settings=make_settings())


PAGE = """<!doctype html>
<html><head><title>Fake page</title>
<style>body { color: red }</style>
<script>alert("never shown")</script></head>
<body><h1>Welcome</h1>
<p>Some <b>bold</b> text and a <a href="/docs">link</a>.</p>
<ul><li>first</li><li>second</li></ul>
<noscript>enable js</noscript>
</body></html>"""


async def test_html_becomes_markdown(ctx: ToolContext) -> None:
    async with open_web_server({"/page": html(PAGE)}) as server:
        result = await webfetch.execute({"url": f"{server.url}/page"}, ctx)
    assert "# Welcome" in result.output
    assert "Some **bold** text and a [link](/docs)." in result.output
    assert "- first\n- second" in result.output
    for hidden in ("alert", "color: red", "enable js", "<h1>"):
        assert hidden not in result.output
    assert result.metadata == {
        "url": f"{server.url}/page",
        "final_url": f"{server.url}/page",
        "status": 200,
        "content_type": "text/html; charset=utf-8",
        "bytes": len(PAGE.encode()),
        "truncated": False,
        "format": "markdown",
    }
    assert server.requests[0].headers["user-agent"].startswith("svc-engine/")


async def test_return_html_and_both(ctx: ToolContext) -> None:
    async with open_web_server({"/page": html(PAGE)}) as server:
        raw = await webfetch.execute({"url": f"{server.url}/page", "return": "html"}, ctx)
        both = await webfetch.execute({"url": f"{server.url}/page", "return": "both"}, ctx)
        direct = await webfetch_html.execute({"url": f"{server.url}/page"}, ctx)
    assert raw.output == PAGE
    assert direct.output == PAGE
    assert direct.metadata["format"] == "html"
    markdown, html_part = both.output.split("\n\n--- HTML ---\n\n")
    assert "# Welcome" in markdown
    assert html_part == PAGE


async def test_non_html_text_is_returned_as_is(ctx: ToolContext) -> None:
    routes = {"/plain": text("just <b>text</b>\n"), "/data": text('{"a": 1}', "application/json")}
    async with open_web_server(routes) as server:
        plain = await webfetch.execute({"url": f"{server.url}/plain"}, ctx)
        data = await webfetch.execute({"url": f"{server.url}/data"}, ctx)
    assert plain.output == "just <b>text</b>\n"
    assert plain.metadata["format"] == "text"
    assert data.output == '{"a": 1}'


async def test_binary_and_error_statuses_fail(ctx: ToolContext) -> None:
    routes = {"/img": text(b"\x89PNG\0\0", "image/png"), "/gone": html("<p>gone</p>", status=410)}
    async with open_web_server(routes) as server:
        with pytest.raises(ToolFailed, match="image/png, not text"):
            await webfetch.execute({"url": f"{server.url}/img"}, ctx)
        with pytest.raises(ToolFailed) as info:
            await webfetch.execute({"url": f"{server.url}/gone"}, ctx)
        with pytest.raises(ToolFailed, match="HTTP 404"):
            await webfetch_html.execute({"url": f"{server.url}/missing"}, ctx)
    assert info.value.message == f"HTTP 410 from {server.url}/gone"
    assert info.value.extra["http_status"] == 410
    assert info.value.status == 400


async def test_redirects_are_followed_up_to_the_cap(ctx: ToolContext) -> None:
    routes = {
        "/r1": redirect("/r2", 301),
        "/r2": redirect("r3", 307),  # relative to the current URL
        "/r3": redirect("/page"),
        "/page": html("<p>arrived</p>"),
    }
    async with open_web_server(routes) as server:
        result = await webfetch.execute({"url": f"{server.url}/r1"}, ctx)
        assert result.output == "arrived"
        assert result.metadata["final_url"] == f"{server.url}/page"
        assert result.metadata["url"] == f"{server.url}/r1"
        exact = await webfetch.execute({"url": f"{server.url}/r1", "max_redirects": 3}, ctx)
        assert exact.output == "arrived"
        with pytest.raises(ToolFailed, match=r"too many redirects .* \(more than 2\)"):
            await webfetch.execute({"url": f"{server.url}/r1", "max_redirects": 2}, ctx)
        with pytest.raises(ToolFailed, match="more than 0"):
            await webfetch.execute({"url": f"{server.url}/r3", "max_redirects": 0}, ctx)
        requests_before = len(server.requests)
        with pytest.raises(ToolFailed, match="too many redirects"):
            await webfetch.execute({"url": f"{server.url}/r1", "max_redirects": 1}, ctx)
        assert len(server.requests) - requests_before == 2  # never more than cap + 1 requests


async def test_redirect_loop_hits_the_default_cap(ctx: ToolContext) -> None:
    async with open_web_server({"/loop": redirect("/loop")}) as server:
        with pytest.raises(ToolFailed, match="more than 5"):
            await webfetch.execute({"url": f"{server.url}/loop"}, ctx)
    assert len(server.requests) == 6


async def test_redirect_to_another_scheme_is_refused(ctx: ToolContext) -> None:
    async with open_web_server({"/r": redirect("file:///etc/passwd")}) as server:
        with pytest.raises(UrlRefused) as info:
            await webfetch.execute({"url": f"{server.url}/r"}, ctx)
    assert info.value.reason == "scheme"
    assert info.value.extra["field"] == "args.url"


async def test_size_cap_truncates_and_says_so(ctx: ToolContext) -> None:
    body = b"a" * 200_000
    routes = {"/big": Reply(200, body, (("content-type", "text/plain"),), chunk_size=8192)}
    async with open_web_server(routes) as server:
        result = await webfetch.execute({"url": f"{server.url}/big", "max_bytes": 1000}, ctx)
        whole = await webfetch.execute({"url": f"{server.url}/big", "max_bytes": 200_000}, ctx)
    assert result.output == "a" * 1000 + "\n\n[truncated: only the first 1000 bytes were fetched]"
    assert result.metadata["bytes"] == 1000
    assert result.metadata["truncated"] is True
    assert whole.output == "a" * 200_000
    assert whole.metadata["truncated"] is False


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.org/x",
        "javascript:alert(1)",
        "no-scheme.org",
        "http://",
    ],
)
async def test_only_http_and_https(ctx: ToolContext, url: str) -> None:
    with pytest.raises(ValidationFailed) as info:
        await webfetch.execute({"url": url}, ctx)
    assert info.value.extra["field"] == "args.url"


@pytest.mark.parametrize(
    ("args", "field"),
    [({}, "args.url"), ({"url": "http://x", "return": "pdf"}, "args.return"),
     ({"url": "http://x", "max_bytes": 5_000_001}, "args.max_bytes"),
     ({"url": "http://x", "timeout_ms": 999}, "args.timeout_ms"),
     ({"url": "http://x", "timeout_ms": 120_001}, "args.timeout_ms"),
     ({"url": "http://x", "max_redirects": 21}, "args.max_redirects")],
)  # fmt: skip
async def test_argument_limits(ctx: ToolContext, args: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationFailed) as info:
        await webfetch.execute(args, ctx)
    assert info.value.extra["field"] == field


async def test_timeout(ctx: ToolContext) -> None:
    release = trio.Event()

    async def stall(request: Request) -> Reply:
        await release.wait()
        return html("<p>late</p>")

    async with open_web_server({"/slow": stall}) as server:
        with pytest.raises(ToolFailed) as info:
            await webfetch.execute({"url": f"{server.url}/slow", "timeout_ms": 1000}, ctx)
        release.set()
    assert info.value.message == f"fetching {server.url}/slow timed out after 1000 ms"
    assert info.value.retryable is True


async def test_connection_refused_is_a_tool_failure(ctx: ToolContext) -> None:
    async with open_web_server() as server:
        url = server.url
    with pytest.raises(ToolFailed, match="cannot fetch"):
        await webfetch.execute({"url": f"{url}/after-shutdown"}, ctx)


async def test_uses_the_engine_http_client_when_there_is_one(ctx: ToolContext) -> None:
    async with (
        open_web_server({"/p": text("hi")}) as server,
        httpx.AsyncClient(headers={"X-Client": "engine"}) as client,
    ):
        ctx = ToolContext(workspace=ctx.workspace, http=client, settings=ctx.settings)
        result = await webfetch.execute({"url": f"{server.url}/p"}, ctx)
        assert not client.is_closed  # borrowed, not closed
    assert result.output == "hi"
    assert server.requests[0].headers["x-client"] == "engine"


# --- the default: loopback and private networks are refused (issue: 15 of 19 spellings
# used to reach loopback)

LOOPBACK_FORMS = [
    "http://127.0.0.1:{port}/",
    "http://127.1:{port}/",
    "http://2130706433:{port}/",
    "http://0x7f000001:{port}/",
    "http://0.0.0.0:{port}/",
    "http://[::ffff:127.0.0.1]:{port}/",
    "http://[::1]:{port}/",
    "http://localhost:{port}/",
    "http://[64:ff9b::7f00:1]:{port}/",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/",
    "http://100.64.0.1/",
]


@pytest.mark.parametrize("form", LOOPBACK_FORMS)
async def test_loopback_and_private_forms_are_refused_by_default(
    default_ctx: ToolContext, form: str
) -> None:
    async with open_web_server({"/": text("secret")}) as server:
        url = form.format(port=httpx.URL(server.url).port)
        for tool in (webfetch, webfetch_html):
            with pytest.raises(UrlRefused) as info:
                await tool.execute({"url": url}, default_ctx)
            assert info.value.reason == "private_address"
            assert info.value.extra["field"] == "args.url"
    assert server.requests == []


async def test_credentials_in_the_url_are_refused(ctx: ToolContext) -> None:
    async with open_web_server({"/": text("secret")}) as server:
        url = server.url.replace("http://", "http://user:pass@")
        with pytest.raises(UrlRefused) as info:
            await webfetch.execute({"url": url}, ctx)
    assert info.value.reason == "credentials"
    assert server.requests == []


@pytest.mark.parametrize("status", [302, 307])
async def test_redirect_from_a_public_site_to_loopback_is_refused(
    default_ctx: ToolContext, status: int
) -> None:
    public_ip = "93.184.216.34"
    async with open_web_server({"/": text("secret")}) as private:
        routes = {"/go": redirect(f"{private.url}/", status), "/ok": html("<p>public</p>")}
        async with open_web_server(routes) as public:
            internet = InternetTransport({public_ip: public.url})
            async with httpx.AsyncClient(transport=internet) as client:
                ctx = ToolContext(
                    workspace=default_ctx.workspace, http=client, settings=default_ctx.settings
                )
                ok = await webfetch.execute({"url": f"http://{public_ip}/ok"}, ctx)
                with pytest.raises(UrlRefused) as info:
                    await webfetch.execute({"url": f"http://{public_ip}/go"}, ctx)
    assert ok.output == "public"
    assert info.value.reason == "private_address"
    assert private.requests == []


async def test_the_engines_own_health_route_is_refused(settings: Settings) -> None:
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        health = f"{engine.url}/global/health"
        reply = await client.post(
            "/tool/execute", json={"tool": "webfetch", "args": {"url": health}}
        )
    assert reply.status_code == 400
    assert reply.json()["code"] == "URL_NOT_ALLOWED"
