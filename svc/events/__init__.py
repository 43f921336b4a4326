"""The event log and the streams that are views of it."""

from ._event import SCHEMA_VERSION, Event, run_id_of, session_id_of
from ._filter import MATCH_ALL, EventFilter
from ._log import EventLog, open_event_log
from ._stream import EventStream, StreamEnded
from ._subscribers import Subscription
from .sse import KEEPALIVE, frame, json_frame, parse_frames

__all__ = [
    "KEEPALIVE",
    "MATCH_ALL",
    "SCHEMA_VERSION",
    "Event",
    "EventFilter",
    "EventLog",
    "EventStream",
    "StreamEnded",
    "Subscription",
    "frame",
    "json_frame",
    "open_event_log",
    "parse_frames",
    "run_id_of",
    "session_id_of",
]
