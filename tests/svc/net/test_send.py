"""Guarded requests against real loopback servers: pinning, rebinding and redirects."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import httpx
import pytest

from svc.net import UrlPolicy, UrlRefused, guarded_request, guarded_stream
from tests.fakes.internet import InternetTransport
from tests.fakes.web_server import Reply, Request, open_web_server, redirect, text

PUBLIC = "93.184.216.34"
LOCAL = UrlPolicy(allow_http=True, allow_private=True)


class Dns:
    """A fake resolver whose answers are scripted per name, in order; it counts lookups."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        self.lookups.append(host)
        script = self.answers[host]
        return script.pop(0) if len(script) > 1 else script[0]


async def test_connects_to_the_checked_address_and_keeps_the_name() -> None:
    dns = Dns({"site.test": [["127.0.0.1"]]})
    async with open_web_server({"/page": text("hello")}) as server:
        port = httpx.URL(server.url).port
        async with httpx.AsyncClient(trust_env=False) as client:
            reply = await guarded_request(
                client, "GET", f"http://site.test:{port}/page", LOCAL, resolver=dns
            )
    assert reply.text == "hello"
    assert str(reply.url) == f"http://site.test:{port}/page"
    # "site.test" exists nowhere else: a second lookup (by httpx) would have failed.
    assert dns.lookups == ["site.test"]
    assert server.requests[0].headers["host"] == f"site.test:{port}"


async def test_an_answer_that_changes_after_the_check_is_never_used() -> None:
    # DNS rebinding: the first answer is public, every later one is loopback.
    dns = Dns({"rebind.test": [[PUBLIC], ["127.0.0.1"]]})
    async with (
        open_web_server({"/": text("public")}) as public,
        open_web_server({"/": text("secret")}) as private,
    ):
        internet = InternetTransport({PUBLIC: public.url})
        async with httpx.AsyncClient(transport=internet) as client:
            reply = await guarded_request(
                client, "GET", "https://rebind.test/", UrlPolicy(), resolver=dns
            )
    assert reply.text == "public"
    assert [(s.address, s.host_header, s.sni_hostname) for s in internet.sent] == [
        (PUBLIC, "rebind.test", "rebind.test")
    ]
    assert private.requests == []


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_redirect_to_loopback_is_refused_before_it_is_sent(status: int) -> None:
    async with open_web_server({"/": text("secret")}) as private:
        routes = {"/go": redirect(f"{private.url}/", status)}
        async with open_web_server(routes) as public:
            internet = InternetTransport({PUBLIC: public.url})
            async with httpx.AsyncClient(transport=internet) as client:
                with pytest.raises(UrlRefused) as info:
                    await guarded_request(
                        client,
                        "GET",
                        f"http://{PUBLIC}/go",
                        UrlPolicy(allow_http=True, max_redirects=5),
                    )
    assert info.value.reason == "private_address"
    assert [s.address for s in internet.sent] == [PUBLIC]
    assert private.requests == []


async def test_a_redirect_through_a_name_is_resolved_and_checked_again() -> None:
    dns = Dns({"a.test": [[PUBLIC]], "b.test": [["10.0.0.8"]]})
    routes = {"/go": redirect("https://b.test/next", 307)}
    async with open_web_server(routes) as public:
        internet = InternetTransport({PUBLIC: public.url})
        async with httpx.AsyncClient(transport=internet) as client:
            with pytest.raises(UrlRefused) as info:
                await guarded_request(
                    client, "GET", "https://a.test/go", UrlPolicy(max_redirects=3), resolver=dns
                )
    assert info.value.reason == "private_address"
    assert dns.lookups == ["a.test", "b.test"]
    assert len(internet.sent) == 1


async def test_redirects_are_followed_up_to_the_policy_limit() -> None:
    routes = {"/1": redirect("/2"), "/2": redirect("/3", 307), "/3": text("end")}
    async with open_web_server(routes) as server, httpx.AsyncClient(trust_env=False) as client:
        reply = await guarded_request(
            client, "GET", f"{server.url}/1", attrs_evolve(LOCAL, max_redirects=2)
        )
        assert reply.text == "end"
        assert str(reply.url) == f"{server.url}/3"
        with pytest.raises(UrlRefused) as info:
            await guarded_request(
                client, "GET", f"{server.url}/1", attrs_evolve(LOCAL, max_redirects=1)
            )
        assert info.value.reason == "redirect"
        with pytest.raises(UrlRefused):
            await guarded_request(client, "GET", f"{server.url}/1", LOCAL)


