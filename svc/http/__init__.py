"""The thin HTTP/SSE layer: authenticate, parse, delegate, format."""

from .app import MAX_BODY_BYTES, create_app
from .sse import event_frames, resume_cursor, sse_response

__all__ = ["MAX_BODY_BYTES", "create_app", "event_frames", "resume_cursor", "sse_response"]
