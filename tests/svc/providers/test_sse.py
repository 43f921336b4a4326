"""SSE decoding and JSON payload extraction (pure, no sockets)."""

from __future__ import annotations

from svc.providers.sse import SSEDecoder, SSEEvent, json_payloads


def feed_all(lines: list[str]) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events = [e for e in (decoder.feed(line) for line in lines) if e is not None]
    tail = decoder.flush()
    return events + ([tail] if tail is not None else [])


def test_blank_line_dispatches_and_fields_accumulate() -> None:
    events = feed_all(["event: delta", "data: a", "data: b", "id: 7", "", "data:c", ""])
    assert events == [SSEEvent(data="a\nb", event="delta", id="7"), SSEEvent(data="c", id="7")]


def test_comments_and_unknown_fields_are_ignored() -> None:
    assert feed_all([": keep-alive", "retry: 10", "foo: bar", "data: x", ""]) == [
        SSEEvent(data="x")
    ]


def test_only_one_space_after_the_colon_is_dropped() -> None:
    assert feed_all(["data:  two", ""]) == [SSEEvent(data=" two")]


def test_event_without_data_is_not_dispatched_and_resets_the_name() -> None:
    assert feed_all(["event: ping", "", "data: x", ""]) == [SSEEvent(data="x")]


def test_flush_returns_an_event_missing_its_blank_line() -> None:
    assert feed_all(["data: last"]) == [SSEEvent(data="last")]


def test_json_payloads_one_document_or_one_per_line() -> None:
    assert json_payloads('{"a": 1}') == [{"a": 1}]
    # Servers that forget the blank line between events.
    assert json_payloads('{"a": 1}\n{"b": 2}\nnot json') == [{"a": 1}, {"b": 2}]
    assert json_payloads("garbage") == []
