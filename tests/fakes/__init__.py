"""Fake upstream servers for tests: real HTTP on loopback, scripted responses.

    from tests.fakes import FakeToolCall, Turn, open_fake_openai

    async with open_fake_openai() as server:
        server.enqueue(Turn.reply("Hello"), Turn.calls(FakeToolCall("read", {"path": "a"})))
        ...  # point a provider at server.url
        assert server.requests[0].body["model"] == "gpt-4o"

* ``open_fake_openai()`` (``server.url`` ends in ``/v1``), ``open_fake_anthropic()``
  (``/v1``), ``open_fake_cohere()`` (``/v2``): async context managers; the
  server stops, and in-flight responses end, when the block exits.
* ``server.enqueue(*turns)`` scripts responses (:class:`Turn`: text ``chunks``,
  ``tool_calls``, ``usage``, ``finish_reason``, HTTP ``error`` with
  ``retry_after``, ``stream_error``, ``delay``, ``drop_after``, ``gate``,
  ``omit_terminator``);
  with the queue empty, ``server.default(request)`` answers (echo of the last
  user message).
* ``server.requests``: :class:`RecordedRequest` (method, path, query, headers
  with lower-cased names, parsed JSON ``body``, ``raw`` bytes);
  ``await server.wait_for_requests(n)`` blocks until ``n`` arrived.
"""

from ._asgi import RecordedRequest
from .anthropic_server import FakeAnthropic, open_fake_anthropic
from .cohere_server import FakeCohere, open_fake_cohere
from .openai_server import FakeOpenAI, open_fake_openai
from .turns import FakeToolCall, FakeUsage, HttpError, StreamError, Turn, split_words

__all__ = [
    "FakeAnthropic",
    "FakeCohere",
    "FakeOpenAI",
    "FakeToolCall",
    "FakeUsage",
    "HttpError",
    "RecordedRequest",
    "StreamError",
    "Turn",
    "open_fake_anthropic",
    "open_fake_cohere",
    "open_fake_openai",
    "split_words",
]
