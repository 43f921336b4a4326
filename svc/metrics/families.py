"""The metric families, one registry per engine (two engines in a process never mix)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import trio
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

CONTENT_TYPE = CONTENT_TYPE_LATEST

# Latencies from a millisecond to a few seconds (appends, ticks, MCP calls).
FAST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Runs last seconds to minutes.
RUN_BUCKETS = (0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)


class Metrics:
    """Every ``svc_`` family. Gauges of live state read it when scraped (callbacks)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.recorded_seq = 0
        self._recorded_changed = trio.Event()
        r = self.registry
        self.runs_active = Gauge("svc_runs_active", "Session runs executing now", registry=r)
        self.runs_queued = Gauge(
            "svc_runs_queued", "Runs waiting for a slot (workflows, automations)", registry=r
        )
        self.run_duration = Histogram(
            "svc_run_duration_seconds",
            "Session run durations by final status",
            ["status"],
            buckets=RUN_BUCKETS,
            registry=r,
        )
        self.tool_calls = Counter(
            "svc_tool_calls",
            "Tool calls by tool and decision (completed, failed, denied)",
            ["tool", "decision"],
            registry=r,
        )
        self.provider_errors = Counter(
            "svc_provider_errors",
            "Runs ended by a provider error, by provider and error code",
            ["provider", "code"],
            registry=r,
        )
        self.scheduler_tick = Histogram(
            "svc_scheduler_tick_seconds",
            "Automation scheduler tick latency",
            buckets=FAST_BUCKETS,
            registry=r,
        )
        self.event_append = Histogram(
            "svc_event_append_seconds",
            "Event-log append (one group-committed batch) latency",
            buckets=FAST_BUCKETS,
            registry=r,
        )
        self.events_published = Counter(
            "svc_events_committed", "Events durably appended to the event log", registry=r
        )
        self.sse_subscribers = Gauge(
            "svc_sse_subscribers",
            "Live event-log subscriptions (SSE streams and internal)",
            registry=r,
        )
        self.sse_streams = Gauge("svc_sse_streams", "Open SSE responses", registry=r)
        self.store_memory = Gauge(
            "svc_store_memory_bytes",
            "Memory the embedded store holds in the process (SQLite's page caches; 0 on"
            " PostgreSQL)",
            registry=r,
        )
        self._restarts: Callable[[], Mapping[str, int]] = dict
        r.register(_RestartCollector(lambda: self._restarts()))
        self.mcp_call = Histogram(
            "svc_mcp_call_seconds",
            "MCP tools/call latency by connector",
            ["connector"],
            buckets=FAST_BUCKETS,
            registry=r,
        )

    def recorded(self, seq: int) -> None:
        """The event recorder has seen every event up to ``seq``."""
        self.recorded_seq = seq
        changed, self._recorded_changed = self._recorded_changed, trio.Event()
        changed.set()

    async def wait_recorded(self, seq: int) -> None:
        """Wait until the recorder has seen event ``seq`` (tests, the soak)."""
        while self.recorded_seq < seq:
            await self._recorded_changed.wait()

    def watch(
        self,
        *,
        runs_active: Callable[[], float],
        sse_subscribers: Callable[[], float],
        sse_streams: Callable[[], float],
        runs_queued: Callable[[], float] | None = None,
        store_memory: Callable[[], float] | None = None,
    ) -> None:
        """Read live state at scrape time instead of mirroring it."""
        self.runs_active.set_function(runs_active)
        if store_memory is not None:
            self.store_memory.set_function(store_memory)
        self.sse_subscribers.set_function(sse_subscribers)
        self.sse_streams.set_function(sse_streams)
        if runs_queued is not None:
            self.runs_queued.set_function(runs_queued)

    def observe_event_append(self, seconds: float, count: int) -> None:
        self.event_append.observe(seconds)
        self.events_published.inc(count)

    def observe_scheduler_tick(self, seconds: float) -> None:
        self.scheduler_tick.observe(seconds)

    def observe_mcp_call(self, connector: str, seconds: float) -> None:
        self.mcp_call.labels(connector=connector).observe(seconds)

    def watch_restarts(self, restarts: Callable[[], Mapping[str, int]]) -> None:
        """``restarts()`` gives each supervisor's restart count when scraped."""
        self._restarts = restarts

    def exposition(self) -> bytes:
        """The Prometheus text format of every family."""
        return generate_latest(self.registry)


class _RestartCollector(Collector):
    """``svc_actor_restarts_total{supervisor}``, read from the supervisors when scraped."""

    def __init__(self, read: Callable[[], Mapping[str, int]]) -> None:
        self._read = read

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(
            "svc_actor_restarts", "Actor restarts by supervisor", labels=["supervisor"]
        )
        for supervisor, count in sorted(self._read().items()):
            family.add_metric([supervisor], count)
        yield family


__all__ = ["CONTENT_TYPE", "Metrics"]
