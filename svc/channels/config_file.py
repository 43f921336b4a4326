"""The ``channels.<name>`` block of the project configuration layer.

Reading and atomically replacing the file is :mod:`svc.project_config`'s job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def with_channel(
    data: Mapping[str, Any], name: str, block: Mapping[str, Any] | None
) -> dict[str, Any]:
    """``data`` with ``channels.<name>`` replaced (``None``: removed)."""
    out = dict(data)
    channels = dict(out.get("channels") or {})
    if block is None:
        channels.pop(name, None)
    else:
        channels[name] = dict(block)
    out["channels"] = channels
    return out


__all__ = ["with_channel"]
