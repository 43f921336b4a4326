"""The fake provider servers themselves (other suites rely on them)."""

from __future__ import annotations

import httpx
import pytest
import trio

from svc.providers import AnthropicProvider, CohereProvider
from svc.providers.endpoint import Endpoint
from svc.providers.types import ChatMessage, ChatRequest, StreamEvent, TextDelta
from tests.fakes import (
    FakeOpenAI,
    FakeToolCall,
    FakeUsage,
    RecordedRequest,
    Turn,
    open_fake_anthropic,
    open_fake_cohere,
    open_fake_openai,
)

from ._support import FAST_RETRY

CHAT = {"model": "m", "messages": [{"role": "user", "content": "ping pong"}]}


async def test_non_streaming_chat_completion(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(
        Turn.calls(FakeToolCall("f", {"a": 1}, id="c9"), text="hi", usage=FakeUsage(3, 4))
    )
    response = await http.post(
        openai_server.url + "/chat/completions", json={**CHAT, "stream": False}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion" and body["usage"]["total_tokens"] == 7
    message = body["choices"][0]["message"]
    assert message["content"] == "hi" and message["tool_calls"][0]["function"] == {
        "name": "f",
        "arguments": '{"a": 1}',
    }
    assert body["choices"][0]["finish_reason"] == "tool_calls"


async def test_models_listing_and_unknown_routes(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    assert (await http.get(openai_server.url + "/models")).json()["data"][0]["id"] == "fake-model"
    missing = await http.post(openai_server.url + "/embeddings", json={})
    assert missing.status_code == 404
    assert [r.path for r in openai_server.requests] == ["/v1/models", "/v1/embeddings"]


async def test_requests_are_recorded(openai_server: FakeOpenAI, http: httpx.AsyncClient) -> None:
    await http.post(
        openai_server.url + "/chat/completions?x=1", json=CHAT, headers={"X-Custom": "yes"}
    )
    request = openai_server.last
    assert isinstance(request, RecordedRequest)
    assert (request.method, request.path, request.query) == ("POST", "/v1/chat/completions", "x=1")
    assert request.headers["x-custom"] == "yes" and request.body == CHAT and request.json == CHAT


async def test_raw_stream_echoes_by_default_and_ends_with_done(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    response = await http.post(
        openai_server.url + "/chat/completions", json={**CHAT, "stream": True}
    )
    assert response.headers["content-type"] == "text/event-stream"
    frames = [line for line in response.text.split("\n") if line.startswith("data: ")]
    assert (
        frames[-1] == "data: [DONE]"
        and '"content":"ping "' in frames[1]
        and '"content":"pong"' in frames[2]
    )
    assert not any('"usage"' in f for f in frames)  # only with stream_options.include_usage


async def test_custom_default_responder(openai_server: FakeOpenAI, http: httpx.AsyncClient) -> None:
    openai_server.default = lambda request: Turn.reply(f"model was {request.body['model']}")
    response = await http.post(
        openai_server.url + "/chat/completions", json={**CHAT, "stream": False}
    )
    assert response.json()["choices"][0]["message"]["content"] == "model was m"


async def test_dropped_connection_is_a_truncated_body(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(Turn(chunks=["a", "b", "c"], drop_after=1))
    with pytest.raises(httpx.RemoteProtocolError):
        await http.post(openai_server.url + "/chat/completions", json={**CHAT, "stream": True})


async def test_gate_holds_the_stream_and_wait_for_requests(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    gate = trio.Event()
    openai_server.enqueue(Turn(chunks=["before ", "after"], gate=gate, gate_after=1))
    received: list[str] = []

    async def client() -> None:
        async with http.stream(
            "POST", openai_server.url + "/chat/completions", json={**CHAT, "stream": True}
        ) as response:
            async for line in response.aiter_lines():
                received.append(line)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(client)
        await openai_server.wait_for_requests(1)
        await trio.testing.wait_all_tasks_blocked()
        assert not any("after" in line for line in received)
        gate.set()
    assert any("after" in line for line in received) and received[-2] == "data: [DONE]"


async def test_exit_ends_responses_in_flight_and_frees_the_port(http: httpx.AsyncClient) -> None:
    gate = trio.Event()  # never set
    outcome: list[str] = []
    async with open_fake_openai() as server:
        server.enqueue(Turn(chunks=["x", "y"], gate=gate, gate_after=1))
        url = server.url

        async def client() -> None:
            try:
                await http.post(url + "/chat/completions", json={**CHAT, "stream": True})
            except httpx.RemoteProtocolError:
                outcome.append("truncated")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(client)
            await server.wait_for_requests(1)
            await trio.testing.wait_all_tasks_blocked()
            server.close()  # what leaving the block does first
    assert outcome == ["truncated"]
    with pytest.raises(httpx.ConnectError):
        await http.get(url + "/models")


async def test_high_volume_turn(openai_server: FakeOpenAI, http: httpx.AsyncClient) -> None:
    openai_server.enqueue(Turn(chunks=["x"] * 5000))
    response = await http.post(
        openai_server.url + "/chat/completions", json={**CHAT, "stream": True}
    )
    assert response.text.count('"content":"x"') == 5000


async def test_delay_paces_chunks(openai_server: FakeOpenAI, http: httpx.AsyncClient) -> None:
    openai_server.enqueue(Turn(chunks=["a", "b", "c"], delay=0.02))
    started = trio.current_time()
    await http.post(openai_server.url + "/chat/completions", json={**CHAT, "stream": True})
    assert trio.current_time() - started >= 0.06


async def test_anthropic_and_cohere_echo_and_non_streaming(http: httpx.AsyncClient) -> None:
    async with open_fake_anthropic() as anthropic, open_fake_cohere() as cohere:
        request = ChatRequest(model="m", messages=(ChatMessage("user", "say this back"),))
        events: list[StreamEvent] = []
        a = await AnthropicProvider(
            Endpoint("anthropic", anthropic.url), http, retry=FAST_RETRY
        ).chat(request, events.append)
        c = await CohereProvider(Endpoint("cohere", cohere.url), http, retry=FAST_RETRY).chat(
            request
        )
        assert a.text == c.text == "say this back"
        assert events[0] == TextDelta("say ")

        anthropic.enqueue(Turn.calls(FakeToolCall("t", {"k": "v"}, id="toolu_x"), text="ok"))
        body = (await http.post(anthropic.url + "/messages", json={**CHAT, "stream": False})).json()
        assert body["content"] == [
            {"type": "text", "text": "ok"},
            {"type": "tool_use", "id": "toolu_x", "name": "t", "input": {"k": "v"}},
        ]
        assert body["stop_reason"] == "tool_use"

        body = (await http.post(cohere.url + "/chat", json={**CHAT, "stream": False})).json()
        assert body["message"]["content"] == [{"type": "text", "text": "ping pong"}]
        assert body["finish_reason"] == "COMPLETE" and body["usage"]["tokens"]["output_tokens"] == 2
