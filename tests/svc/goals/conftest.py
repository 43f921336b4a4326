from __future__ import annotations

import pytest

import svc


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings
