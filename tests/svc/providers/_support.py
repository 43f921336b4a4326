"""Constants shared by the provider tests."""

from __future__ import annotations

from svc.providers.transport import RetryPolicy

# Retries are exercised for real, just without the production backoff.
FAST_RETRY = RetryPolicy(base_delay=0.001)
API_KEY = "sk-test-9f8e7d6c5b4a3210"
