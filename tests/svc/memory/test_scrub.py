"""Scrubbing credentials from text promoted to a wider tier."""

from __future__ import annotations

from svc.logs import register_secret
from svc.memory import scrub_text


def test_clean_text_passes_unchanged() -> None:
    text, report = scrub_text("The deploy runs on Fridays.")
    assert text == "The deploy runs on Fridays." and report.to_wire() == {
        "status": "passed",
        "redactions": 0,
    }


def test_known_credential_shapes_are_redacted_and_counted() -> None:
    raw = (
        "key sk-proj-abcdefghijklmnop1234 and ghp_abcdefghijklmnopqrstuvwxyz12 "
        "plus AKIAABCDEFGHIJKLMNOP, header Authorization: Bearer abc.def-ghi_jkl123456"
    )
    text, report = scrub_text(raw)
    assert (
        "sk-proj" not in text
        and "ghp_" not in text
        and "AKIA" not in text
        and "abc.def" not in text
    )
    assert text.count("[REDACTED]") == 4 and report.status == "redacted" and report.redactions == 4


def test_assignments_keep_the_name_and_lose_the_value() -> None:
    text, report = scrub_text('db_password = "hunter2!" and API_KEY: xyz-123, token=abc')
    assert text == "db_password = [REDACTED] and API_KEY: [REDACTED], token=[REDACTED]"
    assert report.redactions == 3


def test_registered_engine_secrets_are_redacted() -> None:
    register_secret("s3cr3t-value-registered-0042")
    text, report = scrub_text("the value s3cr3t-value-registered-0042 was used")
    assert text == "the value [REDACTED] was used" and report.redactions == 1


def test_private_keys_block_the_promotion() -> None:
    text, report = scrub_text(
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----"
    )
    assert text.startswith("-----BEGIN")  # nothing is half-scrubbed: the caller must not copy it
    assert report.status == "blocked" and report.block_reason == "private key material"
    assert report.to_wire()["block_reason"] == "private key material"
