"""The project configuration layer's file: where it is, reading it, replacing it.

The project file (``<workspace>/.svc/config.json`` or ``--config``) is written
by the engine itself when an operator changes identity settings or a channel
over HTTP. It may hold tokens, so a file created here is private to its owner
(0600), and a replacement is atomic: a reader sees the old file or the new one.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .settings import Settings


def project_config_path(settings: Settings) -> Path:
    if settings.config_path is not None:
        return settings.config_path.expanduser()
    return settings.resolved_workspace / ".svc" / "config.json"


def read_project_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read project config {path}: {exc.strerror}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"project config {path} is not valid JSON (line {exc.lineno}): fix it first"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"project config {path} must be a JSON object")
    return data


def write_json_atomically(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` so a reader sees the old file or the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".config-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp made it 0600; an existing file keeps its own mode.
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


__all__ = ["project_config_path", "read_project_file", "write_json_atomically"]
