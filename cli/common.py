"""Helpers shared by commands: loading settings, reading JSON inputs, failing cleanly."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import asyncclick as click

from svc import Settings
from svc.errors import SvcError


def fail(message: str, code: int = 1) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def note(message: str) -> None:
    """A notice for the person at the terminal: on stderr, never mixed into an answer."""
    click.echo(f"note: {message}", err=True)


QUIET_HELP = "Do not print notices (such as which model answered) on stderr."


def load_settings(**overrides: Any) -> Settings:
    try:
        return Settings.load(overrides)
    except SvcError as exc:
        fail(exc.message, 2)


def read_json_input(raw: str, what: str = "--json") -> Any:
    """A JSON value given inline, as ``@path``, or ``-`` for standard input."""
    if raw == "-":
        text = sys.stdin.read()
    elif raw.startswith("@"):
        path = Path(raw[1:]).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            fail(f"cannot read {what} file {path}: {exc.strerror}", 2)
    else:
        text = raw
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"{what} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}", 2)


def print_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))