async def test_redirect_method_body_and_credentials() -> None:
    async with open_web_server({"/end": text("ok")}) as other:
        routes = {
            "/see-other": redirect("/end", 303),
            "/temporary": redirect("/end", 307),
            "/away": redirect(f"{other.url.replace('127.0.0.1', 'localhost')}/end", 307),
        }
        async with open_web_server(routes) as server:
            policy = attrs_evolve(LOCAL, max_redirects=1)
            headers = {"authorization": "Bearer hunter2"}
            async with httpx.AsyncClient(trust_env=False) as client:
                for path in ("/see-other", "/temporary", "/away"):
                    await guarded_request(
                        client,
                        "POST",
                        f"{server.url}{path}",
                        policy,
                        content=b"payload",
                        headers=headers,
                    )
    ends = [r for r in server.requests if r.path == "/end"]
    assert [(r.method, r.body) for r in ends] == [("GET", b""), ("POST", b"payload")]
    assert all(r.headers.get("authorization") == "Bearer hunter2" for r in ends)
    # Another origin: the body follows a 307, the credentials do not.
    assert [(r.method, r.body) for r in other.requests] == [("POST", b"payload")]
    assert "authorization" not in other.requests[0].headers


async def test_the_next_checked_address_is_tried_when_one_refuses() -> None:
    dns = Dns({"two.test": [["127.0.0.3", "127.0.0.1"]]})
    async with open_web_server({"/": text("second")}) as server:
        port = httpx.URL(server.url).port
        async with httpx.AsyncClient(trust_env=False) as client:
            reply = await guarded_request(
                client, "GET", f"http://two.test:{port}/", LOCAL, resolver=dns
            )
    assert reply.text == "second"


async def test_streaming_variant_yields_an_unread_body() -> None:
    body = b"x" * 100_000

    def big(request: Request) -> Reply:
        return Reply(200, body, chunk_size=4096)

    async with (
        open_web_server({"/big": big}) as server,
        httpx.AsyncClient(trust_env=False) as client,
    ):
        async with guarded_stream(client, "GET", f"{server.url}/big", LOCAL) as reply:
            assert not reply.is_stream_consumed
            chunks = [chunk async for chunk in reply.aiter_bytes()]
        assert reply.is_closed
    assert b"".join(chunks) == body


async def test_nothing_is_sent_to_a_refused_url() -> None:
    async with (
        open_web_server({"/": text("secret")}) as server,
        httpx.AsyncClient(trust_env=False) as client,
    ):
        for url in (server.url, server.url.replace("127.0.0.1", "127.1")):
            with pytest.raises(UrlRefused):
                await guarded_request(client, "GET", url, UrlPolicy(allow_http=True))
    assert server.requests == []


def attrs_evolve(policy: UrlPolicy, **changes: object) -> UrlPolicy:
    return attrs.evolve(policy, **changes)


async def test_a_bare_transport_is_pinned_and_redirects_are_rechecked() -> None:
    # The same guard through a transport (as webhook deliveries send): the checked
    # address is connected to, Host and SNI keep the name, a redirect is re-checked.
    dns = Dns({"hook.test": [[PUBLIC], ["127.0.0.1"]]})
    async with (
        open_web_server({"/": text("secret")}) as private,
        open_web_server({"/in": text("taken"), "/go": redirect(f"{private.url}/", 307)}) as public,
    ):
        internet = InternetTransport({PUBLIC: public.url})
        async with internet:
            reply = await guarded_request(
                internet, "POST", "https://hook.test/in", UrlPolicy(), resolver=dns, content=b"x"
            )
            with pytest.raises(UrlRefused) as info:
                await guarded_request(
                    internet,
                    "POST",
                    f"http://{PUBLIC}/go",
                    UrlPolicy(allow_http=True, max_redirects=3),
                )
    assert reply.text == "taken"
    assert str(reply.url) == "https://hook.test/in"
    assert [(s.address, s.host_header, s.sni_hostname) for s in internet.sent] == [
        (PUBLIC, "hook.test", "hook.test"),
        (PUBLIC, PUBLIC, PUBLIC),
    ]
    assert info.value.reason == "private_address"
    assert private.requests == []


async def test_a_bare_transport_gets_the_callers_timeout() -> None:
    seen: list[dict[str, object]] = []

    class Recording(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            seen.append(dict(request.extensions["timeout"]))
            return httpx.Response(204)

    await guarded_request(Recording(), "POST", "http://127.0.0.1:9/", LOCAL, timeout=2.5)
    await guarded_request(Recording(), "GET", "http://127.0.0.1:9/", LOCAL)
    await guarded_request(Recording(), "GET", "http://127.0.0.1:9/", LOCAL, timeout=None)
    assert seen == [
        {"connect": 2.5, "read": 2.5, "write": 2.5, "pool": 2.5},
        {"connect": 5.0, "read": 5.0, "write": 5.0, "pool": 5.0},
        {"connect": None, "read": None, "write": None, "pool": None},
    ]
