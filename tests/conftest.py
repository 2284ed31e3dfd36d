"""Shared fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REAL_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"


@pytest.fixture
def real_data() -> Path:
    """Return ../shared/data/real; skip when it is absent, except on CI where it must exist."""
    if not REAL_DATA.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"real data folder {REAL_DATA} is missing on CI")
        pytest.skip(f"real data folder {REAL_DATA} is absent")
    return REAL_DATA
