"""Session tests that need a real engine process reuse the CLI tests' subprocess fixtures."""

from __future__ import annotations

from tests.cli.conftest import cli_env, served

__all__ = ["cli_env", "served"]
