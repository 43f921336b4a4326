from __future__ import annotations

import io
import json
import logging

from svc.logs import configure_logging, register_secret


def test_log_lines_are_json_and_never_carry_secrets() -> None:
    stream = io.StringIO()
    configure_logging("debug", stream=stream)
    try:
        register_secret("tk_live_value_123456")
        log = logging.getLogger("svc.test")
        log.info(
            "calling with tk_live_value_123456 inside",
            extra={
                "headers": {"Authorization": "Bearer abc", "Accept": "json"},
                "api_key": "k-999",
                "user": "u",
            },
        )
        line = json.loads(stream.getvalue().strip().splitlines()[-1])
    finally:
        configure_logging("warning")
    assert line["msg"] == "calling with [REDACTED] inside"
    assert line["headers"] == {"Authorization": "[REDACTED]", "Accept": "json"}
    assert line["api_key"] == "[REDACTED]"
    assert line["user"] == "u"
    assert "tk_live_value_123456" not in stream.getvalue()
